#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: ncu_misses.sh's Nsight
# Compute metrics of our kernels (the first NCU_COUNT, default 4) for each
# bench command line, appended to $OUT/ncu_misses.csv, then one line per
# kernel: name, ns, DRAM %, warps active %, instructions, registers, block,
# bank conflicts, load sectors and requests, stalls per issue (long
# scoreboard, barrier, mio throttle, short scoreboard). The arguments are
# evaluated by the shell, so a quoted --shape stays whole.
#   usage: bash .devbin/ncu_one.sh 'LABEL|BENCH ARGS' ...
#   e.g.:  bash .devbin/ncu_one.sh "26460 s210|--sizes 26460 --shape '26460 --split 210,126'"
set -uo pipefail
source "$(dirname "$0")/ncu_metrics.sh"
for item in "$@"; do
  label="${item%%|*}"; args="${item#*|}"
  echo "== $label" >> "$OUT/ncu_misses.csv"
  eval "ncu --metrics $m --csv --page raw -k 'regex:^fftgen' -c ${NCU_COUNT:-4} .devbin/fftgen bench --no-opencl --groups 1 --repeats 1 --warmup 0 --json /tmp/p.json --svg /tmp/p.svg $args" >> "$OUT/ncu_misses.csv" 2>&1
done
python3 - <<'PY'
import csv,os
hdr=None
for l in open(os.environ.get("OUT","/tmp/out")+"/ncu_misses.csv").read().split("\n"):
    if l.startswith("=="): print(l); hdr=None; continue
    if l.startswith('"ID"'): hdr=next(csv.reader([l])); continue
    if hdr and l.startswith('"') and l[1].isdigit():
        r=dict(zip(hdr,next(csv.reader([l]))))
        keys=["Kernel Name","gpu__time_duration.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__inst_executed.sum","launch__registers_per_thread","launch__block_size","l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio","smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"]
        print(" | ".join(r.get(k,"?")[:40] for k in keys))
PY
