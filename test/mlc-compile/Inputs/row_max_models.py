# ===- row_max_models.py - Softmax and ReduceMax over rows for row-max.test -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------=== #
#
#   row_max_models.py DIR          writes softmax.onnx, reducemax.onnx, x.npy
#   row_max_models.py DIR --check  compares DIR/*.out/output_0.npy with numpy
#
# ===----------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

SHAPE = [1, 4, 37, 197]


def save(path, node, out_shape):
    graph = helper.make_graph(
        [node], os.path.basename(path)[:-5],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)


def main():
    out = sys.argv[1]
    x_path = os.path.join(out, "x.npy")
    if "--check" not in sys.argv:
        os.makedirs(out, exist_ok=True)
        save(os.path.join(out, "softmax.onnx"),
             helper.make_node("Softmax", ["x"], ["y"], axis=-1), SHAPE)
        save(os.path.join(out, "reducemax.onnx"),
             helper.make_node("ReduceMax", ["x"], ["y"], axes=[-1]),
             SHAPE[:-1] + [1])
        x = np.random.default_rng(0).standard_normal(SHAPE) * 4
        np.save(x_path, x.astype(np.float32))
        return
    x = np.load(x_path).astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    expected = {"softmax": e / e.sum(axis=-1, keepdims=True),
                "reducemax": x.max(axis=-1, keepdims=True)}
    for name, want in expected.items():
        got = np.load(os.path.join(out, name + ".out", "output_0.npy"))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                   err_msg=name)


if __name__ == "__main__":
    main()
