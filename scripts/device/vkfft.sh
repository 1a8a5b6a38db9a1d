#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried
# (scripts/device/build.sh, then scripts/device/pack_pyvkfft.sh): builds
# pyvkfft from .devbin/pyvkfft.tar.gz with nvcc (about 35 s), then times VkFFT
# on the shapes of `fftgen bench`'s default list (or SIZES) by the bench's
# method. Writes $OUT/vkfft_f32.json (and vkfft_f64.json with PRECISION=f64)
# for `scripts/perf_table.py --vkfft`.
#   usage: bash .devbin/vkfft.sh            # the default f32 list
#          SIZES=4096,1000x1000 bash .devbin/vkfft.sh
set -euo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
precision="${PRECISION:-f32}"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
if [ ! -d /tmp/site/pyvkfft ]; then
    VKFFT_BACKEND=cuda python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site \
        .devbin/pyvkfft.tar.gz > "$OUT/vkfft_install.log" 2>&1
fi
sizes="${SIZES:-$(.devbin/fftgen bench --print-sizes --precision "$precision")}"
PYTHONPATH=/tmp/site python3 .devbin/vkfft_bench.py --sizes "$sizes" --precision "$precision" \
    --json "$OUT/vkfft_$precision.json" 2>&1 | tee "$OUT/vkfft_$precision.log"
