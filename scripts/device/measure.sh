#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# each list of shapes timed by `fftgen bench` twice in one process each
# (ours as estimated, then ours as measured with --measure), beside cuFFT
# and the copy, so that the two columns of cuFFT/ours compare on one GPU.
# Writes $OUT/measure_<label>_{estimate,measure}.{json,log}.
#   usage: bash .devbin/measure.sh LABEL "BENCH ARGS" [LABEL "BENCH ARGS"]...
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR="${FFTGEN_CACHE_DIR:-/tmp/fftgen-cache}"
while [ $# -ge 2 ]; do
    label="$1"; args="$2"; shift 2
    for mode in estimate measure; do
        extra=""; [ "$mode" = measure ] && extra="--measure"
        # shellcheck disable=SC2086
        .devbin/fftgen bench --no-opencl $args $extra --groups 3 --repeats 5 \
            --json "$OUT/measure_${label}_$mode.json" --svg /dev/null \
            > "$OUT/measure_${label}_$mode.log" 2>&1
    done
    python3 - "$OUT/measure_${label}_estimate.json" "$OUT/measure_${label}_measure.json" <<'PY'
import json, sys
def rows(path):
    out = {}
    for r in json.load(open(path))["rows"]:
        key = ("x".join(map(str, r["axes"])) + " " + r["precision"], r.get("direction") or "c2c")
        c, o = (r.get("cufft") or {}).get("median_ms"), (r.get("ours") or {}).get("median_ms")
        out[key] = (c / o if c and o else None, [n for n in r.get("notes", []) if n.startswith("measur")])
    return out
est, mea = rows(sys.argv[1]), rows(sys.argv[2])
for key in est:
    e, m = est[key][0], mea.get(key, (None, []))
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    print(f"{key[0]:>14} {key[1]:>8}  cuFFT/ours estimate {fmt(e)}  measured {fmt(m[0])}  {'; '.join(m[1])}")
PY
done
