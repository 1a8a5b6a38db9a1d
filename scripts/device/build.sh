#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, everything the GPU machine runs and
# copies it into .devbin/ (ignored through .git/info/exclude; carried to the
# device with `carry: [".devbin"]`): the fftgen binary, the GPU test
# executables, the fft_kernel! example, and the OpenCL ICD loader, which the device image may lack.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .devbin && mkdir -p .devbin/lib
cargo build --release -p fftgen-cli -p fft-macro-example
cargo build --release -p fftgen-runtime --features planner --example two_gpus
cp target/release/fftgen target/release/fft-macro-example target/release/examples/two_gpus .devbin/
for test in gpu_sweep runtime_planner repeatability distributed; do
    exe=$(cargo test --release --no-run --test "$test" 2>&1 | sed -n "s/.*Executable tests\/$test.rs (\(.*\))/\1/p")
    cp "$exe" ".devbin/$test"
done
exe=$(cargo test --release -p fftgen-runtime --no-run --test cuda_gpu 2>&1 | sed -n 's/.*Executable tests\/cuda_gpu.rs (\(.*\))/\1/p')
cp "$exe" .devbin/cuda_gpu
cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 .devbin/lib/
cp scripts/device/run.sh scripts/device/ab_session.sh scripts/device/tune.sh scripts/device/profile.sh scripts/device/ab.sh \
    scripts/device/variants.sh scripts/device/compare_builds.sh scripts/device/tune_list.sh \
    scripts/device/opt_in_sweep.sh scripts/device/vkfft.sh scripts/device/vkfft_bench.py \
    scripts/device/ab_wisdom.sh scripts/device/ncu_light.sh scripts/device/odd_real.sh \
    scripts/device/prime_radices.sh scripts/device/bluestein.sh scripts/device/accuracy_sweep.sh scripts/device/multi_gpu.sh \
    scripts/device/random_sample.sh scripts/device/compare_planners.sh scripts/device/measure.sh scripts/device/vkfft_random.sh \
    scripts/device/ncu_misses.sh scripts/device/lone_f64.sh .devbin/
ls -la .devbin
