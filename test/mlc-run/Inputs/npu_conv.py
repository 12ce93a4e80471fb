# Writes a convolution (3x3, pad 1, a bias) followed by a Relu and an input
# into the folder argv[1], with two references computed with NumPy:
# `exact.npy` in double, and `bf16.npy` as the large NPU computes it: the
# input and filter rounded to bf16 (to nearest even), the sums rounded to
# bf16 as they leave the NPU, then the bias and the relu in f32.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
x = rng.randn(1, 16, 14, 14).astype(np.float32)
w = (rng.randn(32, 16, 3, 3) / 12).astype(np.float32)
b = rng.randn(32).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)


def bf16(a):
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def conv(xs, ws):
    padded = np.pad(xs[0], ((0, 0), (1, 1), (1, 1)))
    acc = np.zeros((32, 14, 14))
    for i in range(3):
        for j in range(3):
            acc += np.einsum("chw,fc->fhw", padded[:, i:i + 14, j:j + 14],
                             ws[:, :, i, j])
    return acc[None]


bias = b.astype(np.float64)[None, :, None, None]
exact = np.maximum(conv(x.astype(np.float64), w.astype(np.float64)) + bias, 0)
np.save(os.path.join(out, "exact.npy"), exact.astype(np.float32))
emulated = np.maximum(bf16(conv(bf16(x), bf16(w))) + bias, 0)
np.save(os.path.join(out, "bf16.npy"), emulated.astype(np.float32))

graph = h.make_graph(
    [h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1] * 4),
     h.make_node("Relu", ["c"], ["y"], name="relu")],
    "conv", [h.make_tensor_value_info("x", T.FLOAT, x.shape)],
    [h.make_tensor_value_info("y", T.FLOAT, (1, 32, 14, 14))],
    [nh.from_array(w, "w"), nh.from_array(b, "b")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "conv.onnx"))
