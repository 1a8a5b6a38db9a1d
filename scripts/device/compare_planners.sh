#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# times the same sizes with two builds of fftgen (.devbin/fftgen_old, copied
# there by hand, and .devbin/fftgen), each beside cuFFT and the copy, and
# prints per size each build's % of the copy and cuFFT/ours: how a planner
# change does on sizes it was not fitted to. BUILDS names other builds in
# .devbin to compare, the first the baseline (BUILDS="fftgen_old fftgen_a
# fftgen_b").
#   usage: bash .devbin/compare_planners.sh SIZES [more bench args...]
set -uo pipefail
sizes="$1"; shift
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
BUILDS="${BUILDS:-fftgen_old fftgen}"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
jsons=()
for build in $BUILDS; do
    ".devbin/$build" bench --no-opencl --groups 5 --n "$sizes" --json "$OUT/compare_$build.json" \
        --svg /dev/null "$@" > "$OUT/compare_$build.log" 2>&1
    jsons+=("$OUT/compare_$build.json")
done
python3 - $BUILDS -- "${jsons[@]}" <<'PY'
import json, sys
split = sys.argv.index("--")
builds, files = sys.argv[1:split], sys.argv[split + 1:]
def key(r):
    shape = "x".join(str(a) for a in r.get("axes") or [r["n"]])
    return f"{shape} {r['kind']} {r.get('direction') or ''}".strip()
runs = [{key(r): r for r in json.load(open(f))["rows"]} for f in files]
of_copy = lambda r: 100 * r["copy"]["median_ms"] / r["ours"]["median_ms"]
ratio = lambda r: r["cufft"]["median_ms"] / r["ours"]["median_ms"]
print(f"{'shape':28s}  " + "  ".join(f"{b + ' %copy':>16s}" for b in builds)
      + "  " + "  ".join(f"{b + ' cuFFT/ours':>20s}" for b in builds) + "  last error")
for k, last in runs[-1].items():
    rows = [run.get(k) for run in runs]
    if any(r is None or r.get("ours") is None for r in rows):
        continue
    print(f"{k:28s}  " + "  ".join(f"{of_copy(r):16.1f}" for r in rows)
          + "  " + "  ".join(f"{ratio(r):20.3f}" for r in rows) + f"  {last['ours_error']:.1e}")
PY
