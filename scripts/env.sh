# Sourced by scripts/test.sh: where NVRTC (installed by scripts/setup.sh) and
# the PoCL program cache live.
export LD_LIBRARY_PATH="$HOME/.cache/fftgen-nvrtc/nvidia/cu13/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$HOME/.cache/fftgen-pocl}"
mkdir -p "$POCL_CACHE_DIR"
