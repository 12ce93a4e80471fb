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
# handwritten digits) to an object file, links it with a small C program
# and classifies held-out digits, checking against scikit-learn.
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
echo "-- 1. which ops the model uses"
"$MLC_COMPILE" "$MODEL" --check-support | sed 's/^/   /'
echo
echo "-- 2. import and optimize at the graph level"
echo "   mlc-compile digits_mlp.onnx --dim batch=1 --emit=graph"
"$MLC_COMPILE" "$MODEL" --dim batch=1 -o "$OUT/digits_mlp.graph.mlir"
sed -n '/func.func/,/^  }/p' "$OUT/digits_mlp.graph.mlir" | grep -v "mlc_graph.constant" | sed 's/^/   /'
echo
echo "-- 3. compile to an x86-64 object and a C header (static memory plan)"
echo "   mlc-compile digits_mlp.onnx --dim batch=1 -o $OUT/digits_mlp.o --print-memory-plan"
"$MLC_COMPILE" "$MODEL" --dim batch=1 -o "$OUT/digits_mlp.o" --print-memory-plan | sed 's/^/   /'
grep -E "^(int32_t|#define DIGITS_MLP_(ARENA_SIZE|NUM_))" "$OUT/digits_mlp.h" | sed 's/^/   /'
ls -l "$OUT/digits_mlp.o" "$OUT/digits_mlp.h" | sed 's/^/   /'
echo
echo "-- 4. link with models/demo/run_digits.c and classify 8 held-out digits"
/usr/bin/python3 - "$ROOT/models/demo/digits_samples.json" "$OUT/samples.h" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rows = lambda m: ",\n".join("{" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
with open(sys.argv[2], "w") as f:
    f.write(f"#define NUM_SAMPLES {len(s['labels'])}\n")
    f.write(f"static const float sample_images[][64] = {{{rows(s['images'])}}};\n")
    f.write(f"static const double sample_probabilities[][10] = {{{rows(s['probabilities'])}}};\n")
    f.write("static const int sample_labels[] = {" + ", ".join(map(str, s['labels'])) + "};\n")
PY
cc -O2 -I"$OUT" "$ROOT/models/demo/run_digits.c" "$OUT/digits_mlp.o" -lm -o "$OUT/run_digits"
"$OUT/run_digits"
