#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: light Nsight Compute metrics
# (time, DRAM, occupancy, instructions, L1 sectors, stall reasons) of each
# size's forward kernels (KERNELS: another ncu -k filter), ours and cuFFT's, in one CSV.
#   usage: [BENCH_ARGS="--kind r2c"] [KERNELS='regex:(_inv_|c2r)'] bash .devbin/ncu_light.sh SIZE...
#   writes $OUT/ncu_light.txt
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
st=smsp__average_warps_issue_stalled
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__block_size,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sectors_srcunit_tex_op_read.sum
for s in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle wait not_selected selected dispatch_stall no_instruction; do m="$m,${st}_${s}_per_issue_active.ratio"; done
for n in "$@"; do
  echo "== $n" >> "$OUT/ncu_light.txt"
  # shellcheck disable=SC2086
  ncu --metrics "$m" --csv --page raw -k "${KERNELS:-regex:^(?!.*(copy|_inv_|_ip_|inverse|c2r))}" -c 8 \
    .devbin/fftgen bench --no-opencl --sizes "$n" --groups 1 --repeats 1 --warmup 0 --json /tmp/p.json --svg /tmp/p.svg ${BENCH_ARGS:-} >> "$OUT/ncu_light.txt" 2>&1
done
