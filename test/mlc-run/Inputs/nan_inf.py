# ===- nan_inf.py - NaN and infinities through a compiled model ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   nan_inf.py make DIR     a model of 47 op kinds, inputs holding NaN,
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

def cases(feeds):
    """(ONNX op, inputs, attributes, PyTorch's result) per output."""
    x, y, img = (torch.from_numpy(feeds[k]) for k in ("x", "y", "img"))
    w = torch.linspace(-1, 1, 8 * 2 * 3 * 3).reshape(8, 2, 3, 3)
    m = torch.linspace(-1, 1, 6 * 4).reshape(6, 4)
    g = torch.linspace(-1, 1, 12 * 5).reshape(12, 5)
    scale, bias = torch.tensor([1.5, -0.5]), torch.tensor([0.1, 0.2])
    mean, var = torch.tensor([0.3, -0.3]), torch.tensor([2.0, 0.5])
    zero = torch.zeros(())
    return [
        ("Add", ["x", "y"], {}, x + y),
        ("Mul", ["x", "y"], {}, x * y),
        ("Exp", ["x"], {}, torch.exp(x)),
        ("Relu", ["x"], {}, torch.relu(x)),
        ("Softmax", ["x"], {"axis": -1}, torch.softmax(x, -1)),
        ("ReduceSum", ["x"], {"keepdims": 0}, x.sum()),
        ("ReduceMax", ["x"], {"axes": [-1], "keepdims": 0}, x.amax(-1)),
        ("MatMul", ["x2d", "m"], {}, x.reshape(4, 6) @ m),
        ("Conv", ["img", "w"], {"pads": [1, 1, 1, 1]},
         tf.conv2d(img, w, padding=1)),
        ("MaxPool", ["img"], {"kernel_shape": [2, 2], "strides": [2, 2]},
         tf.max_pool2d(img, 2, 2)),
        ("Sigmoid", ["x"], {}, torch.sigmoid(x)),
        ("Tanh", ["x"], {}, torch.tanh(x)),
        ("Clip", ["x", "lo", "hi"], {}, torch.clamp(x, -2, 2)),
        ("Div", ["x", "y"], {}, x / y),
        ("Sub", ["x", "y"], {}, x - y),
        ("Neg", ["x"], {}, -x),
        ("Abs", ["x"], {}, x.abs()),
        ("Log", ["x"], {}, torch.log(x)),
        ("Sqrt", ["x"], {}, torch.sqrt(x)),
        ("Reciprocal", ["x"], {}, 1 / x),
        ("Floor", ["x"], {}, x.floor()),
        ("Ceil", ["x"], {}, x.ceil()),
        ("Erf", ["x"], {}, torch.erf(x)),
        ("Softplus", ["x"], {}, tf.softplus(x)),
        ("LeakyRelu", ["x"], {"alpha": 0.1}, tf.leaky_relu(x, 0.1)),
        ("Elu", ["x"], {}, tf.elu(x)),
        ("Selu", ["x"], {}, tf.selu(x)),
        ("HardSigmoid", ["x"], {}, torch.clamp(0.2 * x + 0.5, 0, 1)),
        ("Softsign", ["x"], {}, tf.softsign(x)),
        ("ThresholdedRelu", ["x"], {"alpha": 0.5},
         torch.where(x > 0.5, x, zero)),
        ("Sin", ["x"], {}, torch.sin(x)),
        ("Cos", ["x"], {}, torch.cos(x)),
        ("Pow", ["x", "two"], {}, x ** 2),
        ("Sum", ["x", "y", "x"], {}, x + y + x),
        ("Mean", ["x", "y"], {}, (x + y) / 2),
        ("ReduceMean", ["x"], {"axes": [1], "keepdims": 0}, x.mean(1)),
        ("ReduceLogSumExp", ["x"], {"axes": [1], "keepdims": 0},
         torch.logsumexp(x, 1)),
        ("ReduceSumSquare", ["x"], {"axes": [1], "keepdims": 0},
         (x * x).sum(1)),
        ("LogSoftmax", ["x"], {"axis": -1}, torch.log_softmax(x, -1)),
        ("Gemm", ["x", "g"], {}, x @ g),
        ("AveragePool", ["img"], {"kernel_shape": [2, 2], "strides": [2, 2]},
         tf.avg_pool2d(img, 2, 2)),
        ("GlobalAveragePool", ["img"], {}, img.mean((2, 3), keepdim=True)),
        ("BatchNormalization", ["img", "scale", "bias", "mean", "var"], {},
         tf.batch_norm(img, mean, var, scale, bias, False, 0.0, 1e-5)),
        ("InstanceNormalization", ["img", "scale", "bias"], {},
         tf.instance_norm(img, weight=scale, bias=bias)),
        ("Transpose", ["x"], {}, x.t()),
        ("CumSum", ["x", "axis"], {}, torch.cumsum(x, 1)),
        # NaN > 0 is false: the other branch, as IEEE comparisons go.
        ("Where", ["positive", "x", "y"], {}, torch.where(x > 0, x, y)),
    ]


