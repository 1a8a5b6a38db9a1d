#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# GPU correctness (CUDA and NVIDIA OpenCL), compute-sanitizer on the
# representative set, then the benchmark side by side with cuFFT and a
# device-to-device copy. Everything it writes goes to $OUT.
#   usage: bash .devbin/run.sh [all|bench|tests] [extra bench args...]
#          bash .devbin/run.sh tune --sizes 2187,2401 [more fftgen tune args...]
#          bash .devbin/run.sh large [all|checks|sanitizer|bench] [extra bench args...]
#          bash .devbin/run.sh real [all|checks|sanitizer|bench|long] [extra bench args...]
# It writes at most 8 files (the device tool's limit): bench{,_f64}.{json,svg,md},
# bench.log and gpu_tests.log; `large` writes large_checks.log,
# large_sanitizer.log, large_bench.log and large_bench{,_f64}.{json,md}.
# `large` covers issue 13's shapes (multi-pass 1D, 2D, 3D): `fftgen check` on
# CUDA and NVIDIA OpenCL, compute-sanitizer on a two-pass, a 2D and a 3D plan,
# and the benchmark; about 8 minutes in all (`checks`, `sanitizer` and
# `bench` alone each fit one device call).
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
    { .devbin/cuda_gpu --test-threads=1 --nocapture; .devbin/runtime_planner --test-threads=1 --nocapture; .devbin/repeatability --nocapture; .devbin/gpu_sweep --test-threads=3 --nocapture; } > "$OUT/gpu_tests.log" 2>&1
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
if [ "$what" = large ]; then
    part="${1:-all}"; shift || true
    # Issue 13's transforms: shape, precision, batch. Batches keep each
    # check's host reference to a few million points.
    large_checks=()
    for n in 8192 16384 $(for k in $(seq 15 27); do echo $((1 << k)); done) 59049 78125 1679616; do
        batch=$(( 4194304 / n )); [ "$batch" -gt 16 ] && batch=16; [ "$batch" -lt 1 ] && batch=1
        large_checks+=("$n f32 $batch")
    done
    large_checks+=("8192 f64 16" "1048576 f64 2" "1024x1024 f32 4" "4096x4096 f32 1" "256x256x256 f32 1")
    if [ "$part" = all ] || [ "$part" = checks ]; then
        log="$OUT/large_checks.log"; : > "$log"
        for item in "${large_checks[@]}"; do
            read -r n precision batch <<< "$item"
            for backend in "cuda" "opencl --platform NVIDIA"; do
                echo "== check --backend $backend --n $n --precision $precision --batch $batch" >> "$log"
                # shellcheck disable=SC2086
                timeout 120 .devbin/fftgen check --backend $backend --n "$n" --precision "$precision" --batch "$batch" >> "$log" 2>&1
                echo "exit $?" >> "$log"
            done
        done
        awk '/^== /{head=$0} /^exit /{print head " -> " $0}' "$log"
        echo "large checks: $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed (log: $log)"
    fi
    if [ "$part" = all ] || [ "$part" = sanitizer ]; then
        log="$OUT/large_sanitizer.log"; : > "$log"
        # A two-pass 1D plan, a 2D and a 3D plan, global-memory passes (the
        # H200's 65536, and one-step passes without shared memory), small
        # batches (the tools slow kernels down by orders of magnitude); a run
        # cut off after 90 s shows as exit 124.
        for args in "--n 1048576 --batch 2" "--n 1024x1024 --batch 1" "--n 64x48x40 --batch 2" \
            "--n 65536 --batch 2" "--n 32768 --batch 2 --split 16,16,128 --column-io global"; do
            for tool in memcheck racecheck; do
                echo "== compute-sanitizer --tool $tool fftgen check --backend cuda $args" >> "$log"
                # shellcheck disable=SC2086
                timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 9 .devbin/fftgen check --backend cuda $args >> "$log" 2>&1
                echo "exit $?" >> "$log"
            done
        done
        grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|^exit" "$log"
    fi
    if [ "$part" = all ] || [ "$part" = bench ]; then
        sizes="8192,16384"
        for k in $(seq 15 27); do sizes="$sizes,$((1 << k))"; done
        sizes="$sizes,59049,78125,1679616,1024x1024,4096x4096,256x256x256"
        .devbin/fftgen bench --sizes "$sizes" --json "$OUT/large_bench.json" --svg "$OUT/large_bench.svg" \
            --markdown "$OUT/large_bench.md" "$@" 2>&1 | tee "$OUT/large_bench.log"
        .devbin/fftgen bench --precision f64 --sizes 8192,1048576 --json "$OUT/large_bench_f64.json" \
            --svg "$OUT/large_bench_f64.svg" --markdown "$OUT/large_bench_f64.md" "$@" 2>&1 | tee -a "$OUT/large_bench.log"
    fi
