#!/usr/bin/env bash
#===- utils/asan-check.sh - Import every test model under ASan ---------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
# Builds mlc-compile with AddressSanitizer and UndefinedBehaviorSanitizer in
# BUILD_DIR (default build-asan), imports the checked-in malformed models
# and every ONNX node-test model with it, and compiles the generated
# malformed-model corpus (utils/malformed_models.py) all the way, checked by
# utils/check_malformed.py. Fails on any sanitizer report or exit code
# above 1.
#
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
# compiled with ASan; our instrumented copy of that inline code and
# libMLIR's uninstrumented copy share allocators, which ASan would report
# as use-after-poison. Real heap errors are still caught.
#
#===--------------------------------------------------------------------===#
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-$ROOT/build-asan}
bash "$ROOT/utils/install-deps.sh" --asan
cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMLC_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  -DCMAKE_C_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > /dev/null
cmake --build "$BUILD_DIR" --target mlc-compile
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0
models=("$ROOT"/test/Frontend/ONNX/Inputs/malformed/*.onnx
        /usr/share/libonnx-testdata/data/node/*/model.onnx)
bad=0
for m in "${models[@]}"; do
  set +e
  "$BUILD_DIR/bin/mlc-compile" "$m" --emit=input -o /dev/null > /dev/null 2> "$BUILD_DIR/asan.err"
  rc=$?
  set -e
  if [ $rc -gt 1 ] || grep -q "Sanitizer" "$BUILD_DIR/asan.err"; then
    echo "asan-check: $m: exit $rc"
    head -20 "$BUILD_DIR/asan.err"
    bad=$((bad + 1))
  fi
done
echo "asan-check: ${#models[@]} models imported under AddressSanitizer, $bad with a report"
corpus="$BUILD_DIR/malformed-corpus"
rm -rf "$corpus"
/usr/bin/python3 "$ROOT/utils/malformed_models.py" "$corpus"
/usr/bin/python3 "$ROOT/utils/check_malformed.py" "$BUILD_DIR/bin/mlc-compile" \
  "$corpus" --timeout 600 || bad=$((bad + 1))
[ $bad -eq 0 ]
