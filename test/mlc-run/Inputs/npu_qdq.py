# Writes a QDQ model as ONNX Runtime's quantizer writes them (uint8
# activations with a zero point, int8 weights with a zero point of 0: per
# output channel for the Conv, per tensor for the MatMul) into the folder
# argv[1], its uint8 input, and its outputs computed with NumPy from the
# integers: sa * sw * sum((qa - za) * qw) (+ bias), which an integer matrix
# unit computes exactly.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
qx = rng.randint(0, 256, size=(1, 8, 12, 12)).astype(np.uint8)
sx, zx = np.float32(0.02), np.uint8(131)
wc = rng.randint(-127, 128, size=(32, 8, 3, 3)).astype(np.int8)
swc = (rng.rand(32) * 0.01 + 0.001).astype(np.float32)
bias = rng.randn(32).astype(np.float32)
wm = rng.randint(-127, 128, size=(144, 64)).astype(np.int8)
swm = np.float32(0.003)
np.save(os.path.join(out, "qx.npy"), qx)

a = qx.astype(np.int64) - int(zx)
# Conv, pad 1, stride 1: out[f, y, x] = sum a[c, y+i-1, x+j-1] w[f, c, i, j]
padded = np.pad(a[0], ((0, 0), (1, 1), (1, 1)))
acc = np.zeros((32, 12, 12), np.int64)
for i in range(3):
    for j in range(3):
        acc += np.einsum("chw,fc->fhw", padded[:, i:i + 12, j:j + 12],
                         wc[:, :, i, j].astype(np.int64))
conv = (acc * (np.float64(sx) * swc.astype(np.float64))[:, None, None]
        + bias[:, None, None])
np.save(os.path.join(out, "conv.ref.npy"), conv[None].astype(np.float32))
# MatMul of the same activations viewed as [8 * 18, ...]: [8, 144] x [144, 64]
rows = a.reshape(8, 144)
mm = (rows @ wm.astype(np.int64)) * (np.float64(sx) * np.float64(swm))
np.save(os.path.join(out, "matmul.ref.npy"), mm.astype(np.float32))

nodes = [
    h.make_node("DequantizeLinear", ["qx", "sx", "zx"], ["x"], name="dq_x"),
    h.make_node("DequantizeLinear", ["wc_q", "swc", "zwc"], ["wc"], axis=0,
                name="dq_wc"),
    h.make_node("Conv", ["x", "wc", "bias"], ["conv"], pads=[1, 1, 1, 1],
                name="conv"),
    h.make_node("Reshape", ["x", "rows_shape"], ["rows"], name="rows"),
    h.make_node("DequantizeLinear", ["wm_q", "swm", "zwm"], ["wm"],
                name="dq_wm"),
    h.make_node("MatMul", ["rows", "wm"], ["matmul"], name="matmul"),
]
inits = [nh.from_array(np.array(sx), "sx"), nh.from_array(np.array(zx), "zx"),
         nh.from_array(wc, "wc_q"), nh.from_array(swc, "swc"),
         nh.from_array(np.zeros(32, np.int8), "zwc"),
         nh.from_array(bias, "bias"),
         nh.from_array(np.array([8, 144], np.int64), "rows_shape"),
         nh.from_array(wm, "wm_q"), nh.from_array(np.array(swm), "swm"),
         nh.from_array(np.array(0, np.int8), "zwm")]
graph = h.make_graph(
    nodes, "qdq",
    [h.make_tensor_value_info("qx", T.UINT8, [1, 8, 12, 12])],
    [h.make_tensor_value_info("conv", T.FLOAT, [1, 32, 12, 12]),
     h.make_tensor_value_info("matmul", T.FLOAT, [8, 64])], inits)
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "qdq.onnx"))
