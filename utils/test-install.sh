#!/usr/bin/env bash
#===- utils/test-install.sh - Install mlc and build an embedding app ---===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
# Installs the build into BUILD_DIR/install-test, builds test/Embedding
# against the installed package and checks what it prints.
#
#===--------------------------------------------------------------------===#
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: test-install.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX="$BUILD_DIR/install-test"
APP="$BUILD_DIR/embedding-test"
rm -rf "$PREFIX"
cmake --install "$BUILD_DIR" --prefix "$PREFIX" > /dev/null
cmake -G Ninja -S "$ROOT/test/Embedding" -B "$APP" \
  -DCMAKE_CXX_COMPILER="${CXX:-$(command -v clang++-22 || command -v c++)}" \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld > /dev/null
cmake --build "$APP" > /dev/null
out=$("$APP/embed-mlc")
echo "$out"
grep -q "mlc_graph.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>" <<< "$out"
echo "test-install: the installed package builds and runs an embedding app"
