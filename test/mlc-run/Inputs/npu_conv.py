# Writes two convolutions (3x3, pad 1, a bias) each followed by a Relu, and
# their inputs, into the folder argv[1], with two references for each
# computed with NumPy: `NAME.exact.npy` in double, and `NAME.bf16.npy` as
# the large NPU computes it: the input and filter rounded to bf16 (to
# nearest even), the sums rounded to bf16 as they leave the NPU, then the
# bias and the relu in f32. "conv" (16 channels of 14x14) goes to the NPU
# through im2col; "wide" (64 channels of 28x28, whose im2col matrix would
# be 9 times its input) as a direct convolution.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)


def bf16(a):
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def conv(xs, ws):
    c, size = xs.shape[1], xs.shape[2]
    padded = np.pad(xs[0], ((0, 0), (1, 1), (1, 1)))
    acc = np.zeros((ws.shape[0], size, size))
    for i in range(3):
        for j in range(3):
            acc += np.einsum("chw,fc->fhw",
                             padded[:, i:i + size, j:j + size],
                             ws[:, :, i, j])
    return acc[None]


nodes, inputs, outputs, inits = [], [], [], []
for name, channels, size, filters in (("conv", 16, 14, 32),
                                      ("wide", 64, 28, 64)):
    x = rng.randn(1, channels, size, size).astype(np.float32)
    w = (rng.randn(filters, channels, 3, 3) /
         np.sqrt(9 * channels)).astype(np.float32)
    b = rng.randn(filters).astype(np.float32)
    np.save(os.path.join(out, name + ".x.npy"), x)
    bias = b.astype(np.float64)[None, :, None, None]
    exact = np.maximum(conv(x.astype(np.float64), w.astype(np.float64)) +
                       bias, 0)
    np.save(os.path.join(out, name + ".exact.npy"), exact.astype(np.float32))
    emulated = np.maximum(bf16(conv(bf16(x), bf16(w))) + bias, 0)
    np.save(os.path.join(out, name + ".bf16.npy"),
            emulated.astype(np.float32))
    nodes += [h.make_node("Conv", [name + "_x", name + "_w", name + "_b"],
                          [name + "_c"], name=name, pads=[1] * 4),
              h.make_node("Relu", [name + "_c"], [name], name=name + "_relu")]
    inputs.append(h.make_tensor_value_info(name + "_x", T.FLOAT, x.shape))
    outputs.append(h.make_tensor_value_info(name, T.FLOAT,
                                            (1, filters, size, size)))
    inits += [nh.from_array(w, name + "_w"), nh.from_array(b, name + "_b")]

graph = h.make_graph(nodes, "conv", inputs, outputs, inits)
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "conv.onnx"))
