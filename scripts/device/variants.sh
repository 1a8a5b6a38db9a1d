#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# one `fftgen bench --no-opencl --groups 5` run per line of FILE, the whole
# list ROUNDS times over, so variants of one size sit next to each other in
# time. Lines are `LABEL BINARY bench-args...` (BINARY a file in .devbin, e.g.
# fftgen or an older build copied in as fftgen_base), e.g.
#   planned  fftgen --sizes 1331
#   onepart  fftgen --sizes 1331 --exchange-width 1331:one-part-at-a-time
# FILE is a list of your own, in the working tree so that it travels with it;
# args are evaluated by the shell, so quoted --shape arguments stay whole.
# Appends to $OUT/variants.log.
#   usage: bash .devbin/variants.sh ROUNDS FILE
#   e.g.   bash .devbin/variants.sh 2 my_variants.txt
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
rounds=$1; file=$2
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >> "$OUT/variants.log"
for r in $(seq 1 $rounds); do
  while read -r label bin args; do
    [ -z "$label" ] && continue
    case "$label" in \#*) continue ;; esac
    echo "== $label $bin $args" >> "$OUT/variants.log"
    # shellcheck disable=SC2086
    eval ".devbin/$bin bench --no-opencl --groups 5 --json /tmp/c.json --svg /tmp/c.svg $args" 2>&1 | grep -E "^  N =|error|not" >> "$OUT/variants.log"
  done < "$file"
done
date -u >> "$OUT/variants.log"
