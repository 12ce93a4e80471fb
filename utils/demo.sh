#!/usr/bin/env bash
#===- utils/demo.sh - What `make demo` runs ----------------------------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
# Compiles the demo model (models/demo: an MLP trained on scikit-learn's
# handwritten digits) as far as the pipeline goes today and says what it did.
#
#===--------------------------------------------------------------------===#
set -euo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MLC_COMPILE="$BUILD_DIR/bin/mlc-compile"
MODEL="$ROOT/models/demo/digits_mlp.onnx"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"

echo "== mlc demo: digits_mlp (64 -> 32 -> 10 MLP, trained on sklearn digits)"
echo "   model: models/demo/digits_mlp.onnx (made by models/demo/train_digits.py)"
echo
echo "-- step 1: import the ONNX model and optimize at the graph level"
echo "   mlc-compile models/demo/digits_mlp.onnx --dim batch=1 --check-support"
"$MLC_COMPILE" "$MODEL" --check-support | sed 's/^/   /'
echo "   mlc-compile models/demo/digits_mlp.onnx --dim batch=1 -o $OUT/digits_mlp.graph.mlir"
"$MLC_COMPILE" "$MODEL" --dim batch=1 -o "$OUT/digits_mlp.graph.mlir"
# Print the function without the weight blobs.
sed -n '/func.func/,/^  }/p' "$OUT/digits_mlp.graph.mlir"
ops=$(grep -c "mlc_graph\." "$OUT/digits_mlp.graph.mlir" || true)
echo "   $ops graph ops, every shape static; written to $OUT/digits_mlp.graph.mlir"
echo
echo "-- step 2: graph -> loop lowering: not implemented yet."
echo "   The pipeline stops at the graph level. The loop -> CPU object half"
echo "   exists (mlc-opt --mlc-loop-to-cpu-pipeline and the CPU TargetBackend);"
echo "   the graph -> loop conversion, mlc-compile and mlc-run come next, and"
echo "   then this demo compiles the model to an object and runs it on the"
echo "   held-out digits in models/demo/digits_samples.json."