fi
if [ "$what" = real ]; then
    # Issue 14's real transforms (r2c forward, c2r inverse): `fftgen check
    # --kind r2c` on CUDA and NVIDIA OpenCL, compute-sanitizer, and the
    # benchmark against cuFFT's R2C/C2R. Writes real_checks.log,
    # real_sanitizer.log, real_bench.log and real_bench{,_f64}.{json,md}.
    # `fftgen check --kind r2c` of each item ("shape precision batch") on
    # CUDA and NVIDIA OpenCL, in and out of place, into log $1 with a
    # timeout of $2 seconds each; prints a line per check and the count.
    real_check_items() {
        local log="$1" limit="$2"; shift 2
        : > "$log"
        for item in "$@"; do
            read -r n precision batch <<< "$item"
            for backend in "cuda" "opencl --platform NVIDIA"; do
                for placement in out-of-place in-place; do
                    echo "== check --kind r2c --backend $backend --n $n --precision $precision --batch $batch --placement $placement" >> "$log"
                    # shellcheck disable=SC2086
                    timeout "$limit" .devbin/fftgen check --kind r2c --backend $backend --n "$n" --precision "$precision" \
                        --batch "$batch" --placement "$placement" >> "$log" 2>&1
                    echo "exit $?" >> "$log"
                done
            done
        done
        awk '/^== /{head=$0} /^exit /{print head " -> " $0}' "$log"
        echo "$(basename "$log" .log): $(grep -c '^exit 0' "$log") passed, $(grep -c '^exit [^0]' "$log") failed (log: $log)"
    }
    part="${1:-all}"; shift || true
    real_checks=("4096 f32 64" "8192 f32 32" "4095 f32 16" "375 f32 64" "2 f32 64" "1048576 f32 2"
        "65536 f32 8" "12288 f32 8" "15625 f32 8" "1024x1024 f32 2" "1000x1000 f32 2" "64x48x40 f32 4"
        "4096 f64 32" "8192 f64 16" "1024x1024 f64 1")
    if [ "$part" = all ] || [ "$part" = checks ]; then
        real_check_items "$OUT/real_checks.log" 120 "${real_checks[@]}"
    fi
    if [ "$part" = long ]; then
        # Real axes past one kernel (2D) and past two passes (1D, to 2^30).
        # (LONG_CHECKS, items "shape precision batch" joined by ";", picks some.)
        long_checks=("16777216 f32 1" "33554432 f32 1" "134217728 f32 1" "43046721 f32 1" "16x16384 f32 4"
            "64x65536 f32 1" "4x15625 f32 4" "8192x8 f32 4" "2048x4375 f32 1" "1048576 f32 2" "67108864 f64 1"
            "8x32768 f64 2")
        if [ -n "${LONG_CHECKS:-}" ]; then IFS=';' read -r -a long_checks <<< "$LONG_CHECKS"; fi
        real_check_items "$OUT/real_long_checks.log" 150 "${long_checks[@]}"
        log="$OUT/real_long_sanitizer.log"; : > "$log"
        for args in "--n 16x16384 --batch 2" "--n 262144 --batch 1 --placement in-place" "--n 4x15625 --batch 1" \
            "--n 2048x4375 --batch 1 --target portable"; do
            echo "== compute-sanitizer --tool memcheck fftgen check --kind r2c --backend cuda $args" >> "$log"
            # shellcheck disable=SC2086
            timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .devbin/fftgen check --kind r2c --backend cuda $args >> "$log" 2>&1
            echo "exit $?" >> "$log"
        done
        grep -E "^== |ERROR SUMMARY|^exit" "$log"
        .devbin/fftgen bench --kind r2c --sizes 1048576,16777216,67108864,64x65536,1024x1024 \
            --json "$OUT/real_long_bench.json" --markdown "$OUT/real_long_bench.md" "$@" 2>&1 | tee "$OUT/real_long_bench.log"
    fi
    if [ "$part" = all ] || [ "$part" = sanitizer ]; then
        log="$OUT/real_sanitizer.log"; : > "$log"
        for args in "--n 4096 --batch 4" "--n 8192 --batch 2 --placement in-place" "--n 375 --batch 8" \
            "--n 1024x1024 --batch 1" "--n 64x48x40 --batch 2" "--n 65536 --batch 2"; do
            for tool in memcheck racecheck; do
                echo "== compute-sanitizer --tool $tool fftgen check --kind r2c --backend cuda $args" >> "$log"
                # shellcheck disable=SC2086
                timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 9 .devbin/fftgen check --kind r2c --backend cuda $args >> "$log" 2>&1
                echo "exit $?" >> "$log"
            done
        done
        grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|^exit" "$log"
    fi
    if [ "$part" = all ] || [ "$part" = bench ]; then
        sizes="64,128,256,512,1000,1024,2048,4096,8192,1048576,1024x1024,1000x1000,64x48x40"
        .devbin/fftgen bench --kind r2c --sizes "$sizes" --json "$OUT/real_bench.json" \
            --markdown "$OUT/real_bench.md" "$@" 2>&1 | tee "$OUT/real_bench.log"
        .devbin/fftgen bench --kind r2c --precision f64 --sizes 4096,8192,1024x1024 --json "$OUT/real_bench_f64.json" \
            --markdown "$OUT/real_bench_f64.md" "$@" 2>&1 | tee -a "$OUT/real_bench.log"
    fi
fi
