#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: lengths with a prime factor
# above 31 (Bluestein's algorithm): `fftgen check` through CUDA and NVIDIA's
# OpenCL on the issue's sizes, compute-sanitizer on a C2C and an in-place
# R2C plan, and the bench against cuFFT (f32 C2C, prime lengths and a
# spread of sizes for the accuracy page). Logs are named after the GPU:
# $OUT/GPU_bluestein_checks.log, $OUT/GPU_bluestein.{json,svg,md,log}.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
[ -f /etc/OpenCL/vendors/nvidia.icd ] || { mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o -E 'H[0-9]+' | tr 'H' 'h')
log="$OUT/${gpu}_bluestein_checks.log"; : > "$log"
check() {
  echo "== check $*" >> "$log"
  timeout 120 .devbin/fftgen check "$@" >> "$log" 2>&1; echo "exit $?" >> "$log"
}
for n in 37 97 6464 12297 4099 8191 10007 65537 1000003 1000x1022; do
  for p in f32 f64; do
    check --backend cuda --n "$n" --precision $p --batch 3
    check --backend opencl --platform NVIDIA --n "$n" --precision $p --batch 3
  done
done
for n in 37 1021 4099 10007 65537; do
  check --backend cuda --kind r2c --n $n --batch 3
  check --backend cuda --kind r2c --n $n --batch 3 --precision f64 --placement in-place
done
for tool in memcheck racecheck; do
  for args in "--n 4099 --batch 3" "--n 1021 --kind r2c --batch 3 --placement in-place"; do
    echo "== compute-sanitizer --tool $tool fftgen check --backend cuda $args" >> "$log"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 .devbin/fftgen check --backend cuda $args >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
echo "checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed"
.devbin/fftgen bench --no-opencl --sizes "${SIZES:-37,97,1021,4099,8191,10007,65537,1000003}" \
  --json "$OUT/${gpu}_bluestein.json" --svg "$OUT/${gpu}_bluestein.svg" --markdown "$OUT/${gpu}_bluestein.md" > "$OUT/${gpu}_bluestein.log" 2>&1
echo "bench exit $?"
