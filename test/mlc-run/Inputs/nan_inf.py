# ===- nan_inf.py - NaN and infinities through a compiled model ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   nan_inf.py make DIR     a model of many op kinds, inputs holding NaN,
#                           +inf and -inf, and PyTorch's outputs for them
#                           (IEEE arithmetic; NaN propagates through max)
#   nan_inf.py check DIR    compares DIR/out/output_<k>.npy (from mlc-run)
#                           with them: NaN where the reference has NaN,
#                           the same infinities, finite values close
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
import torch
import torch.nn.functional as tf

OUTPUTS = ["add", "mul", "exp", "relu", "softmax", "sum", "max", "matmul",
           "conv", "pool", "sigmoid", "tanh", "clip", "div"]


def build():
    w = nh.from_array(np.linspace(-1, 1, 8 * 2 * 3 * 3, dtype=np.float32)
                      .reshape(8, 2, 3, 3), "w")
    m = nh.from_array(np.linspace(-1, 1, 6 * 4, dtype=np.float32)
                      .reshape(6, 4), "m")
    nodes = [
        h.make_node("Add", ["x", "y"], ["add"]),
        h.make_node("Mul", ["x", "y"], ["mul"]),
        h.make_node("Exp", ["x"], ["exp"]),
        h.make_node("Relu", ["x"], ["relu"]),
        h.make_node("Softmax", ["x"], ["softmax"], axis=-1),
        h.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
        h.make_node("ReduceMax", ["x"], ["max"], axes=[-1], keepdims=0),
        h.make_node("Reshape", ["x", "shape"], ["x2d"]),
        h.make_node("MatMul", ["x2d", "m"], ["matmul"]),
        h.make_node("Conv", ["img", "w"], ["conv"], pads=[1, 1, 1, 1]),
        h.make_node("MaxPool", ["img"], ["pool"], kernel_shape=[2, 2],
                    strides=[2, 2]),
        h.make_node("Sigmoid", ["x"], ["sigmoid"]),
        h.make_node("Tanh", ["x"], ["tanh"]),
        h.make_node("Clip", ["x", "lo", "hi"], ["clip"]),
        h.make_node("Div", ["x", "y"], ["div"]),
    ]
    inits = [w, m, nh.from_array(np.array([4, 6], np.int64), "shape"),
             nh.from_array(np.array(-2, np.float32), "lo"),
             nh.from_array(np.array(2, np.float32), "hi")]
    graph = h.make_graph(
        nodes, "nan_inf",
        [h.make_tensor_value_info("x", T.FLOAT, [2, 12]),
         h.make_tensor_value_info("y", T.FLOAT, [2, 12]),
         h.make_tensor_value_info("img", T.FLOAT, [1, 2, 6, 6])],
        [h.make_tensor_value_info(o, T.FLOAT, None) for o in OUTPUTS],
        initializer=inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])


def reference(feeds):
    x, y, img = (torch.from_numpy(feeds[k]) for k in ("x", "y", "img"))
    w = torch.linspace(-1, 1, 8 * 2 * 3 * 3).reshape(8, 2, 3, 3)
    m = torch.linspace(-1, 1, 6 * 4).reshape(6, 4)
    out = [x + y, x * y, torch.exp(x), torch.relu(x), torch.softmax(x, -1),
           x.sum(), x.amax(-1), x.reshape(4, 6) @ m,
           tf.conv2d(img, w, padding=1), tf.max_pool2d(img, 2, 2),
           torch.sigmoid(x), torch.tanh(x), torch.clamp(x, -2, 2), x / y]
    return [o.numpy() for o in out]


def inputs():
    rng = np.random.default_rng(7)
    specials = [np.nan, np.inf, -np.inf]
    x = rng.standard_normal((2, 12)).astype(np.float32)
    y = rng.standard_normal((2, 12)).astype(np.float32)
    img = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    x.flat[[1, 5, 9, 14, 20]] = specials + [np.nan, np.inf]
    y.flat[[1, 6, 9, 15, 21]] = [np.inf, 0.0, np.nan, -np.inf, 0.0]
    x.flat[21] = 0.0  # 0 / 0 and 0 * inf
    img.flat[[0, 7, 40, 55]] = specials + [np.nan]
    return {"x": x, "y": y, "img": img}


def main():
    mode, folder = sys.argv[1], sys.argv[2]
    if mode == "make":
        os.makedirs(folder, exist_ok=True)
        model = build()
        onnx.save(model, os.path.join(folder, "model.onnx"))
        feeds = inputs()
        for i, name in enumerate(["x", "y", "img"]):
            np.save(os.path.join(folder, "input_%d.npy" % i), feeds[name])
        ref = reference(feeds)
        for k, value in enumerate(ref):
            np.save(os.path.join(folder, "ref_%d.npy" % k), value)
        return 0
    bad = 0
    for k, name in enumerate(OUTPUTS):
        ref = np.load(os.path.join(folder, "ref_%d.npy" % k))
        got = np.load(os.path.join(folder, "out", "output_%d.npy" % k))
        ok = (got.shape == ref.shape and
              np.array_equal(np.isnan(got), np.isnan(ref)) and
              np.array_equal(np.isposinf(got), np.isposinf(ref)) and
              np.array_equal(np.isneginf(got), np.isneginf(ref)))
        finite = np.isfinite(ref)
        if ok and finite.any():
            ok = np.allclose(got[finite], ref[finite], rtol=1e-4, atol=1e-5)
        if not ok:
            bad += 1
            print("nan_inf: %s differs:\n  got %s\n  ref %s" %
                  (name, got.ravel()[:24], ref.ravel()[:24]))
    print("nan_inf: %d of %d outputs as the reference" %
          (len(OUTPUTS) - bad, len(OUTPUTS)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
