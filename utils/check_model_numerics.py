#!/usr/bin/python3
# ===- check_model_numerics.py - Compare a compiled model with PyTorch ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_model_numerics.py BUILD_DIR NAME [--opset 13]
#
# Compiles BUILD_DIR/models/NAME-opsetN.onnx (exported by
# models/export_torch_models.py) with `mlc-compile --emit=obj`, links it into
# a shared library, runs it through ctypes on the exporter's example inputs
# and compares with PyTorch running the same model (same seed, so the same
# weights and inputs): max |got - ref| <= 1e-4 * max |ref|.
#
# ===--------------------------------------------------------------------=== #

import argparse
import ctypes
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "models"))
import export_torch_models  # noqa: E402


def descriptor(rank):
    class Memref(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return Memref


def wrap(array):
    d = descriptor(array.ndim)()
    d.allocated = d.aligned = array.ctypes.data
    d.offset = 0
    for i, (n, s) in enumerate(zip(array.shape, array.strides)):
        d.sizes[i] = n
        d.strides[i] = s // array.itemsize
    return d


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("name")
    parser.add_argument("--opset", type=int, default=13)
    args = parser.parse_args()
    models = os.path.join(args.build_dir, "models")
    onnx_path = os.path.join(models, f"{args.name}-opset{args.opset}.onnx")
    obj = os.path.join(models, f"{args.name}.o")
    lib = os.path.join(models, f"{args.name}.so")
    subprocess.run([os.path.join(args.build_dir, "bin", "mlc-compile"),
                    onnx_path, "--emit=obj", "--function-name=model",
                    "-o", obj], check=True)
    subprocess.run(["cc", "-shared", "-o", lib, obj, "-lm"], check=True)

    torch.manual_seed(0)
    make, inputs = export_torch_models.MODELS[args.name]
    model = make().eval()
    examples, _ = inputs()
    with torch.no_grad():
        ref = model(*examples).numpy()

    arrays = [np.ascontiguousarray(e.numpy()) for e in examples]
    out = descriptor(ref.ndim)()
    fn = getattr(ctypes.CDLL(lib), "_mlir_ciface_model")
    fn(ctypes.byref(out), *[ctypes.byref(wrap(a)) for a in arrays])
    count = int(np.prod(ref.shape))
    got = np.ctypeslib.as_array(
        ctypes.cast(out.aligned, ctypes.POINTER(ctypes.c_float)),
        shape=(count,)).reshape(ref.shape).copy()
    err = float(np.max(np.abs(got - ref)))
    scale = float(np.max(np.abs(ref)))
    ok = err <= 1e-4 * scale
    print(f"{args.name}: max|got-ref| = {err:.3e}, max|ref| = {scale:.3e}, "
          f"relative {err / scale:.2e} -> {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
