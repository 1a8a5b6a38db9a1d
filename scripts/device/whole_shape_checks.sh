#!/usr/bin/env bash
# Whole real shapes in one pass through CUDA: fftgen check (R2C and C2R) in and out of place, odd and even batches,
# then compute-sanitizer memcheck and racecheck on three of them. Writes $OUT/whole_shape_checks.log.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"; log="$OUT/whole_shape_checks.log"; : > "$log"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
for args in "--n 96x18 --batch 3" "--n 32x32 --batch 4 --placement in-place" "--n 8x13 --precision f64 --batch 5" "--n 6x4x9 --batch 1" \
            "--n 42x13 --precision f64 --batch 2 --placement in-place" "--n 64x128 --precision f64 --batch 3" "--n 32x32x8 --precision f64 --batch 2 --placement in-place" "--n 20x2 --batch 7"; do
  echo "== fftgen check --kind r2c --backend cuda --target h200 $args" >> "$log"
  .devbin/fftgen check --kind r2c --backend cuda --target h200 $args >> "$log" 2>&1; echo "exit $?" >> "$log"
done
for tool in memcheck racecheck; do
  for args in "--n 96x18 --batch 3" "--n 42x13 --precision f64 --batch 3 --placement in-place" "--n 64x128 --precision f64 --batch 2"; do
    echo "== compute-sanitizer --tool $tool fftgen check --kind r2c --backend cuda --target h200 $args" >> "$log"
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 .devbin/fftgen check --kind r2c --backend cuda --target h200 $args >> "$log" 2>&1; echo "exit $?" >> "$log"
  done
done
echo "checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed"
