#!/usr/bin/env python3
"""Writes docs/accuracy.md and docs/accuracy.svg from the sweeps of
`fftgen sweep` (scripts/device/accuracy_sweep.sh): docs/bench/GPU_accuracy_f32.txt
and _f64.txt, one line per length: n precision forward-error inverse-error
tolerance cufft-forward-error verdict.

    python3 scripts/accuracy_page.py [--gpu h100]
"""
import argparse
import math
import statistics
import sys

EPS = {"f32": 2.0 ** -23, "f64": 2.0 ** -52}
SUPPORTED = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]


def largest_prime(n):
    p, last = 2, 1
    while p * p <= n:
        while n % p == 0:
            last, n = p, n // p
        p += 1
    return max(last, n) if n > 1 else last


def read(path):
    rows = {}
    header = ""
    for line in open(path):
        if line.startswith("#"):
            header = header or line[2:].strip()
            continue
        n, precision, fwd, inv, tol, cufft, verdict = line.split()[:7]
        rows[int(n)] = dict(
            fwd=float(fwd), inv=float(inv), tol=float(tol),
            cufft=None if cufft == "-" else float(cufft), ok=verdict == "ok")
    return header, rows


def route(n):
    return "bluestein" if largest_prime(n) > 31 else "stockham"


def svg(sweeps):
    """Relative error over eps against N, the worst of each bin of 100 lengths."""
    width, height, left, top, right, bottom = 900, 420, 70, 30, 20, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    lo, hi = 0.01, 10.0
    x = lambda n: left + plot_w * (n - 2) / (10000 - 2)
    y = lambda v: top + plot_h * (1 - (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for v in [0.01, 0.1, 1, 10]:
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    for n in range(0, 10001, 2000):
        out.append(f'<text x="{x(max(n, 2)):.1f}" y="{height - bottom + 18}" text-anchor="middle">{n}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">N (1D C2C, forward)</text>')
    out.append(f'<text x="16" y="{top + plot_h / 2}" transform="rotate(-90 16 {top + plot_h / 2})" text-anchor="middle">relative L2 error / eps (worst of 100 lengths)</text>')
    series = [("f32", "ours", "#d62728"), ("f32", "cufft", "#ff9896"), ("f64", "ours", "#1f77b4"), ("f64", "cufft", "#aec7e8")]
    for i, (precision, who, color) in enumerate(series):
        rows = sweeps.get(precision)
        if not rows:
            continue
        points = []
        for start in range(2, 10001, 100):
            values = [rows[n]["fwd" if who == "ours" else "cufft"] for n in range(start, min(start + 100, 10001)) if n in rows]
            values = [v for v in values if v is not None]
            if values:
                points.append((x(start + 50), y(max(values) / EPS[precision])))
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.5"/>')
        label = f"{'fftgen' if who == 'ours' else 'cuFFT'} {precision}"
        out.append(f'<line x1="{left + 10}" x2="{left + 30}" y1="{top + 12 + 16 * i}" y2="{top + 12 + 16 * i}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{left + 36}" y="{top + 16 + 16 * i}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def summary(precision, rows):
    eps = EPS[precision]
    lines = []
    for name in ["stockham", "bluestein"]:
        sizes = [n for n in rows if route(n) == name]
        worst = max(sizes, key=lambda n: rows[n]["fwd"])
        with_cufft = [n for n in sizes if rows[n]["cufft"] is not None]
        at_or_below = sum(rows[n]["fwd"] <= rows[n]["cufft"] for n in with_cufft)
        ratio = [rows[n]["fwd"] / rows[n]["cufft"] for n in with_cufft if rows[n]["cufft"] > 0]
        lines.append(
            f"| {precision} | {'Stockham (prime factors to 31)' if name == 'stockham' else 'Bluestein (a prime factor above 31)'} "
            f"| {len(sizes)} | {sum(rows[n]['ok'] for n in sizes)} "
            f"| {statistics.median(rows[n]['fwd'] / eps for n in sizes):.2f} "
            f"| {rows[worst]['fwd'] / eps:.2f} (N = {worst}) "
            f"| {max(rows[n]['fwd'] / rows[n]['tol'] for n in sizes):.2f} "
            f"| {at_or_below} of {len(with_cufft)} "
            f"| {statistics.median(ratio):.2f} / {max(ratio):.2f} |")
    return lines


def pow2_ratio(rows):
    """Our worst error on Bluestein lengths over our power-of-two error at a comparable N."""
    worst = 0, None
    for n, row in rows.items():
        if route(n) != "bluestein":
            continue
        below = 2 ** int(math.log2(n))
        ref = max(rows[p]["fwd"] for p in (below, min(2 * below, 8192)) if p in rows)
        r = row["fwd"] / ref
        if r > worst[0]:
            worst = r, n
    return worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", default="h100")
    args = parser.parse_args()
    sweeps, headers = {}, {}
    for precision in ["f32", "f64"]:
        headers[precision], sweeps[precision] = read(f"docs/bench/{args.gpu}_accuracy_{precision}.txt")
    open("docs/accuracy.svg", "w").write(svg(sweeps))
    failed = sum(not r["ok"] for rows in sweeps.values() for r in rows.values())
    total = sum(len(rows) for rows in sweeps.values())
    md = [
        "# Accuracy",
        "",
        "Every 1D C2C length from 2 to 10,000, in f32 and f64, both directions, checked",
        "through CUDA against an f64 reference (RustFFT, itself checked against the",
        "textbook DFT), with cuFFT's error on the same input beside ours. The measure",
        "is the relative L2 error over a batch of two transforms of random values in",
        "[-1, 1)^2; a length passes below `c * eps * log2(N)` with c = 1",
        "(fftgen/cli/src/accuracy.rs).",
        "",
        f"**Result: {total - failed} of {total} checks pass** (lengths x precisions; each check is",
        "both directions).",
        "",
        "![relative error against N](accuracy.svg)",
        "",
        "| precision | route | lengths | passed | median error / eps | worst error / eps | worst error / tolerance | ours at or below cuFFT | ours / cuFFT, median / worst |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for precision in ["f32", "f64"]:
        md += summary(precision, sweeps[precision])
    md += [""]
    for precision in ["f32", "f64"]:
        r, n = pow2_ratio(sweeps[precision])
        md.append(f"- {precision}: the worst Bluestein length is {r:.2f}x our error at the powers of two around it (N = {n}).")
    md += [
        "",
        "## Where we are above cuFFT",
        "",
        "- The f64 reference is RustFFT in f64, whose own error is of the order of ours:",
        "  the f64 figures are upper bounds, and the f64 comparison with cuFFT measures",
        "  both libraries against the same imperfect reference. A double-double",
        "  reference is not built yet.",
        "- Small primes: cuFFT computes lengths such as 37 to 127 with a direct or",
        "  Rader kernel; ours take Bluestein's algorithm, whose two FFTs of M >= 2N - 1",
        "  and three chirp products add roundings (37: 1.4e-7 against cuFFT's",
        "  9.8e-8 in f32). Rader's algorithm is not built yet.",
        "",
        "## How to reproduce",
        "",
        "```",
        "bash scripts/device/build.sh                  # here, then on the GPU machine:",
        "FROM=2 TO=10000 PRECISION=f32,f64 bash .devbin/accuracy_sweep.sh",
        "python3 scripts/accuracy_page.py --gpu h100   # here, with the logs in docs/bench/",
        "```",
        "",
        "`fftgen sweep --from 2 --to 10000` runs the same sweep on any OpenCL device",
        "(PoCL: about a second per length); CI runs every 2499th length in both",
        "precisions (`sweep_samples_pass_on_pocl` in fftgen/cli/tests/cli.rs).",
        "",
        f"Data: docs/bench/{args.gpu}_accuracy_f32.txt, docs/bench/{args.gpu}_accuracy_f64.txt",
        f"({headers['f32']}).",
        "",
    ]
    open("docs/accuracy.md", "w").write("\n".join(md))
    print(f"wrote docs/accuracy.md, docs/accuracy.svg: {total - failed} of {total} pass")


if __name__ == "__main__":
    sys.exit(main())
