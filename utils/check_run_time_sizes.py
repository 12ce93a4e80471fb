#!/usr/bin/python3
# ===- check_run_time_sizes.py - Ops sized at run time, mlc against ORT ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_run_time_sizes.py BUILD_DIR [--seed N] [--cases N]
#
# A differential check of the ops whose result sizes are decided when the
# model runs (docs/Architecture.md, "Sizes decided at run time"): one small
# model each for Slice, Pad (constant, edge, reflect), Expand, Tile, TopK
# (largest and smallest, on values with ties), Reshape, Compress, OneHot,
# ReduceSum, Resize (linear, cubic, nearest; run-time scales and sizes),
# STFT (real signals; ONNX Runtime 1.30 differs from NumPy's FFT on complex
# ones, where mlc agrees with NumPy), MelWeightMatrix and Unique (flattened
# and along an axis), run by mlc and by ONNX Runtime (onnxruntime-node) on
# random run-time operands, in range and out of it. For each case both must
# give the same result (shapes exact, values within 1e-5), or both must
# refuse the inputs (mlc with a failed run-time check); Resize's weighted
# taps get an absolute tolerance of 1e-5 and STFT's sums 1e-4. Prints one line per
# disagreement and a summary; exits 1 when any case disagrees.
#
# Known disagreement, printed as such and not counted: ReduceSum with an
# axis named twice (ONNX Runtime reduces it once; the result's rank, fixed
# at compile time from the number of axes, cannot hold that, so mlc
# refuses).
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import mlc  # noqa: E402
from mlc.comparison import run_ort  # noqa: E402


