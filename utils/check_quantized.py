#!/usr/bin/python3
# ===- check_quantized.py - QDQ-quantized bench models, mlc against ORT ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_quantized.py BUILD_DIR
#       [--models resnet18,mobilenet_v2,bert_small]
#
# Quantizes each bench model (BUILD_DIR/models/NAME-opset13.onnx, exported
# when missing) with models/quantize_qdq.py (NAME:inputs: only the inputs of
# its Convs, Gemms and MatMuls, their outputs left float), compiles the QDQ model with
# mlc, runs it and ONNX Runtime (onnxruntime-node) on the same random input
# and prints a Markdown table (all as max |a - b| / max |b|): mlc against
# ONNX Runtime running the QDQ graph as written (graph optimizations
# disabled: each DequantizeLinear, float op and QuantizeLinear on its own,
# as mlc computes it), against ONNX Runtime's default (its fused integer
# kernels, which round differently), how far those two ONNX Runtime runs
# are from each other, and how far quantization moved ONNX Runtime's own
# output from the float model's. Float sums in another order put a value
# near a rounding boundary on the other side, one quantization step off, and
# later layers carry that on, so no two correct evaluations agree exactly:
# it fails when mlc is further from the literal QDQ graph than twice ONNX
# Runtime's two evaluations are from each other.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "utils"))

import mlc  # noqa: E402
from mlc import comparison  # noqa: E402
import quantize_qdq  # noqa: E402
from bench_models import ensure_exported  # noqa: E402


def relative(a, b):
    return float(np.abs(a.astype(np.float64) - b).max() /
                 max(np.abs(b).max(), 1e-30))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument(
        "--models", default="resnet18,mobilenet_v2,bert_small")
    args = parser.parse_args()
    os.environ.setdefault("MLC_BUILD_DIR", os.path.abspath(args.build_dir))
    models_dir = os.path.join(args.build_dir, "models")
    variants = args.models.split(",")
    names = sorted({v.split(":")[0] for v in variants})
    ensure_exported(models_dir, names)
    print("| model | nodes quantized | mlc vs ORT, QDQ as written | mlc vs ORT "
          "integer kernels | ORT integer kernels vs ORT as written | "
          "ORT QDQ vs ORT float | verdict |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="mlc-qdq-") as tmp:
        for variant in variants:
            name, _, form = variant.partition(":")
            source = os.path.join(models_dir, f"{name}-opset13.onnx")
            path = os.path.join(tmp, f"{name}-{form or 'qdq'}.onnx")
            if form == "inputs":
                contractions = quantize_qdq.CONTRACTIONS
                model, count = quantize_qdq.quantize_file(
                    source, path, op_types=contractions,
                    exclude_outputs=contractions)
                label = f"{name} (inputs only)"
            else:
                model, count = quantize_qdq.quantize_file(source, path)
                label = name
            inputs = quantize_qdq.random_inputs(
                model, np.random.default_rng(1))
            literal = comparison.run_ort(path, inputs, "disabled")
            ref = comparison.run_ort(path, inputs)
            float_ref = comparison.run_ort(source, inputs)
            lib = mlc.compile(path, output=path[:-len(".onnx")] + ".so")
            got = mlc.load(lib).run(inputs)
            out = model.graph.output[0].name
            literal_err = relative(got[out], literal[out])
            fused_err = relative(got[out], ref[out])
            ort_err = relative(ref[out], literal[out])
            quant_err = relative(ref[out], float_ref[out])
            ok = literal_err <= 2 * ort_err
            failed += not ok
            print(f"| {label} | {count} | {literal_err:.2e} | {fused_err:.2e} "
                  f"| {ort_err:.2e} | {quant_err:.2e} | "
                  f"{'ok' if ok else 'FAILED'} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
