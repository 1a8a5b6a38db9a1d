#!/usr/bin/env python3
"""A random sample's table from the log of `fftgen bench --random` (its
progress lines, `N = ...: ours X ms, cuFFT Y ms, copy Z ms, ...`), for a run
cut short before it wrote its JSON report: cuFFT/ours per row, worst first,
with VkFFT's share of its own copy beside it from `vkfft_bench.py --cases`.

    python3 scripts/random_log_summary.py RUN.log VKFFT.json
"""
import json
import re
import sys

log, vk = sys.argv[1], sys.argv[2]
rows = []
for l in open(log):
    m = re.search(r'N = +(?:(r2c|c2r) )?(\S+) (?:(forward|inverse) )?(f32|f64) (.*?)ours ([\d.]+) ms, cuFFT ([\d.]+) ms, copy ([\d.]+) ms.*ours error ([\d.e+-]+), cuFFT error ([\d.e+-]+)', l)
    if not m: continue
    kind, shape, direction, prec, rest, o, c, cp, oe, ce = m.groups()
    passes = re.search(r'(\d+) passes', rest)
    passes = int(passes.group(1)) if passes else 1
    rows.append(dict(kind=kind or 'c2c', shape=shape, direction=direction, prec=prec, ours=float(o), cufft=float(c), copy=float(cp), passes=passes, err=float(oe), cerr=float(ce)))
vrows = json.load(open(vk))['rows']
def vkey(r):
    d = r.get('direction')
    k = r['kind'] if r['kind'] == 'c2c' else ('r2c' if d == 'forward' else 'c2r')
    return ('x'.join(map(str, r['shape'])), r['precision'], k)
vmap = {vkey(r): r for r in vrows}
out = []
for r in rows:
    v = vmap.get((r['shape'], r['prec'], r['kind']))
    pct = 100 * r['copy'] / r['ours']
    vpct = v['vkfft_pct_copy'] if v else None
    out.append((r['cufft'] / r['ours'], r, pct, vpct))
ratios = [x[0] for x in out]
vk_ratios = [x[2] / x[3] for x in out if x[3]]
def pctl(v, q):
    s = sorted(v); return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]
print(f"{len(out)} rows")
print(f"cuFFT/ours: worst {min(ratios):.2f}, 10th percentile {pctl(ratios,0.1):.2f}, median {pctl(ratios,0.5):.2f}, best {max(ratios):.2f}; {sum(x<0.85 for x in ratios)} under 0.85")
print(f"VkFFT/ours ({len(vk_ratios)} rows, each from its own run's share of the copy): worst {min(vk_ratios):.2f}, 10th percentile {pctl(vk_ratios,0.1):.2f}, median {pctl(vk_ratios,0.5):.2f}, best {max(vk_ratios):.2f}; {sum(x<0.85 for x in vk_ratios)} under 0.85")
print()
print("| shape | prec | passes | ours ms | cuFFT ms | copy ms | cuFFT/ours | ours % copy | VkFFT % copy | VkFFT/ours | ours err | cuFFT err |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for ratio, r, pct, vpct in sorted(out, key=lambda x: x[0]):
    name = (f"{r['kind']} " if r['kind'] != 'c2c' else '') + r['shape']
    vs = f"{vpct:.1f}" if vpct else '-'
    vr = f"{pct/vpct:.2f}" if vpct else '-'
    print(f"| {name} | {r['prec']} | {r['passes']} | {r['ours']:.4f} | {r['cufft']:.4f} | {r['copy']:.4f} | {ratio:.2f} | {pct:.1f} | {vs} | {vr} | {r['err']:.2e} | {r['cerr']:.2e} |")
