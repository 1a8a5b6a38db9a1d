#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: odd real lengths (the FFT of
# N over two rows' reals, one kernel, in opt-in shared memory past 4096),
# `fftgen check --kind r2c` through CUDA in and out of place with odd and
# even batches and 2D shapes, compute-sanitizer on 6561 and 15625 and a
# small odd size, and the R2C/C2R bench of odd sizes; with ALL=1 the
# default R2C/C2R bench too. Logs are named after the GPU (h100_, h200_):
# $OUT/GPU_real_odd_checks.log, $OUT/GPU_real_odd.{json,svg,md,log},
# $OUT/GPU_default_real.{json,svg,md,log}.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o -E 'H[0-9]+' | tr 'H' 'h')
log="$OUT/${gpu}_real_odd_checks.log"; : > "$log"
for item in "6561 f32 3" "10125 f32 3" "15625 f32 2" "7203 f32 3" "4375 f32 4" "6561 f64 3" "5103 f64 2" \
            "1331 f32 5" "2187 f32 4" "2401 f64 3" "375 f32 33" "3 f32 1001" "15x2187 f32 1" "25x375 f64 2" "7x9x11 f32 3"; do
  read -r n p b <<< "$item"
  for placement in out-of-place in-place; do
    echo "== check --kind r2c --backend cuda --n $n --precision $p --placement $placement --batch $b" >> "$log"
    timeout 60 .devbin/fftgen check --kind r2c --backend cuda --n "$n" --precision "$p" --placement $placement --batch "$b" >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
# NVIDIA's OpenCL (the ICD as run.sh registers it), paired rows direct and staged.
[ -f /etc/OpenCL/vendors/nvidia.icd ] || { mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
for args in "--n 2187 --batch 3" "--n 375 --batch 5 --placement in-place" "--n 25x375 --batch 1 --precision f64" "--n 64 --batch 3" "--n 512 --batch 2"; do
  echo "== check --kind r2c --backend opencl --platform NVIDIA $args" >> "$log"
  timeout 60 .devbin/fftgen check --kind r2c --backend opencl --platform NVIDIA $args >> "$log" 2>&1; echo "exit $?" >> "$log"
done
for tool in memcheck racecheck; do
  for args in "--n 6561 --batch 2 --placement in-place" "--n 15625 --batch 2 --placement out-of-place" "--n 375 --batch 5 --placement in-place" "--n 2187 --batch 3 --placement in-place"; do
    echo "== compute-sanitizer --tool $tool fftgen check --kind r2c --backend cuda $args " >> "$log"
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 .devbin/fftgen check --kind r2c --backend cuda $args >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
echo "checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed"
.devbin/fftgen bench --no-opencl --kind r2c --sizes 1331,2187,2401,3125,4375,6561,7203,10125,15625,59049 --json "$OUT/${gpu}_real_odd.json" --svg "$OUT/${gpu}_real_odd.svg" --markdown "$OUT/${gpu}_real_odd.md" > "$OUT/${gpu}_real_odd.log" 2>&1
if [ "${ALL:-0}" = 1 ]; then
  .devbin/fftgen bench --no-opencl --kind r2c --json "$OUT/${gpu}_default_real.json" --svg "$OUT/${gpu}_default_real.svg" --markdown "$OUT/${gpu}_default_real.md" > "$OUT/${gpu}_default_real.log" 2>&1
fi
