# Writes a small convolutional classifier with a symbolic batch dim `N` into
# the folder argv[1] (Conv, Relu, a Reshape to [N, -1] computed from the
# input's Shape as exporters write it, Gemm, Softmax), inputs at batch 3, 1
# and 0, and the outputs NumPy computes for them in double.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
w = (rng.randn(4, 3, 3, 3) / 4).astype(np.float32)
b = rng.randn(4).astype(np.float32)
fc = (rng.randn(5, 4 * 8 * 8) / 16).astype(np.float32)
fb = rng.randn(5).astype(np.float32)


def forward(x):
    x = x.astype(np.float64)
    n = x.shape[0]
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, 4, 8, 8))
    for i in range(3):
        for j in range(3):
            window = padded[:, :, i:i + 8, j:j + 8]
            y += np.einsum("nchw,oc->nohw", window, w[:, :, i, j])
    y = np.maximum(y + b[None, :, None, None], 0).reshape(n, 4 * 8 * 8)
    z = y @ fc.T.astype(np.float64) + fb
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return (z / z.sum(axis=1, keepdims=True)).astype(np.float32)


for batch in (3, 1, 0):
    x = rng.randn(batch, 3, 8, 8).astype(np.float32)
    np.save(os.path.join(out, f"x{batch}.npy"), x)
    np.save(os.path.join(out, f"y{batch}.npy"), forward(x))

graph = h.make_graph(
    [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1],
                 name="conv"),
     h.make_node("Relu", ["c"], ["r"], name="relu"),
     h.make_node("Shape", ["x"], ["s"], name="shape"),
     h.make_node("Gather", ["s", "zero"], ["n"], axis=0, name="batch"),
     h.make_node("Concat", ["n", "minus_one"], ["flat"], axis=0,
                 name="flat_shape"),
     h.make_node("Reshape", ["r", "flat"], ["f"], name="flatten"),
     h.make_node("Gemm", ["f", "fc", "fb"], ["z"], transB=1, name="fc"),
     h.make_node("Softmax", ["z"], ["y"], axis=1, name="softmax")],
    "dynamic_batch",
    [h.make_tensor_value_info("x", T.FLOAT, ["N", 3, 8, 8])],
    [h.make_tensor_value_info("y", T.FLOAT, ["N", 5])],
    [nh.from_array(w, "w"), nh.from_array(b, "b"), nh.from_array(fc, "fc"),
     nh.from_array(fb, "fb"), nh.from_array(np.array([0], np.int64), "zero"),
     nh.from_array(np.array([-1], np.int64), "minus_one")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)],
                     producer_name="mlc-tests")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))
