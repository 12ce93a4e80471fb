#!/usr/bin/python3
# ===- check_dynamic_batch.py - Compile once, run at any batch -----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_dynamic_batch.py BUILD_DIR [--models NAME...] [--files F.onnx...]
#                          [--batches 1 3 8] [--seq 128 | --seqs 16 64]
#
# Exports each model with a symbolic batch dim (models/export_torch_models.py
# --dynamic; the files stay in BUILD_DIR/models), compiles it once without
# pinning the batch (the transformers' sequence length is pinned with --dim
# seq=N, or with --seqs left symbolic too), then runs the one library at
# every batch size (and every sequence length of --seqs) and compares it
# with ONNX Runtime on the same random inputs. --files checks ONNX files that already have a symbolic
# batch instead of exporting models. Prints a Markdown table; exits 1 on any
# failure.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
MODELS = ["mlp", "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
          "efficientnet_b0", "squeezenet1_1", "vit_b_16", "bert_small",
          "bert_base"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--files", nargs="+", default=[])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 3, 8])
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--seqs", type=int, nargs="+",
                        help="keep the sequence length symbolic and run at "
                             "each of these")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    args = parser.parse_args()
    os.environ.setdefault("MLC_BUILD_DIR", os.path.abspath(args.build_dir))
    import mlc
    from mlc.comparison import random_inputs, run_ort

    outdir = os.path.join(args.build_dir, "models")
    os.makedirs(outdir, exist_ok=True)
    # (batch, seq) per column; seq None where it is pinned.
    columns = [(b, s) for b in args.batches for s in (args.seqs or [None])]
    print("| model | compile (s) | symbols | "
          + " | ".join(f"batch {b}" + (f", seq {s}" if s else "")
                       + ": max error" for b, s in columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    failures = 0
    jobs = [(os.path.splitext(os.path.basename(f))[0], f) for f in args.files]
    if not args.files:
        jobs = [(name, os.path.join(outdir, f"{name}-opset13-dynamic.onnx"))
                for name in args.models]
    for name, path in jobs:
        if not os.path.exists(path):
            subprocess.run([sys.executable,
                            os.path.join(ROOT, "models",
                                         "export_torch_models.py"),
                            outdir, name, "--dynamic"],
                           check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        model = onnx.load(path, load_external_data=False)
        symbolic = {d.dim_param for i in model.graph.input
                    for d in i.type.tensor_type.shape.dim if d.dim_param}
        dims = {"seq": args.seq} if "seq" in symbolic and not args.seqs \
            else {}
        batch_symbol = next(iter(symbolic - {"seq"}), "batch")
        library = os.path.join(outdir, f"{name}-dynamic.so")
        start = time.monotonic()
        try:
            mlc.compile(path, output=library,
                        dim=[f"{k}={v}" for k, v in dims.items()])
            loaded = mlc.load(library)
        except mlc.MLCError as e:
            print(f"| {name} | failed: {str(e).splitlines()[0]} | | "
                  + " | " * len(columns))
            failures += 1
            continue
        seconds = time.monotonic() - start
        cells = []
        for batch, seq in columns:
            values = dict(dims, **{batch_symbol: batch})
            if seq is not None and "seq" in symbolic:
                values["seq"] = seq
            inputs = random_inputs(model, values, seed=batch)
            got = loaded.run(inputs)
            ref = run_ort(path, inputs)
            error = 0.0
            for key, want in ref.items():
                have = got[key]
                if have.shape != want.shape:
                    error = float("inf")
                    break
                if want.size:
                    scale = max(1.0, float(np.max(np.abs(want))))
                    error = max(error, float(np.max(np.abs(
                        have.astype(np.float64) - want))) / scale)
            ok = error <= args.tolerance
            failures += not ok
            cells.append(f"{error:.1e}" + ("" if ok else " **FAIL**"))
        shape = ", ".join(f"{i.name}{list(i.shape)}" for i in loaded.inputs)
        print(f"| {name} | {seconds:.1f} | {shape} | " + " | ".join(cells)
              + " |", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
