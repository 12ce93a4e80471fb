#!/usr/bin/env bash
#===- utils/install-deps.sh - Install mlc's build dependencies ---------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
# Installs every Debian 12 package mlc needs to build and test. Idempotent:
# when everything is present it returns at once without touching apt.
# Must run as root (or through sudo) when something is missing.
#
#===--------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  # Toolchain and build system.
  cmake ninja-build ccache make g++
  # LLVM/MLIR 22 (bookworm-security).
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  # ONNX and protobuf.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # JSON reader of the runtime (header-only).
  nlohmann-json3-dev
  # ONNX backend node-test models (the importer corpus test).
  libonnx-testdata
  # Tests.
  libgtest-dev
  # Clang's sanitizer runtimes: the ThreadSanitizer test of concurrent runs.
  libclang-rt-22-dev
  # LLVM's OpenMP runtime: threaded models link libomp.
  libomp-22-dev
  # AArch64 objects are linked with Debian's cross gcc and run under qemu-user.
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # Python tools that generate test models (run with /usr/bin/python3);
  # PyTorch is the independent reference of the Resize tests and exports
  # the bench model the Python tests compare with ONNX Runtime.
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
)
# Node.js and npm for ONNX Runtime (onnxruntime-node from npm,
# bench/package.json), the reference of the Python package's comparison
# tests and of `make bench`. They come from Debian only when the machine
# has none: Debian's npm conflicts with a Node.js installed from elsewhere
# (NodeSource's nodejs package bundles its own npm).
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

# `--bench` adds OpenBLAS for the matmul microbenchmark.
if [ "${1:-}" = "--bench" ]; then
  PACKAGES+=(libopenblas-dev)
fi
# `--asan` adds libFuzzer's runtime (`make asan-check`, `make fuzz`).
if [ "${1:-}" = "--asan" ]; then
  PACKAGES+=(libfuzzer-22-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: error: missing packages and not root: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
