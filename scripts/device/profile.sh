#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# Nsight Compute's full set on one size's forward kernels, ours and cuFFT's,
# each launched once by the bench (no warm-up; ncu replays every kernel).
#   usage: bash .devbin/profile.sh NAME N [extra bench args...]
# Writes $OUT/ncu_NAME.txt (ours, then cuFFT's first kernel).
set -uo pipefail
name="$1"; n="$2"; shift 2
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
bench=(.devbin/fftgen bench --no-opencl --sizes "$n" --groups 1 --repeats 1 --warmup 0
       --json /tmp/profile.json --svg /tmp/profile.svg "$@")
{
    ncu --set full --import-source no -k regex:fftgen_c2c -c 1 "${bench[@]}"
    ncu --set full --import-source no -k 'regex:^(?!fftgen)' -c 1 "${bench[@]}"
} > "$OUT/ncu_$name.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Size|Grid Size|Executed Instructions  |Static Shared|Dynamic Shared" "$OUT/ncu_$name.txt"
