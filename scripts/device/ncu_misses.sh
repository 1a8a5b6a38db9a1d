#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: light Nsight Compute metrics
# (time, DRAM, occupancy, registers, global requests and sectors, stalls) of
# every kernel of each shape, ours and cuFFT's, forward and inverse, into
# $OUT/ncu_misses.csv (docs/bench/h100_ncu_misses_2053.txt summarises one run).
#   usage: bash .devbin/ncu_misses.sh 'LABEL|BENCH ARGS' ...
#   e.g.:  bash .devbin/ncu_misses.sh '288x70 f64 r2c|--sizes 288x70 --kind r2c --precision f64'
set -uo pipefail
source "$(dirname "$0")/ncu_metrics.sh"
for item in "$@"; do
  label="${item%%|*}"; args="${item#*|}"
  echo "== $label" >> "$OUT/ncu_misses.csv"
  # shellcheck disable=SC2086
  ncu --metrics "$m" --csv --page raw -k 'regex:^(?!.*copy)' -c 12 \
    .devbin/fftgen bench --no-opencl --groups 1 --repeats 1 --warmup 0 --json /tmp/p.json --svg /tmp/p.svg $args >> "$OUT/ncu_misses.csv" 2>&1
done
