#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# one-kernel transforms past 4096 points (opt-in shared memory).
#   usage: bash .devbin/opt_in_sweep.sh [all|checks|sanitizer|bench] [extra bench args...]
# checks:    `fftgen check --backend cuda` of every 13-smooth size from 4097
#            to 24576 in f32 and to 12288 in f64 (STEP=k checks every k-th),
#            in parallel, against the f64 reference; opt_in_checks.log.
# sanitizer: compute-sanitizer memcheck and racecheck on 6561, 10000 (f32)
#            and 8000 (f64); opt_in_sanitizer.log.
# bench:     the mid sizes side by side with cuFFT and the copy, f32 and
#            f64; opt_in_bench{,_f64}.{json,md}, opt_in_bench.log.
set -uo pipefail
what="${1:-all}"; shift || true
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

smooth() { # 13-smooth integers in [$1, $2]
    python3 -c "
import sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
def smooth(n):
    for p in (2, 3, 5, 7, 11, 13):
        while n % p == 0: n //= p
    return n == 1
print('\n'.join(str(n) for n in range(lo, hi + 1) if smooth(n)))" "$1" "$2"
}

if [ "$what" = all ] || [ "$what" = checks ]; then
    log="$OUT/opt_in_checks.log"; : > "$log"
    step="${STEP:-1}"
    items=$( { smooth 4097 24576 | awk -v s="$step" 'NR % s == 0 {print $1 " f32"}';
               smooth 4097 12288 | awk -v s="$step" 'NR % s == 0 {print $1 " f64"}'; } )
    echo "$items" | xargs -P "${JOBS:-8}" -L 1 sh -c \
        'r=$(timeout 120 .devbin/fftgen check --backend cuda --n "$0" --precision "$1" --batch 4 2>&1); echo "== $0 $1 exit $? $(echo "$r" | grep -Eo "error [0-9.e+-]+" | tr "\n" " ")"; echo "$r" | grep -iE "error:|fail" | head -3' >> "$log"
    echo "opt-in checks: $(grep -c 'exit 0' "$log") passed, $(grep -c 'exit [^0]' "$log") failed (log: $log)"
    grep 'exit [^0]' "$log" | head -20
fi
if [ "$what" = all ] || [ "$what" = sanitizer ]; then
    log="$OUT/opt_in_sanitizer.log"; : > "$log"
    for args in "--n 6561 --batch 2" "--n 10000 --batch 2" "--n 8000 --precision f64 --batch 2"; do
        for tool in memcheck racecheck; do
            echo "== compute-sanitizer --tool $tool fftgen check --backend cuda $args" >> "$log"
            # shellcheck disable=SC2086
            timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 .devbin/fftgen check --backend cuda $args >> "$log" 2>&1
            echo "exit $?" >> "$log"
        done
    done
    grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|^exit" "$log"
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
    sizes="4375,5000,6000,6561,7203,8000,8192,9000,10000,10240,12000,12288,15625,16000,16384,20000,24576"
    .devbin/fftgen bench --no-opencl --sizes "$sizes" --json "$OUT/opt_in_bench.json" --svg /dev/null \
        --markdown "$OUT/opt_in_bench.md" "$@" 2>&1 | tee "$OUT/opt_in_bench.log"
    .devbin/fftgen bench --no-opencl --precision f64 --sizes 4375,5000,6561,8000,8192,10000,12288 \
        --json "$OUT/opt_in_bench_f64.json" --svg /dev/null --markdown "$OUT/opt_in_bench_f64.md" "$@" 2>&1 \
        | tee -a "$OUT/opt_in_bench.log"
fi
