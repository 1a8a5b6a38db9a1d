#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# GPU correctness (CUDA and NVIDIA OpenCL), compute-sanitizer on the
# representative set, then the benchmark side by side with cuFFT and a
# device-to-device copy. Everything it writes goes to $OUT.
#   usage: bash .devbin/run.sh [all|bench|tests] [extra bench args...]
#          bash .devbin/run.sh tune --sizes 2187,2401 [more fftgen tune args...]
# It writes at most 8 files (the device tool's limit): bench{,_f64}.{json,svg,md},
# bench.log and gpu_tests.log.
set -uo pipefail
what="${1:-all}"; shift || true
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# Make the NVIDIA OpenCL driver visible to the ICD loader.
mkdir -p /etc/OpenCL/vendors
[ -f /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
if [ "$what" = all ] || [ "$what" = tests ]; then
    { .devbin/cuda_gpu --test-threads=1 --nocapture; .devbin/runtime_planner --test-threads=1 --nocapture; .devbin/gpu_sweep --test-threads=3 --nocapture; } > "$OUT/gpu_tests.log" 2>&1
    echo "== fft_kernel! example, OpenCL (NVIDIA) and CUDA" >> "$OUT/gpu_tests.log"
    FFTGEN_REQUIRE_CUDA=1 .devbin/fft-macro-example >> "$OUT/gpu_tests.log" 2>&1; echo "example exit $?" >> "$OUT/gpu_tests.log"
    grep -E "test result|FAILED|panicked|worst|SKIPPED|^OpenCL on|^CUDA|example exit" "$OUT/gpu_tests.log"
    { for tool in memcheck racecheck; do
          echo "== compute-sanitizer --tool $tool"
          compute-sanitizer --tool "$tool" --error-exitcode 9 .devbin/gpu_sweep sanitizer_set --test-threads=1
          echo "exit $?"
      done; } >> "$OUT/gpu_tests.log" 2>&1
    grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|^exit" "$OUT/gpu_tests.log"
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
    .devbin/fftgen bench --json "$OUT/bench.json" --svg "$OUT/bench.svg" --markdown "$OUT/bench.md" "$@" 2>&1 | tee "$OUT/bench.log"
    .devbin/fftgen bench --precision f64 --json "$OUT/bench_f64.json" --svg "$OUT/bench_f64.svg" --markdown "$OUT/bench_f64.md" "$@" 2>&1 | tee -a "$OUT/bench.log"
fi
if [ "$what" = tune ]; then
    .devbin/fftgen tune --json "$OUT/tune.json" "$@" 2>&1 | tee "$OUT/tune.log"
fi
