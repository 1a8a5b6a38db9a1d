#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: light Nsight Compute metrics
# (time, DRAM, occupancy, registers, global requests and sectors, stalls) of
# every kernel of each shape, ours and cuFFT's, forward and inverse, into
# $OUT/ncu_misses.csv (docs/bench/h100_ncu_misses_2053.txt summarises one run).
#   usage: bash .devbin/ncu_misses.sh 'LABEL|BENCH ARGS' ...
#   e.g.:  bash .devbin/ncu_misses.sh '288x70 f64 r2c|--sizes 288x70 --kind r2c --precision f64'
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
st=smsp__average_warps_issue_stalled
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes_read.sum,dram__bytes_write.sum
for s in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle; do m="$m,${st}_${s}_per_issue_active.ratio"; done
for item in "$@"; do
  label="${item%%|*}"; args="${item#*|}"
  echo "== $label" >> "$OUT/ncu_misses.csv"
  # shellcheck disable=SC2086
  ncu --metrics "$m" --csv --page raw -k 'regex:^(?!.*copy)' -c 12 \
    .devbin/fftgen bench --no-opencl --groups 1 --repeats 1 --warmup 0 --json /tmp/p.json --svg /tmp/p.svg $args >> "$OUT/ncu_misses.csv" 2>&1
done
