#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: f64 one-kernel sizes whose block
# holds its SM alone, the planner's shape against exchange-width and launch-bound variants.
#   usage: bash .devbin/lone_f64.sh   (prints one bench row per size and variant)
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
sizes="9600 7200 8640 10000 12000 8000 10800"
for v in "" "--exchange-width one-part-at-a-time" "--exchange-width one-part-at-a-time --min-blocks-per-sm 2" "--min-blocks-per-sm 2"; do
  shapes=()
  if [ -n "$v" ]; then for n in $sizes; do shapes+=(--shape "$n $v"); done; fi
  echo "== variant [$v]"
  .devbin/fftgen bench --no-opencl --precision f64 --groups 5 --repeats 5 --n "$(echo $sizes | tr ' ' ,)" "${shapes[@]}" --json "$OUT/lone_$RANDOM.json" --svg /dev/null 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +f64"
done
