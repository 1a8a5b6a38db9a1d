#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: `fftgen sweep` through CUDA
# over FROM..TO (default 2..10000) in PRECISION (default f32,f64): every
# length's relative L2 error, ours forward and inverse and cuFFT's forward,
# one line each, in $OUT/GPU_accuracy_FROM_TO.txt (for scripts/accuracy_page.py).
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o -E 'H[0-9]+' | tr 'H' 'h')
from="${FROM:-2}"; to="${TO:-10000}"
.devbin/fftgen sweep --backend cuda --from "$from" --to "$to" --precision "${PRECISION:-f32,f64}" \
  --out "$OUT/${gpu}_accuracy_${from}_${to}.txt" > /dev/null 2> "$OUT/${gpu}_accuracy_${from}_${to}.log"
echo "sweep exit $?: $(tail -1 "$OUT/${gpu}_accuracy_${from}_${to}.log")"
