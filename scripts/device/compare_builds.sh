#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# times, size by size and ROUNDS times over, an earlier build (.devbin/fftgen_base:
# build an older commit in a git worktree and copy its target/release/fftgen
# there) against this one (.devbin/fftgen), and this one with alternating
# exchange buffers for the sizes in SIZES_ALT. Each run times cuFFT and the
# copy beside ours. Appends to $OUT/compare.log.
#   usage: bash .devbin/compare_builds.sh ROUNDS "SIZES_ALT" "SIZES_NOALT"
#   e.g.   bash .devbin/compare_builds.sh 2 "2401 2187" "4000 3125"
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
rounds=$1; alt="$2"; noalt="$3"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >> "$OUT/compare.log"
run() { # label binary args
    local label=$1 bin=$2; shift 2
    echo "== $label $bin $*" >> "$OUT/compare.log"
    .devbin/$bin bench --no-opencl --groups 5 --json /tmp/c.json --svg /tmp/c.svg "$@" 2>&1 | grep -E "^  N =|error|not" >> "$OUT/compare.log"
}
for r in $(seq 1 $rounds); do
  for n in $alt; do
    run A fftgen_base --sizes $n
    run B fftgen --sizes $n
    run C fftgen --sizes $n --exchange-buffers $n:alternating
  done
  for n in $noalt; do
    run A fftgen_base --sizes $n
    run B fftgen --sizes $n
  done
done
date -u >> "$OUT/compare.log"