def build(feeds):
    table = cases(feeds)
    outputs = ["o%d_%s" % (k, op) for k, (op, _, _, _) in enumerate(table)]
    nodes = [h.make_node("Reshape", ["x", "shape"], ["x2d"]),
             h.make_node("Greater", ["x", "zero"], ["positive"])]
    nodes += [h.make_node(op, ins, [out], **attrs)
              for out, (op, ins, attrs, _) in zip(outputs, table)]
    inits = [
        nh.from_array(np.linspace(-1, 1, 8 * 2 * 3 * 3, dtype=np.float32)
                      .reshape(8, 2, 3, 3), "w"),
        nh.from_array(np.linspace(-1, 1, 6 * 4, dtype=np.float32)
                      .reshape(6, 4), "m"),
        nh.from_array(np.linspace(-1, 1, 12 * 5, dtype=np.float32)
                      .reshape(12, 5), "g"),
        nh.from_array(np.array([4, 6], np.int64), "shape"),
        nh.from_array(np.array(-2, np.float32), "lo"),
        nh.from_array(np.array(2, np.float32), "hi"),
        nh.from_array(np.array(2, np.float32), "two"),
        nh.from_array(np.array(0, np.float32), "zero"),
        nh.from_array(np.array(1, np.int64), "axis"),
        nh.from_array(np.array([1.5, -0.5], np.float32), "scale"),
        nh.from_array(np.array([0.1, 0.2], np.float32), "bias"),
        nh.from_array(np.array([0.3, -0.3], np.float32), "mean"),
        nh.from_array(np.array([2.0, 0.5], np.float32), "var"),
    ]
    graph = h.make_graph(
        nodes, "nan_inf",
        [h.make_tensor_value_info("x", T.FLOAT, [2, 12]),
         h.make_tensor_value_info("y", T.FLOAT, [2, 12]),
         h.make_tensor_value_info("img", T.FLOAT, [1, 2, 6, 6])],
        [h.make_tensor_value_info(o, T.FLOAT, None) for o in outputs],
        initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    return model, outputs, [r.numpy() for _, _, _, r in table]


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
        feeds = inputs()
        model, outputs, ref = build(feeds)
        onnx.save(model, os.path.join(folder, "model.onnx"))
        for i, name in enumerate(["x", "y", "img"]):
            np.save(os.path.join(folder, "input_%d.npy" % i), feeds[name])
        for k, value in enumerate(ref):
            np.save(os.path.join(folder, "ref_%d.npy" % k), value)
        with open(os.path.join(folder, "outputs.txt"), "w") as f:
            f.write("\n".join(outputs))
        return 0
    bad = 0
    with open(os.path.join(folder, "outputs.txt")) as f:
        outputs = f.read().split()
    for k, name in enumerate(outputs):
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
          (len(outputs) - bad, len(outputs)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
