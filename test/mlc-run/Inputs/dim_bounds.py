#!/usr/bin/python3
# ===- dim_bounds.py - Symbolic dims with bounds (--dim-max) -------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   dim_bounds.py WORKDIR
#
# Builds two models with symbolic dims: a transformer-style block over
# [batch, sequence, 32] (matmuls, bias, ReLU, residual add, softmax, then a
# mean over batch and sequence: a static output, which the caller
# allocates) and a convolution stack over [batch, 8, height, width] (3x3,
# depthwise 3x3 and stride 2, 1x1; its output's sizes are known at run time
# only, and the model allocates it). Compiles each with --dim-max bounds (as WORKDIR/NAME-bounded.so) and
# without (WORKDIR/NAME.so) and compares both with ONNX Runtime at three
# sizes within the bounds, in one process, and at the first size again
# after the largest. Prints "NAME LIBRARY SIZE: ok (max error E)" per
# run, or what differs.
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import mlc  # noqa: E402
from mlc import comparison  # noqa: E402

RNG = np.random.default_rng(11)


def weight(name, *shape):
    return numpy_helper.from_array(
        RNG.uniform(-0.5, 0.5, shape).astype(np.float32), name)


def model(name, dims, nodes, inits, out_dims=None):
    """A model of one float input `x` and one float output `y`."""
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                    dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def models():
    """(name, model, bounds, [input shapes])."""
    yield ("block", model(
        "block", ["n", "s", 32],
        [helper.make_node("MatMul", ["x", "w1"], ["h"]),
         helper.make_node("Add", ["h", "b1"], ["hb"]),
         helper.make_node("Relu", ["hb"], ["r"]),
         helper.make_node("MatMul", ["r", "w2"], ["o"]),
         helper.make_node("Add", ["o", "x"], ["res"]),
         helper.make_node("Softmax", ["res"], ["p"], axis=-1),
         helper.make_node("ReduceMean", ["p"], ["y"], axes=[0, 1],
                          keepdims=0)],
        [weight("w1", 32, 64), weight("b1", 64), weight("w2", 64, 32)],
        [32]),
        {"n": 4, "s": 64}, [(1, 1, 32), (2, 17, 32), (4, 64, 32)])
    yield ("convs", model(
        "convs", ["n", 8, "h", "w"],
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["cr"]),
         helper.make_node("Conv", ["cr", "wd"], ["d"], pads=[1, 1, 1, 1],
                          group=16),
         helper.make_node("Conv", ["d", "ws"], ["s2"], pads=[2, 2, 2, 2],
                          strides=[2, 2], group=16),
         helper.make_node("Conv", ["s2", "w2"], ["y"])],
        [weight("w1", 16, 8, 3, 3), weight("b1", 16), weight("wd", 16, 1, 3, 3),
         weight("ws", 16, 1, 5, 5), weight("w2", 8, 16, 1, 1)]),
        {"n": 2, "h": 48, "w": 64}, [(1, 8, 5, 7), (2, 8, 33, 40),
                                     (2, 8, 48, 64)])


def main():
    work = sys.argv[1]
    failed = 0
    for name, proto, bounds, shapes in models():
        path = os.path.join(work, name + ".onnx")
        onnx.save(proto, path)
        libraries = {
            "bounded": mlc.load(mlc.compile(
                path, output=os.path.join(work, name + "-bounded.so"),
                mcpu="znver3", dim_max=bounds)),
            "unbounded": mlc.load(mlc.compile(
                path, output=os.path.join(work, name + ".so"),
                mcpu="znver3")),
        }
        # Growing sizes, then the first again: one arena's buffer cache
        # serves them all.
        for shape in shapes + shapes[:1]:
            x = RNG.uniform(-1, 1, shape).astype(np.float32)
            np.save(os.path.join(work, name + "-" + "x".join(map(str, shape))
                                 + ".npy"), x)
            ref = comparison.run_ort(path, {"x": x})["y"]
            for kind, compiled in libraries.items():
                got = compiled.run({"x": x})["y"]
                size = "x".join(map(str, shape))
                diff = comparison.Difference("y", got, ref, 1e-5)
                if diff.ok:
                    print(f"{name} {kind} {size}: ok (max error "
                          f"{diff.error:.1e})")
                else:
                    failed += 1
                    print(f"{name} {kind} {size}: {diff}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
