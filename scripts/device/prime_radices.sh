#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: sizes with prime factors from
# 17 to 31 (radices of their own): `fftgen check` through CUDA and NVIDIA's
# OpenCL, C2C and R2C, f32 and f64, compute-sanitizer on two of them, and the
# bench against cuFFT. Logs are named after the GPU (h100_, h200_):
# $OUT/GPU_prime_radices_checks.log, $OUT/GPU_prime_radices.{json,svg,md,log}.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
[ -f /etc/OpenCL/vendors/nvidia.icd ] || { mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o -E 'H[0-9]+' | tr 'H' 'h')
log="$OUT/${gpu}_prime_radices_checks.log"; : > "$log"
sizes="17 19 23 29 31 34 62 361 667 1088 3596 4913 9947 295936 62x38"
for n in $sizes; do
  for kind in c2c r2c; do
    for p in f32 f64; do
      for backend in "cuda" "opencl --platform NVIDIA"; do
        echo "== check --kind $kind --backend $backend --n $n --precision $p --batch 3" >> "$log"
        timeout 90 .devbin/fftgen check --kind $kind --backend $backend --n "$n" --precision $p --batch 3 >> "$log" 2>&1; echo "exit $?" >> "$log"
      done
    done
  done
done
for tool in memcheck racecheck; do
  for args in "--n 1088 --batch 3" "--n 667 --kind r2c --batch 3 --placement in-place"; do
    echo "== compute-sanitizer --tool $tool fftgen check --backend cuda $args" >> "$log"
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 .devbin/fftgen check --backend cuda $args >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
echo "checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed"
.devbin/fftgen bench --no-opencl --sizes 17,19,23,29,31,34,62,361,667,1088,3596,4913,9947,295936 \
  --json "$OUT/${gpu}_prime_radices.json" --svg "$OUT/${gpu}_prime_radices.svg" --markdown "$OUT/${gpu}_prime_radices.md" > "$OUT/${gpu}_prime_radices.log" 2>&1
