# Writes a two-layer perceptron (MatMul, bias Add, Relu, Gemm with a bias)
# and an input into the folder argv[1], with two references computed with
# NumPy: `exact.npy` in double, and `bf16.npy` with every matmul operand
# rounded to bf16 (to nearest even) as the NPU's matrix unit takes them, the
# products summed in double.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
x = rng.randn(96, 256).astype(np.float32)
w1 = (rng.randn(256, 320) / 16).astype(np.float32)
b1 = rng.randn(320).astype(np.float32)
w2 = (rng.randn(320, 200) / 18).astype(np.float32)
b2 = rng.randn(200).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)


def bf16(a):
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def forward(cast):
    hidden = np.maximum(cast(x) @ cast(w1) + b1, 0).astype(np.float32)
    return (cast(hidden) @ cast(w2) + b2).astype(np.float32)


np.save(os.path.join(out, "exact.npy"), forward(lambda a: a.astype(np.float64)))
np.save(os.path.join(out, "bf16.npy"), forward(bf16))

graph = h.make_graph(
    [h.make_node("MatMul", ["x", "w1"], ["xw"], name="fc1"),
     h.make_node("Add", ["xw", "b1"], ["pre"], name="bias1"),
     h.make_node("Relu", ["pre"], ["hidden"], name="relu1"),
     h.make_node("Gemm", ["hidden", "w2", "b2"], ["y"], name="fc2")],
    "mlp",
    [h.make_tensor_value_info("x", T.FLOAT, [96, 256])],
    [h.make_tensor_value_info("y", T.FLOAT, [96, 200])],
    [nh.from_array(w1, "w1"), nh.from_array(b1, "b1"),
     nh.from_array(w2, "w2"), nh.from_array(b2, "b2")])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]),
          os.path.join(out, "mlp.onnx"))