def info(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


class Checker:
    def __init__(self, build, tmp):
        self.compile = os.path.join(build, "bin", "mlc-compile")
        self.tmp = tmp
        self.cases = self.disagreements = self.known = 0

    def build(self, name, node, inputs, outputs, opset=13):
        graph = h.make_graph([node], name, inputs, outputs)
        path = os.path.join(self.tmp, name + ".onnx")
        onnx.save(h.make_model(graph,
                               opset_imports=[h.make_opsetid("", opset)]),
                  path)
        lib = os.path.join(self.tmp, name + ".so")
        subprocess.run([self.compile, path, "-o", lib], check=True,
                       capture_output=True)
        return path, mlc.load(lib)

    def check(self, tag, path, model, inputs, known=lambda inputs: False,
              atol=1e-6):
        self.cases += 1
        small = {k: v.tolist() for k, v in inputs.items() if v.size < 10}
        try:
            ref = run_ort(path, inputs)
        except mlc.MLCError:
            ref = None
        try:
            got = model.run(inputs)
        except mlc.MLCError as e:
            got = None
            refusal = str(e).splitlines()[-1]
        if ref is None and got is None:
            return
        if ref is None:
            self.report(tag, f"ONNX Runtime refused, mlc ran: {small}")
            return
        if got is None:
            if known(inputs):
                self.known += 1
                print(f"{tag}: known: mlc refused ({refusal}): {small}")
                return
            self.report(tag, f"mlc refused ({refusal}): {small}")
            return
        for name, want in ref.items():
            have = got[name]
            if have.shape != want.shape or not np.allclose(
                    have, want, rtol=1e-5, atol=atol, equal_nan=True):
                self.report(tag, f"output {name}: {have.shape} vs "
                                 f"{want.shape}: {small}")

    def report(self, tag, text):
        self.disagreements += 1
        print(f"{tag}: {text}")


def run(c, rng, cases):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    shape = [4, 5, 6]
    p, m = c.build("slice", h.make_node("Slice", ["x", "s", "e", "a", "st"],
                                        ["y"]),
                   [info("x", T.FLOAT, shape)] +
                   [info(n, T.INT64, [2]) for n in ("s", "e", "a", "st")],
                   [info("y", T.FLOAT, None)])
    for _ in range(cases):
        axes = rng.choice([-3, -2, -1, 0, 1, 2], 2, replace=False)
        c.check("Slice", p, m, {
            "x": x, "s": rng.integers(-8, 8, 2), "e": rng.integers(-8, 8, 2),
            "a": axes.astype(np.int64),
            "st": rng.choice([-3, -2, -1, 0, 1, 2, 3], 2)})
    for mode in ("constant", "edge", "reflect"):
        p, m = c.build("pad_" + mode, h.make_node("Pad", ["x", "p"], ["y"],
                                                  mode=mode),
                       [info("x", T.FLOAT, shape), info("p", T.INT64, [6])],
                       [info("y", T.FLOAT, None)])
        for _ in range(cases):
            c.check("Pad " + mode, p, m, {"x": x, "p": rng.integers(-4, 7, 6)})
    xe = rng.standard_normal((3, 1, 2)).astype(np.float32)
    p, m = c.build("expand", h.make_node("Expand", ["x", "s"], ["y"]),
                   [info("x", T.FLOAT, [3, 1, 2]), info("s", T.INT64, [4])],
                   [info("y", T.FLOAT, None)])
    for _ in range(cases):
        c.check("Expand", p, m, {"x": xe, "s": np.array(
            [rng.integers(0, 3), rng.choice([1, 2, 3]), rng.integers(0, 5),
             rng.choice([1, 2])], np.int64)})
    p, m = c.build("tile", h.make_node("Tile", ["x", "r"], ["y"]),
                   [info("x", T.FLOAT, shape), info("r", T.INT64, [3])],
                   [info("y", T.FLOAT, None)])
    for _ in range(cases):
        c.check("Tile", p, m, {"x": x, "r": rng.integers(-1, 4, 3)})
    ties = rng.integers(0, 4, shape).astype(np.float32)
    for largest in (0, 1):
        axis = int(rng.integers(-3, 3))
        p, m = c.build(f"topk{largest}",
                       h.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis,
                                   largest=largest),
                       [info("x", T.FLOAT, shape), info("k", T.INT64, [1])],
                       [info("v", T.FLOAT, None), info("i", T.INT64, None)])
        for k in range(-1, shape[axis] + 2):
            c.check(f"TopK largest={largest} axis={axis}", p, m,
                    {"x": ties, "k": np.array([k], np.int64)})
    p, m = c.build("reshape", h.make_node("Reshape", ["x", "s"], ["y"]),
                   [info("x", T.FLOAT, shape), info("s", T.INT64, [3])],
                   [info("y", T.FLOAT, None)])
    for s in ([0, -1, 3], [-1, 10, 12], [2, 0, 15], [120, 1, 1], [0, 0, 0],
              [5, -1, 4], [7, -1, 1], [-1, -1, 2], [-2, 60, -1], [0, 0, 7]):
        c.check("Reshape", p, m, {"x": x, "s": np.array(s, np.int64)})
    p, m = c.build("compress", h.make_node("Compress", ["x", "c"], ["y"],
                                           axis=1),
                   [info("x", T.FLOAT, shape), info("c", T.BOOL, [5])],
                   [info("y", T.FLOAT, None)])
    for _ in range(cases):
        c.check("Compress", p, m,
                {"x": x, "c": rng.integers(0, 2, 5).astype(bool)})
    p, m = c.build("onehot", h.make_node("OneHot", ["i", "d", "v"], ["y"],
                                         axis=1),
                   [info("i", T.INT64, [3, 4]), info("d", T.INT64, []),
                    info("v", T.FLOAT, [2])], [info("y", T.FLOAT, None)])
    for _ in range(cases):
        c.check("OneHot", p, m, {
            "i": rng.integers(-6, 6, (3, 4)),
            "d": np.array(rng.integers(1, 7), np.int64),
            "v": np.array([0.5, 2.0], np.float32)})
    p, m = c.build("reduce_sum", h.make_node("ReduceSum", ["x", "a"], ["y"],
                                             keepdims=0),
                   [info("x", T.FLOAT, shape), info("a", T.INT64, [2])],
                   [info("y", T.FLOAT, None)])

    def repeated(inputs):
        return len({int(a) % 3 for a in inputs["a"]}) < 2

    for _ in range(cases):
        c.check("ReduceSum", p, m,
                {"x": x, "a": rng.integers(-4, 4, 2).astype(np.int64)},
                known=repeated)
    image = rng.standard_normal((1, 2, 5, 7)).astype(np.float32)
    for mode, transform in (("linear", "half_pixel"), ("cubic", "asymmetric"),
                            ("nearest", "half_pixel")):
        p, m = c.build(f"resize_scales_{mode}",
                       h.make_node("Resize", ["x", "", "s"], ["y"], mode=mode,
                                   coordinate_transformation_mode=transform),
                       [info("x", T.FLOAT, [1, 2, 5, 7]),
                        info("s", T.FLOAT, [4])], [info("y", T.FLOAT, None)])
        for _ in range(cases):
            # Scales of few binary digits: no float/double rounding apart.
            c.check(f"Resize scales {mode}", p, m, {"x": image, "s": np.array(
                [1, 1] + list(rng.choice([0.5, 0.75, 1, 1.5, 2, 3], 2)),
                np.float32)}, atol=1e-5)
        p, m = c.build(f"resize_sizes_{mode}",
                       h.make_node("Resize", ["x", "", "", "z"], ["y"],
                                   mode=mode,
                                   coordinate_transformation_mode=transform),
                       [info("x", T.FLOAT, [1, 2, 5, 7]),
                        info("z", T.INT64, [4])], [info("y", T.FLOAT, None)])
        for _ in range(cases):
            c.check(f"Resize sizes {mode}", p, m, {"x": image, "z": np.array(
                [1, 2] + list(rng.integers(1, 12, 2)), np.int64)}, atol=1e-5)
    signal = rng.standard_normal((2, 40, 1)).astype(np.float32)
    for onesided in (0, 1):
        p, m = c.build(f"stft_{onesided}",
                       h.make_node("STFT", ["x", "s", "", "l"], ["y"],
                                   onesided=onesided),
                       [info("x", T.FLOAT, [2, 40, 1]), info("s", T.INT64, []),
                        info("l", T.INT64, [])], [info("y", T.FLOAT, None)],
                       opset=17)
        for _ in range(cases):
            c.check(f"STFT onesided={onesided}", p, m, {
                "x": signal, "s": np.array(rng.integers(-1, 9), np.int64),
                "l": np.array(rng.integers(0, 44), np.int64)},
                # Sums of up to 40 products: ONNX Runtime's f32 rounding.
                atol=1e-4)
    p, m = c.build("mel", h.make_node("MelWeightMatrix",
                                      ["n", "d", "r", "lo", "hi"], ["y"]),
                   [info(n, T.INT64, []) for n in ("n", "d", "r")] +
                   [info(n, T.FLOAT, []) for n in ("lo", "hi")],
                   [info("y", T.FLOAT, None)], opset=17)
    for _ in range(cases):
        c.check("MelWeightMatrix", p, m, {
            "n": np.array(rng.integers(1, 12), np.int64),
            "d": np.array(rng.integers(8, 70), np.int64),
            "r": np.array(rng.choice([8000, 16000, 22050]), np.int64),
            "lo": np.array(rng.choice([0, 20, 125]), np.float32),
            "hi": np.array(rng.choice([3000, 3800]), np.float32)})
    for axis in (None, 0, 2):
        attrs = {} if axis is None else {"axis": axis}
        p, m = c.build(f"unique_{axis}",
                       h.make_node("Unique", ["x"], ["y", "i", "v", "n"],
                                   **attrs),
                       [info("x", T.FLOAT, [4, 3, 2])],
                       [info("y", T.FLOAT, None)] +
                       [info(n, T.INT64, None) for n in ("i", "v", "n")])
        for _ in range(cases):
            c.check(f"Unique axis={axis}", p, m, {"x": rng.integers(
                0, 3, (4, 3, 2)).astype(np.float32)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=25,
                        help="random cases per op (default 25)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mlc-sizes-") as tmp:
        c = Checker(args.build_dir, tmp)
        run(c, np.random.default_rng(args.seed), args.cases)
    print(f"{c.cases} cases, {c.disagreements} disagreements with ONNX "
          f"Runtime, {c.known} known ones")
    return 1 if c.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
