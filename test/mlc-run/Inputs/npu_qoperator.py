# Writes a QOperator model (QLinearConv with a bias and per-channel weight
# scales, MatMulInteger, QLinearMatMul; uint8 activations with zero points,
# constant int8 weights with a zero point of 0, as ONNX Runtime's quantizer
# writes them in QOperator form) into the folder argv[1], its uint8 inputs,
# and its outputs computed with NumPy by ONNX's definitions: exact integer
# sums, requantized as saturate(round_half_even(acc * (x_scale * w_scale /
# y_scale)) + y_zero_point) with the multiplier in f32 and the product in
# f64.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(1)
x = rng.randint(0, 256, size=(1, 8, 12, 12)).astype(np.uint8)
a = rng.randint(0, 256, size=(8, 144)).astype(np.uint8)
xs, xz = np.float32(0.02), np.uint8(131)
az = np.uint8(97)
w = rng.randint(-127, 128, size=(32, 8, 3, 3)).astype(np.int8)
ws = (rng.rand(32) * 0.01 + 0.001).astype(np.float32)
bias = rng.randint(-5000, 5000, size=32).astype(np.int32)
ys, yz = np.float32(0.5), np.uint8(120)
b = rng.randint(-127, 128, size=(144, 64)).astype(np.int8)
bs = np.float32(0.003)
ms, mz = np.float32(2.0), np.uint8(128)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "a.npy"), a)


def requantize(acc, multiplier, zero):
    scaled = np.rint(acc.astype(np.float64) * multiplier.astype(np.float64))
    return np.clip(scaled + int(zero), 0, 255).astype(np.uint8)


padded = np.pad(x[0].astype(np.int64) - int(xz), ((0, 0), (1, 1), (1, 1)))
acc = np.zeros((32, 12, 12), np.int64)
for i in range(3):
    for j in range(3):
        acc += np.einsum("chw,fc->fhw", padded[:, i:i + 12, j:j + 12],
                         w[:, :, i, j].astype(np.int64))
acc += bias[:, None, None]
np.save(os.path.join(out, "conv.ref.npy"),
        requantize(acc, (xs * ws / ys)[:, None, None], yz)[None])
mm = (a.astype(np.int64) - int(az)) @ b.astype(np.int64)
np.save(os.path.join(out, "matmul_integer.ref.npy"), mm.astype(np.int32))
np.save(os.path.join(out, "qlinear_matmul.ref.npy"),
        requantize(mm, np.float32(xs * bs / ms), mz))

nodes = [
    h.make_node("QLinearConv",
                ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"],
                ["conv"], pads=[1, 1, 1, 1], name="qconv"),
    h.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["matmul_integer"],
                name="mmi"),
    h.make_node("QLinearMatMul",
                ["a", "xs", "az", "b", "bs", "bz", "ms", "mz"],
                ["qlinear_matmul"], name="qmm"),
]
inits = [nh.from_array(np.array(xs), "xs"), nh.from_array(np.array(xz), "xz"),
         nh.from_array(w, "w"), nh.from_array(ws, "ws"),
         nh.from_array(np.zeros(32, np.int8), "wz"),
         nh.from_array(np.array(ys), "ys"), nh.from_array(np.array(yz), "yz"),
         nh.from_array(bias, "bias"), nh.from_array(b, "b"),
         nh.from_array(np.array(az), "az"),
         nh.from_array(np.array(0, np.int8), "bz"),
         nh.from_array(np.array(bs), "bs"), nh.from_array(np.array(ms), "ms"),
         nh.from_array(np.array(mz), "mz")]
graph = h.make_graph(
    nodes, "qoperator",
    [h.make_tensor_value_info("x", T.UINT8, [1, 8, 12, 12]),
     h.make_tensor_value_info("a", T.UINT8, [8, 144])],
    [h.make_tensor_value_info("conv", T.UINT8, [1, 32, 12, 12]),
     h.make_tensor_value_info("matmul_integer", T.INT32, [8, 64]),
     h.make_tensor_value_info("qlinear_matmul", T.UINT8, [8, 64])], inits)
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "qoperator.onnx"))
