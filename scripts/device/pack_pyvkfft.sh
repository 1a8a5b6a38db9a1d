#!/usr/bin/env bash
# Here (with network): downloads pyvkfft's source distribution (the version
# ../shared/peers.md measured) and repacks it without its examples and docs
# (27 MB -> under 1 MB) into .devbin/pyvkfft.tar.gz, for scripts/device/vkfft.sh
# to build on the GPU machine, which has nvcc but no network.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=2025.1.1
work=$(mktemp -d)
pip download "pyvkfft==$version" --no-deps --no-binary :all: -d "$work" -q
tar xzf "$work/pyvkfft-$version.tar.gz" -C "$work"
rm -rf "$work/pyvkfft-$version/examples" "$work/pyvkfft-$version/doc"
mkdir -p .devbin
tar czf .devbin/pyvkfft.tar.gz -C "$work" "pyvkfft-$version"
rm -rf "$work"
ls -la .devbin/pyvkfft.tar.gz
