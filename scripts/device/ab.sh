#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# times two variants of `fftgen bench` arguments against each other, in the
# order A, B, A, B so that drift in the machine's state falls on both; every
# run times cuFFT and the copy beside our kernels.
#   usage: bash .devbin/ab.sh "A bench args" "B bench args"
#   e.g.   bash .devbin/ab.sh "--sizes 1331" "--sizes 1331 --input-caching 1331:l2-only"
# Appends the progress lines to $OUT/ab.log.
set -uo pipefail
a="$1"; b="$2"
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
for round in 1 2; do
    for variant in A B; do
        if [ "$variant" = A ]; then args="$a"; else args="$b"; fi
        echo "== $variant run $round: $args" >> "$OUT/ab.log"
        # shellcheck disable=SC2086
        .devbin/fftgen bench --no-opencl --groups 7 --json /tmp/ab.json --svg /tmp/ab.svg $args 2>&1 \
            | grep -E "^  N =|error|not" >> "$OUT/ab.log"
    done
done
