# Writes a QDQ convolution (uint8 activations with a zero point of 131,
# int8 weights per output channel, optionally a bias) into the folder
# argv[1] as qconv.onnx, with its input qconv_x.npy and NumPy's result from
# the exact integer sums, qconv.ref.npy. The other arguments: channels,
# filters, image size, kernel size, pad, stride, bias (0 or 1).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
c, f, size, k, pad, stride, bias = [int(v) for v in sys.argv[2:9]]
rng = np.random.RandomState(0)
qx = rng.randint(0, 256, size=(1, c, size, size)).astype(np.uint8)
sx, zx = np.float32(0.02), np.uint8(131)
w = rng.randint(-127, 128, size=(f, c, k, k)).astype(np.int8)
sw = (rng.rand(f) * 0.004 + 0.001).astype(np.float32)
b = rng.randn(f).astype(np.float32)
inits = [nh.from_array(np.array(sx), "sx"), nh.from_array(np.array(zx), "zx"),
         nh.from_array(w, "wq"), nh.from_array(sw, "sw"),
         nh.from_array(np.zeros(f, np.int8), "zw"), nh.from_array(b, "b")]
nodes = [h.make_node("DequantizeLinear", ["qx", "sx", "zx"], ["x"]),
         h.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["w"], axis=0),
         h.make_node("Conv", ["x", "w"] + (["b"] if bias else []), ["y"],
                     pads=[pad] * 4, strides=[stride] * 2, name="conv")]
osize = (size + 2 * pad - k) // stride + 1
graph = h.make_graph(
    nodes, "conv", [h.make_tensor_value_info("qx", T.UINT8, [1, c, size, size])],
    [h.make_tensor_value_info("y", T.FLOAT, [1, f, osize, osize])], inits)
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "qconv.onnx"))
np.save(os.path.join(out, "qconv_x.npy"), qx)
a = np.pad(qx.astype(np.int64) - int(zx),
           ((0, 0), (0, 0), (pad, pad), (pad, pad)))[0]
acc = np.zeros((f, osize, osize), np.int64)
for i in range(k):
    for j in range(k):
        window = a[:, i:i + stride * osize:stride, j:j + stride * osize:stride]
        acc += np.einsum("chw,fc->fhw", window, w[:, :, i, j].astype(np.int64))
y = acc * (np.float64(sx) * sw.astype(np.float64))[:, None, None]
if bias:
    y = y + b[:, None, None]
np.save(os.path.join(out, "qconv.ref.npy"), y[None].astype(np.float32))
