#!/usr/bin/env bash
# Installs what fftgen's checks and tests need on a Debian machine with Rust:
# PoCL (OpenCL on the CPU, so generated OpenCL kernels really run), NVRTC
# (so generated CUDA kernels compile through ptxas for sm_90 without a GPU)
# and numpy (to cross-check saved .npy files). Safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

echo "==> apt: installing pocl-opencl-icd ocl-icd-libopencl1 (OpenCL on the CPU)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 >/dev/null
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "==> apt: installing python3 python3-pip (for the pip steps below)"
    $SUDO apt-get install -y -qq python3 python3-pip >/dev/null
fi

# Debian marks its Python as externally managed (PEP 668); these installs are
# tools for this machine, so pip may write to it.
export PIP_BREAK_SYSTEM_PACKAGES=1
export PIP_DISABLE_PIP_VERSION_CHECK=1

if python3 -c "import numpy" 2>/dev/null; then
    echo "==> pip: numpy already present"
else
    echo "==> pip: installing numpy"
    python3 -m pip install -q numpy
fi

# The cu13 wheels match cudarc's cuda-13000 feature and install under nvidia/cu13/lib.
NVRTC_DIR="$HOME/.cache/fftgen-nvrtc"
NVRTC_LIB="$NVRTC_DIR/nvidia/cu13/lib"
if compgen -G "$NVRTC_LIB/libnvrtc.so*" >/dev/null; then
    echo "==> pip: NVRTC already present in $NVRTC_LIB"
else
    echo "==> pip: installing nvidia-cuda-nvrtc nvidia-cuda-runtime (13.x) into $NVRTC_DIR"
    python3 -m pip install -q --target "$NVRTC_DIR" "nvidia-cuda-nvrtc==13.*" "nvidia-cuda-runtime==13.*"
fi
if ! compgen -G "$NVRTC_LIB/libnvrtc.so*" >/dev/null; then
    echo "error: no libnvrtc.so* in $NVRTC_LIB after installing; check the wheel layout" >&2
    exit 1
fi
echo "==> setup done; scripts/env.sh points the tests at NVRTC and the PoCL cache"
