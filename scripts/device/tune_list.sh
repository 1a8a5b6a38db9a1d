#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# one `fftgen tune` per line of a file (its arguments, e.g.
# `--precision f64 --sizes 4,128 --vary factorization,threads`), each
# writing $OUT/tune_K.log and $OUT/tune_K.json for line K (from 1; at most
# four lines, as the device tool brings back eight files).
#   usage: bash .devbin/tune_list.sh RUNS_FILE
set -uo pipefail
runs="$1"
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
k=0
while read -r line; do
    [ -z "$line" ] && continue
    case "$line" in \#*) continue ;; esac
    k=$((k + 1))
    echo "== fftgen tune $line" | tee "$OUT/tune_$k.log"
    # shellcheck disable=SC2086
    .devbin/fftgen tune --json "$OUT/tune_$k.json" $line 2>&1 | tee -a "$OUT/tune_$k.log"
done < "$runs"
