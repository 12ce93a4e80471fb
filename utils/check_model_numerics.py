#!/usr/bin/python3
# ===- check_model_numerics.py - Compare a compiled model with PyTorch ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_model_numerics.py BUILD_DIR NAME [--opset 13] [--compile-flag F]...
#
# Compiles BUILD_DIR/models/NAME-opsetN.onnx (exported by
# models/export_torch_models.py) to a shared library with mlc-compile, runs
# it with mlc-run on the exporter's example inputs (.npy) and compares with
# PyTorch running the same model (same seed, so the same weights and inputs):
# max |got - ref| <= 1e-4 * max |ref|. --compile-flag adds a flag to the
# compile (--target=gpu --gpu-host-emulation: the GPU's kernels as loops on
# this CPU).
#
# ===--------------------------------------------------------------------=== #

import argparse
import tempfile
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "models"))
import export_torch_models  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("name")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--weights", choices=["embedded", "external"],
                        default="embedded",
                        help="passed to mlc-compile --weights")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="add this flag to mlc-compile (repeatable)")
    args = parser.parse_args()
    models = os.path.join(args.build_dir, "models")
    onnx_path = os.path.join(models, f"{args.name}-opset{args.opset}.onnx")
    suffix = "" if args.weights == "embedded" else "-external"
    if args.compile_flag:
        suffix += "-flags"
    lib = os.path.join(models, f"{args.name}{suffix}.so")
    bin_dir = os.path.join(args.build_dir, "bin")
    subprocess.run([os.path.join(bin_dir, "mlc-compile"), onnx_path,
                    "-o", lib, "--weights=" + args.weights] +
                   args.compile_flag, check=True)

    torch.manual_seed(0)
    make, inputs = export_torch_models.MODELS[args.name]
    model = make().eval()
    examples, _ = inputs()
    with torch.no_grad():
        ref = model(*examples).numpy()

    with tempfile.TemporaryDirectory(prefix="mlc-numerics-") as tmp:
        cmd = [os.path.join(bin_dir, "mlc-run"), lib, "-o", tmp]
        for k, e in enumerate(examples):
            path = os.path.join(tmp, f"input_{k}.npy")
            np.save(path, np.ascontiguousarray(e.numpy()))
            cmd += ["-i", path]
        subprocess.run(cmd, check=True)
        got = np.load(os.path.join(tmp, "output_0.npy"))
    err = float(np.max(np.abs(got - ref)))
    scale = float(np.max(np.abs(ref)))
    if scale == 0.0:
        print(f"{args.name}: the reference output is all zeros; the "
              "comparison would be vacuous")
        return 1
    ok = err <= 1e-4 * scale
    print(f"{args.name}{suffix}: max|got-ref| = {err:.3e}, max|ref| = {scale:.3e}, "
          f"relative {err / scale:.2e} -> {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
