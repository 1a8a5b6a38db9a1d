#!/usr/bin/env bash
# Runs on the GPU machine with .devbin carried: benches the sizes $1 with the
# built-in wisdom, then with each wisdom file after it first (FFTGEN_WISDOM),
# one after another on the same machine; every run times cuFFT and the copy too.
#   usage: bash .devbin/ab_wisdom.sh 1048576,2097152 variant_a.json variant_b.json
# Appends to $OUT/ab_wisdom.log.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
sizes="$1"; shift
log="$OUT/ab_wisdom.log"
for w in builtin "$@"; do
  echo "== wisdom $w" >> "$log"
  if [ "$w" = builtin ]; then unset FFTGEN_WISDOM; else export FFTGEN_WISDOM="$w"; fi
  .devbin/fftgen bench --no-opencl --groups 5 --sizes "$sizes" --json /tmp/a.json --svg /tmp/a.svg 2>&1 | grep -E "^  N =|rror" | sed 's/ --radix.*: ours/: ours/' >> "$log"
done
