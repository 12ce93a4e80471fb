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
out=$("$APP/embed-mlc" "$ROOT/models/demo/digits_mlp.onnx")
echo "$out"
grep -q "mlc_graph.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>" <<< "$out"
grep -q "object: yes, files written: 0" <<< "$out"
grep -q "header declares digits_run" <<< "$out"
grep -q "refused: error: 'junk.onnx' is not a valid ONNX model" <<< "$out"
echo "test-install: the installed package builds and runs an embedding app"

# The Python package from the prefix, with no build tree to fall back on:
# compile in process, load, run, compare with scikit-learn's probabilities.
SITE=$(cd "$PREFIX" && ls -d lib/python3*/dist-packages | head -1)
(cd / && env -u MLC_BUILD_DIR PYTHONPATH="$PREFIX/$SITE" /usr/bin/python3 - \
  "$PREFIX" "$ROOT/models/demo" <<'PY'
import json, os, sys, tempfile
import numpy as np
import mlc
prefix, demo = sys.argv[1:]
assert mlc.__file__.startswith(prefix), mlc.__file__
with tempfile.TemporaryDirectory() as tmp:
    lib = mlc.compile(os.path.join(demo, "digits_mlp.onnx"),
                      output=os.path.join(tmp, "digits.so"), dim={"batch": 8})
    samples = json.load(open(os.path.join(demo, "digits_samples.json")))
    out = mlc.load(lib).run([np.array(samples["images"], np.float32)])
    np.testing.assert_allclose(out["probabilities"],
                               samples["probabilities"], atol=1e-4)
print("test-install: the installed Python package compiles and runs the demo")
PY
)

# The examples of docs/Embedding.md, taken out of the page, built against
# the installed package outside the tree, run on the demo model's images
# and compared with scikit-learn's probabilities.
EXAMPLES="$BUILD_DIR/embedding-examples"
rm -rf "$EXAMPLES" && mkdir -p "$EXAMPLES/src" "$EXAMPLES/run"
/usr/bin/python3 "$ROOT/utils/extract_examples.py" "$ROOT/docs/Embedding.md" \
  "$EXAMPLES/src" > /dev/null
/usr/bin/python3 -c "import json, numpy as np, sys; s = json.load(open(sys.argv[1])); np.array(s['images'], np.float32).tofile(sys.argv[2])" \
  "$ROOT/models/demo/digits_samples.json" "$EXAMPLES/images.raw"
cmake -G Ninja -S "$EXAMPLES/src" -B "$EXAMPLES/build" \
  -DCMAKE_CXX_COMPILER="${CXX:-$(command -v clang++-22 || command -v c++)}" \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld > /dev/null
cmake --build "$EXAMPLES/build" > /dev/null
cc -std=c11 -Wall -I"$PREFIX/include" "$EXAMPLES/src/compile_and_run.c" \
  -L"$PREFIX/lib" -lmlc_compiler -lmlc_runtime -Wl,-rpath,"$PREFIX/lib" \
  -o "$EXAMPLES/build/compile_and_run_c"
mkdir -p "$EXAMPLES/run/cpp" "$EXAMPLES/run/c"
"$EXAMPLES/build/compile_and_run" "$ROOT/models/demo/digits_mlp.onnx" \
  "$EXAMPLES/run/cpp" "$EXAMPLES/images.raw" "$EXAMPLES/cpp.raw"
"$EXAMPLES/build/compile_and_run_c" "$ROOT/models/demo/digits_mlp.onnx" \
  "$EXAMPLES/run/c" "$EXAMPLES/images.raw" "$EXAMPLES/c.raw"
/usr/bin/python3 -c "
import json, sys, numpy as np
ref = np.array(json.load(open(sys.argv[1]))['probabilities'], np.float32)
for path in sys.argv[2:]:
    np.testing.assert_allclose(np.fromfile(path, np.float32).reshape(ref.shape), ref, atol=1e-4)
" "$ROOT/models/demo/digits_samples.json" "$EXAMPLES/cpp.raw" "$EXAMPLES/c.raw"
echo "test-install: the C and C++ examples of docs/Embedding.md build against the installed package and match scikit-learn"
