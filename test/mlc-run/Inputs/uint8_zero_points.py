# Writes MatMulInteger and QLinearMatMul models with uint8 zero points (what
# ONNX Runtime's quantizer writes by default), an input, and their outputs
# computed with NumPy by ONNX's definitions, into the folder argv[1].
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
a = rng.randint(0, 256, size=(3, 4)).astype(np.uint8)
b = rng.randint(0, 256, size=(4, 5)).astype(np.uint8)
az, bz, yz = np.uint8(3), np.uint8(128), np.uint8(7)
a_s, b_s, y_s = np.float32(0.1), np.float32(0.2), np.float32(0.5)
np.save(os.path.join(out, "a.npy"), a)

acc = (a.astype(np.int32) - az) @ (b.astype(np.int32) - bz)
np.save(os.path.join(out, "matmul_integer.ref.npy"), acc)
graph = h.make_graph(
    [h.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])], "mmi",
    [h.make_tensor_value_info("a", T.UINT8, [3, 4])],
    [h.make_tensor_value_info("y", T.INT32, [3, 5])],
    [nh.from_array(b, "b"), nh.from_array(np.array(az), "az"),
     nh.from_array(np.array(bz), "bz")])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "matmul_integer.onnx"))

# QLinearMatMul: saturate(round(acc * a_s * b_s / y_s) + yz), ties to even.
scaled = np.rint(acc.astype(np.float32) * (a_s * b_s / y_s))
np.save(os.path.join(out, "qlinear_matmul.ref.npy"),
        np.clip(scaled + yz, 0, 255).astype(np.uint8))
graph = h.make_graph(
    [h.make_node("QLinearMatMul",
                 ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])],
    "qmm", [h.make_tensor_value_info("a", T.UINT8, [3, 4])],
    [h.make_tensor_value_info("y", T.UINT8, [3, 5])],
    [nh.from_array(np.array(a_s), "as"), nh.from_array(np.array(az), "az"),
     nh.from_array(b, "b"), nh.from_array(np.array(b_s), "bs"),
     nh.from_array(np.array(bz), "bz"), nh.from_array(np.array(y_s), "ys"),
     nh.from_array(np.array(yz), "yz")])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "qlinear_matmul.onnx"))
