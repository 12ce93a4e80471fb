#!/usr/bin/python3
# ===- symbolic_windows.py - Window ops over sizes known at run time -----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   symbolic_windows.py WORKDIR
#
# Builds models whose convolutions and poolings see symbolic batch and
# spatial sizes (1-D, 2-D and 3-D; auto_pad SAME_UPPER and SAME_LOWER,
# VALID, explicit pads, ceil_mode, grouped and depthwise, dilations,
# strides, count_include_pad with ceil_mode, MaxPool's indices, integer
# max pooling), compiles each once with
# its symbols kept and compares it with ONNX Runtime at three sizes each.
# Prints "NAME SIZE: ok (max error E)" per run, or what differs.
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

RNG = np.random.default_rng(7)


def weight(name, *shape):
    return numpy_helper.from_array(
        RNG.uniform(-1, 1, shape).astype(np.float32), name)


def model(name, dims, nodes, inits, out_type=TensorProto.FLOAT,
          in_type=TensorProto.FLOAT):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", in_type, dims)],
        [helper.make_tensor_value_info("y", out_type, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def models():
    """(name, model, [input shapes])."""
    yield ("conv1d-stft", model(
        "conv1d_stft", ["n", 1, "t"],
        [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[64],
                          strides=[16], pads=[32, 32]),
         helper.make_node("Conv", ["c", "w2"], ["y"], kernel_shape=[3],
                          auto_pad="SAME_UPPER", group=4)],
        [weight("w", 8, 1, 64), weight("w2", 8, 2, 3)]),
        [(1, 1, 400), (2, 1, 1000), (1, 1, 64)])
    yield ("conv2d-same", model(
        "conv2d_same", ["n", 3, "h", "w"],
        [helper.make_node("Conv", ["x", "w1", "b1"], ["a"], kernel_shape=[3, 3],
                          strides=[2, 2], auto_pad="SAME_UPPER"),
         helper.make_node("Conv", ["a", "w2"], ["d"], kernel_shape=[3, 3],
                          group=8, auto_pad="SAME_LOWER",
                          strides=[2, 1]),
         helper.make_node("Conv", ["d", "w3"], ["y"], kernel_shape=[2, 3],
                          group=2, pads=[0, 1, 1, 0], dilations=[2, 1])],
        [weight("w1", 8, 3, 3, 3), weight("b1", 8), weight("w2", 8, 1, 3, 3),
         weight("w3", 6, 4, 2, 3)]),
        [(1, 3, 17, 23), (2, 3, 32, 8), (1, 3, 5, 40)])
    yield ("conv2d-valid", model(
        "conv2d_valid", [1, 2, "h", "w"],
        [helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 5],
                          strides=[2, 3], auto_pad="VALID")],
        [weight("w", 4, 2, 3, 5)]),
        [(1, 2, 3, 5), (1, 2, 9, 31), (1, 2, 20, 6)])
    yield ("conv3d", model(
        "conv3d", [1, 4, "d", "h", 6],
        [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[2, 3, 3],
                          pads=[0, 1, 1, 1, 1, 1], group=2),
         helper.make_node("Conv", ["c", "w2"], ["y"], kernel_shape=[1, 1, 1],
                          strides=[2, 2, 1])],
        [weight("w", 4, 2, 2, 3, 3), weight("w2", 3, 4, 1, 1, 1)]),
        [(1, 4, 3, 5, 6), (1, 4, 7, 2, 6), (1, 4, 2, 9, 6)])
    yield ("pool2d-ceil", model(
        "pool2d_ceil", ["n", 3, "h", "w"],
        [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3],
                          strides=[2, 2], ceil_mode=1),
         helper.make_node("AveragePool", ["m"], ["a"], kernel_shape=[3, 2],
                          strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1),
         helper.make_node("AveragePool", ["a"], ["y"], kernel_shape=[2, 2],
                          auto_pad="SAME_UPPER", count_include_pad=1)],
        []),
        [(1, 3, 13, 20), (2, 3, 8, 9), (1, 3, 31, 4)])
    yield ("pool1d-3d", model(
        "pool1d_3d", [2, 3, "t"],
        [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[4],
                          strides=[3], pads=[1, 2]),
         helper.make_node("AveragePool", ["m"], ["y"], kernel_shape=[2],
                          auto_pad="SAME_LOWER")],
        []),
        [(2, 3, 4), (2, 3, 17), (2, 3, 50)])
    yield ("avgpool-ceil-include-pad", model(
        "avgpool_ceil_include_pad", [1, 2, "h", "w"],
        [helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[2, 3],
                          strides=[2, 2], pads=[1, 0, 0, 1], ceil_mode=1,
                          count_include_pad=1),
         helper.make_node("AveragePool", ["a"], ["y"], kernel_shape=[2, 2],
                          strides=[2, 2], ceil_mode=1, count_include_pad=1)],
        []),
        [(1, 2, 3, 3), (1, 2, 8, 7), (1, 2, 5, 10)])
    yield ("maxpool-valid-ceil", model(
        "maxpool_valid_ceil", [1, 1, "t"],
        [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3],
                          strides=[2], auto_pad="VALID", ceil_mode=1)],
        []),
        [(1, 1, 6), (1, 1, 7), (1, 1, 20)])
    yield ("maxpool-indices", model(
        "maxpool_indices", [1, 2, "h", "w"],
        [helper.make_node("MaxPool", ["x"], ["m", "y"], kernel_shape=[2, 3],
                          strides=[2, 2], pads=[1, 1, 0, 1])],
        [], out_type=TensorProto.INT64),
        [(1, 2, 5, 7), (1, 2, 12, 3), (1, 2, 2, 16)])
    yield ("maxpool-uint8", model(
        "maxpool_uint8", [1, 2, "h", "w"],
        [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                          strides=[2, 2], pads=[1, 1, 1, 1])],
        [], out_type=TensorProto.UINT8, in_type=TensorProto.UINT8),
        [(1, 2, 5, 7), (1, 2, 12, 3), (1, 2, 2, 16)])


def main():
    work = sys.argv[1]
    failed = 0
    for name, proto, shapes in models():
        path = os.path.join(work, name + ".onnx")
        onnx.save(proto, path)
        compiled = mlc.load(mlc.compile(path, output=os.path.join(
            work, name + ".so")))
        dtype = (np.uint8 if proto.graph.input[0].type.tensor_type.elem_type
                 == TensorProto.UINT8 else np.float32)
        for shape in shapes:
            x = (RNG.integers(0, 256, shape) if dtype == np.uint8 else
                 RNG.uniform(-1, 1, shape)).astype(dtype)
            got = compiled.run({"x": x})["y"]
            ref = comparison.run_ort(path, {"x": x})["y"]
            size = "x".join(map(str, shape))
            diff = comparison.Difference("y", got, ref, 1e-5)
            if diff.ok:
                print(f"{name} {size}: ok (max error {diff.error:.1e})")
            else:
                failed += 1
                print(f"{name} {size}: {diff}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
