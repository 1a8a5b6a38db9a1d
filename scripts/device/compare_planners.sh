#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# times the same sizes with two builds of fftgen (.devbin/fftgen_old, copied
# there by hand, and .devbin/fftgen), each beside cuFFT and the copy, and
# prints per size both builds' % of the copy and cuFFT/ours: how a planner
# change does on sizes it was not fitted to.
#   usage: bash .devbin/compare_planners.sh SIZES [more bench args...]
set -uo pipefail
sizes="$1"; shift
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
for build in fftgen_old fftgen; do
    ".devbin/$build" bench --no-opencl --groups 5 --n "$sizes" --json "$OUT/compare_$build.json" \
        --svg /dev/null "$@" > "$OUT/compare_$build.log" 2>&1
done
python3 - "$OUT/compare_fftgen_old.json" "$OUT/compare_fftgen.json" <<'PY'
import json, sys
def key(r):
    shape = "x".join(str(a) for a in r.get("axes") or [r["n"]])
    return f"{shape} {r['kind']} {r.get('direction') or ''}".strip()
old, new = ({key(r): r for r in json.load(open(f))["rows"]} for f in sys.argv[1:])
print(f"{'shape':28s}  old %copy  new %copy  old cuFFT/ours  new cuFFT/ours  new error")
for k in new:
    of_copy = lambda r: 100 * r["copy"]["median_ms"] / r["ours"]["median_ms"]
    ratio = lambda r: r["cufft"]["median_ms"] / r["ours"]["median_ms"]
    a, b = old.get(k), new[k]
    if a is None:
        continue
    print(f"{k:28s}  {of_copy(a):9.1f}  {of_copy(b):9.1f}  {ratio(a):14.3f}  {ratio(b):14.3f}  {b['ours_error']:.1e}")
PY
