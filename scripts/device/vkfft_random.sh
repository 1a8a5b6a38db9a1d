#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried
# (scripts/device/build.sh, then scripts/device/pack_pyvkfft.sh): the cases
# `fftgen bench --random K --seed S` draws, timed by VkFFT (pyvkfft built
# from .devbin/pyvkfft.tar.gz, about 35 s) and by ours beside cuFFT and the
# copy, then cuFFT/ours and VkFFT/ours by scripts/random_summary.py.
# Writes $OUT/random_S.{json,md,log}, $OUT/vkfft_random_S.{json,log}.
#   usage: bash .devbin/vkfft_random.sh K SEED [more bench args...]
set -uo pipefail
count="${1:-50}"; seed="${2:-2027}"; shift 2 || true
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
if [ ! -d /tmp/site/pyvkfft ]; then
    VKFFT_BACKEND=cuda python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/site \
        .devbin/pyvkfft.tar.gz > "$OUT/vkfft_install.log" 2>&1
fi
.devbin/fftgen bench --random "$count" --seed "$seed" --list > "$OUT/cases_$seed.txt"
PYTHONPATH=/tmp/site python3 .devbin/vkfft_bench.py --cases "$OUT/cases_$seed.txt" \
    --json "$OUT/vkfft_random_$seed.json" > "$OUT/vkfft_random_$seed.log" 2>&1
bash .devbin/random_sample.sh "$count" "$seed" "$@" > /dev/null
python3 scripts/random_summary.py "$OUT/random_$seed.json" --vkfft "$OUT/vkfft_random_$seed.json"
