#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: `fftgen check` through CUDA
# for every length of FROM..TO (or the lengths listed in the file SIZES) in
# PRECISION, as many at once as the machine has cores (NVRTC compiles on
# the CPU). One line per length in $OUT/accuracy_PRECISION_FROM_TO.txt:
# `n precision forward-error inverse-error tolerance exit-status`, for
# scripts/accuracy_page.py.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
precision="${PRECISION:-f32}"
from="${FROM:-2}"; to="${TO:-10000}"
result="$OUT/accuracy_${precision}_${from}_${to}.txt"
one() {
  out=$(timeout 120 .devbin/fftgen check --backend cuda --n "$1" --precision "$2" --batch 2 2>&1); rc=$?
  errors=$(echo "$out" | awk '/relative L2 error/ { printf "%s ", $(NF-3) } /tolerance/ { t = $(NF-1) } END { sub(/\)/, "", t); printf "%s", t }')
  echo "$1 $2 $errors $rc"
}
export -f one
if [ -n "${SIZES:-}" ]; then cat "$SIZES"; else seq "$from" "$to"; fi \
  | xargs -P "$(nproc)" -I{} bash -c "one {} $precision" > "$result"
echo "$(wc -l < "$result") lengths, $(awk '$NF != 0' "$result" | wc -l) failed"
