#!/usr/bin/env bash
# Runs every test of the workspace: unit tests, snapshots, the PoCL sweep of
# the supported sizes, the NVRTC compile of the emitted CUDA kernels, the
# macro's trybuild cases and the CLI. The sweeps over every size run a fixed
# sample (tests/common: `in_sample`); FFTGEN_FULL_SWEEP=1 runs them all.
# Without PoCL or NVRTC those tests print SKIPPED; with CI=true they fail
# instead. Each test binary's time is on its "test result" line.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
echo "==> LD_LIBRARY_PATH=$LD_LIBRARY_PATH POCL_CACHE_DIR=$POCL_CACHE_DIR CI=${CI:-unset} FFTGEN_FULL_SWEEP=${FFTGEN_FULL_SWEEP:-unset}"
cargo test --workspace --release --no-fail-fast
