#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# times one kernel shape per line of a variants file against cuFFT and the
# copy (CUDA only, 5 groups), to pick radices, threads per transform and
# launch bounds by measurement. Each line holds `fftgen bench` arguments,
# e.g. `--sizes 2401 --threads-per-fft 2401:343 --min-blocks-per-sm 2401:4`.
# The progress lines go to $OUT/tune.log.
#   usage: bash .devbin/tune.sh VARIANTS_FILE
set -uo pipefail
variants="$1"
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
while read -r line; do
    [ -z "$line" ] && continue
    case "$line" in \#*) continue ;; esac
    echo "== $line" >> "$OUT/tune.log"
    # shellcheck disable=SC2086
    .devbin/fftgen bench --no-opencl --groups 5 --json /tmp/tune.json --svg /tmp/tune.svg $line 2>&1 \
        | grep -E "^  N =|error|not" >> "$OUT/tune.log"
done < "$variants"
cat "$OUT/tune.log"
