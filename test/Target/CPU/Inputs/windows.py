#!/usr/bin/python3
# ===- windows.py - Sliding windows against a numpy reference -----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   windows.py WORK_DIR
#
# Builds depthwise convolutions and max poolings with column strides above
# one (the column phases of mlc-cpu-tile-and-vectorize) and stride-1
# depthwise convolutions on narrow maps (mlc-loop-channels-last-depthwise),
# with symmetric, asymmetric and no padding, even and odd widths and
# channel counts that are not a multiple of the vector, compiles each with
# mlc-compile for the triple's generic CPU and for this machine's, runs it
# with mlc-run (both from PATH) and compares with the
# same window computed by numpy on the explicitly padded input. Exits
# non-zero on any mismatch.
#
# ===--------------------------------------------------------------------=== #

import glob
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = [
    # channels, size, kernel, stride, pads (top, left, bottom, right), op
    (32, 16, 3, 2, [0, 0, 1, 1], "dw"),   # TF-style SAME on an even width
    (32, 16, 5, 2, [2, 2, 2, 2], "dw"),   # EfficientNet's 5x5/2
    (16, 20, 3, 2, [1, 1, 1, 1], "dw"),   # MobileNet's 3x3/2
    (16, 18, 5, 2, [1, 2, 1, 2], "dw"),
    (8, 12, 3, 3, [1, 1, 1, 1], "dw"),    # stride 3
    (8, 16, 4, 2, [1, 1, 2, 2], "dw"),    # even kernel
    (8, 15, 3, 2, [1, 1, 1, 1], "dw"),    # odd width: per-phase copies
    (32, 16, 3, 2, [1, 1, 1, 1], "max"),  # ResNet's pooling, -inf padding
    (16, 18, 3, 2, [0, 0, 1, 1], "max"),
    (16, 17, 3, 2, [0, 0, 0, 0], "max"),  # SqueezeNet's: odd width
    (16, 64, 3, 2, [1, 1, 1, 1], "dw"),   # phases 32 wide: 16-lane tiles
    (16, 66, 3, 2, [1, 1, 1, 1], "max"),
    # Stride 1 on narrow maps: channels-last for 16 lanes (7 wide; 14 wide
    # with 5x5), for 4 lanes with 5x5 on 7 wide.
    (48, 7, 3, 1, [1, 1, 1, 1], "dw"),    # MobileNetV2's 7x7
    (40, 7, 5, 1, [2, 2, 2, 2], "dw"),    # EfficientNet's 7x7 5x5
    (24, 14, 5, 1, [2, 2, 2, 2], "dw"),   # EfficientNet's 14x14 5x5
    (20, 9, 3, 1, [0, 1, 2, 1], "dw"),    # asymmetric padding
    (36, 6, 3, 1, [0, 0, 0, 0], "dw"),    # no padding
]
# The generic CPU of the triple (SSE2: 4-lane tiles) and this machine's.
TARGETS = [[], ["--mcpu=native"]]


def reference(x, w, kernel, stride, pads, op):
    fill = -np.inf if op == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                constant_values=fill)
    oh = (xp.shape[2] - kernel) // stride + 1
    ow = (xp.shape[3] - kernel) // stride + 1
    y = np.full((x.shape[0], x.shape[1], oh, ow), fill, np.float64)
    for i in range(kernel):
        for j in range(kernel):
            window = xp[:, :, i:i + stride * oh:stride,
                        j:j + stride * ow:stride]
            if op == "max":
                y = np.maximum(y, window)
            else:
                y += window * w[None, :, 0, i, j, None, None]
    return y


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(3)
    failed = 0
    for k, (c, size, kernel, stride, pads, op) in enumerate(CASES):
        x = rng.standard_normal((1, c, size, size)).astype(np.float32)
        w = rng.standard_normal((c, 1, kernel, kernel)).astype(np.float32)
        y = reference(x.astype(np.float64), w.astype(np.float64), kernel,
                      stride, pads, op)
        if op == "max":
            node = helper.make_node("MaxPool", ["x"], ["y"],
                                    kernel_shape=[kernel, kernel],
                                    strides=[stride, stride], pads=pads)
            weights = []
        else:
            node = helper.make_node("Conv", ["x", "w"], ["y"],
                                    kernel_shape=[kernel, kernel],
                                    strides=[stride, stride], pads=pads,
                                    group=c)
            weights = [numpy_helper.from_array(w, "w")]
        graph = helper.make_graph(
            [node], "window",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           list(x.shape))],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                           list(y.shape))], weights)
        model = os.path.join(work, f"case{k}.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 13)]), model)
        inp = os.path.join(work, f"case{k}.npy")
        np.save(inp, x)
        for t, flags in enumerate(TARGETS):
            lib = os.path.join(work, f"case{k}-{t}.so")
            out = os.path.join(work, f"case{k}-{t}.out")
            subprocess.run(["mlc-compile", model, "-o", lib] + flags,
                           check=True)
            subprocess.run(["mlc-run", lib, "-i", inp, "-o", out],
                           check=True, capture_output=True)
            got = np.load(glob.glob(os.path.join(out, "*.npy"))[0])
            error = np.abs(got - y).max() / np.abs(y).max()
            ok = got.shape == y.shape and error <= 1e-5
            failed += not ok
            print(f"{op} c={c} {size}x{size} k={kernel} s={stride} "
                  f"pads={pads} {' '.join(flags) or 'generic'}: relative "
                  f"error {error:.1e} {'ok' if ok else 'MISMATCH'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
