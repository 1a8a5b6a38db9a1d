#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# `fftgen bench --random K --seed S` (ours, cuFFT and the copy in one run,
# 1 GiB batches, each case checked against the f64 reference), then the
# distribution of cuFFT/ours (worst, 10th percentile, median) by
# scripts/random_summary.py. Writes $OUT/random_S.{json,md,log}.
# A sample of 100 cases may outlast one call's 600 s (seed 2080's did):
# time it in two calls, `... 50 SEED` then `... 100 SEED --random-from 50`,
# and summarize both reports together (random_summary.py A.json B.json).
#   usage: bash .devbin/random_sample.sh K SEED [more bench args...]
set -uo pipefail
count="${1:-100}"; seed="${2:-2026}"; shift 2 || true
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.devbin/fftgen bench --no-opencl --random "$count" --seed "$seed" \
    --json "$OUT/random_$seed.json" --markdown "$OUT/random_$seed.md" --svg /dev/null "$@" \
    2>&1 | tee "$OUT/random_$seed.log" | grep -E "^(error|warning)|FAIL" 
python3 scripts/random_summary.py "$OUT/random_$seed.json"
