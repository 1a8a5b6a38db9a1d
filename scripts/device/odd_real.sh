#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: odd real lengths (the FFT of
# N over the reals, one kernel in opt-in shared memory past 4096), `fftgen
# check --kind r2c` through CUDA in and out of place, compute-sanitizer on
# 6561 and 15625, and the R2C/C2R bench of odd sizes. Writes
# $OUT/h200_real_odd_checks.log and $OUT/h200_real_odd.{json,svg,md,log}.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
log="$OUT/h200_real_odd_checks.log"; : > "$log"
for item in "6561 f32" "10125 f32" "15625 f32" "7203 f32" "4375 f32" "6561 f64" "5103 f64"; do
  read -r n p <<< "$item"
  for placement in out-of-place in-place; do
    echo "== check --kind r2c --backend cuda --n $n --precision $p --placement $placement --batch 3" >> "$log"
    timeout 60 .devbin/fftgen check --kind r2c --backend cuda --n "$n" --precision "$p" --placement $placement --batch 3 >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
for tool in memcheck racecheck; do
  for args in "--n 6561 --placement in-place" "--n 15625 --placement out-of-place"; do
    echo "== compute-sanitizer --tool $tool fftgen check --kind r2c --backend cuda $args --batch 2" >> "$log"
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 .devbin/fftgen check --kind r2c --backend cuda $args --batch 2 >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
echo "checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed"
.devbin/fftgen bench --no-opencl --kind r2c --sizes 1331,2187,2401,3125,4375,6561,7203,10125,15625,59049 --json "$OUT/h200_real_odd.json" --svg "$OUT/h200_real_odd.svg" --markdown "$OUT/h200_real_odd.md" > "$OUT/h200_real_odd.log" 2>&1
