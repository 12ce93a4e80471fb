# Writes a QDQ model of residual adds, as ONNX Runtime's quantizer writes
# them (DequantizeLinear on both operands, Add, an optional Relu,
# QuantizeLinear), into the folder argv[1], with its 8-bit inputs and two
# references for each output:
#   NAME.float.npy: the graph as written, in f32 (each operand (q - z) * s,
#                   their sum, relu, divided by the result's scale, rounded
#                   to even, plus its zero point, saturated);
#   NAME.npu.npy:   the NPU's vector unit: the same, multiplied by
#                   f32(1 / scale) instead of divided.
# "add_u8" adds two uint8 tensors into uint8; "add_relu" (a uint8 and an
# int8 operand) has a Relu and a zero point of 20, so the relu is not one
# saturation does; "add_s8" adds two int8 tensors into int8 with a scale
# small enough to saturate.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
shape = (1, 8, 12, 12)
q = {"qa": rng.randint(0, 256, size=shape).astype(np.uint8),
     "qb": rng.randint(0, 256, size=shape).astype(np.uint8),
     "qc": rng.randint(-128, 128, size=shape).astype(np.int8),
     "qd": rng.randint(-128, 128, size=shape).astype(np.int8)}
params = {"qa": (0.02, 131), "qb": (0.035, 100), "qc": (0.01, -3),
          "qd": (0.05, 7)}
for name, values in q.items():
    np.save(os.path.join(out, name + ".npy"), values)

nodes, inits = [], []
deq = {}
for name, (s, z) in params.items():
    dtype = q[name].dtype
    inits += [nh.from_array(np.array(s, np.float32), "s_" + name),
              nh.from_array(np.array(z, dtype), "z_" + name)]
    nodes.append(h.make_node("DequantizeLinear",
                             [name, "s_" + name, "z_" + name], ["f_" + name],
                             name="dq_" + name))
    deq[name] = (q[name].astype(np.int32) - z).astype(np.float32) * \
        np.float32(s)

outputs = []


def chain(name, lhs, rhs, relu, so, zo, dtype):
    total = name + "_sum"
    nodes.append(h.make_node("Add", ["f_" + lhs, "f_" + rhs], [total],
                             name=name))
    y = deq[lhs] + deq[rhs]
    if relu:
        nodes.append(h.make_node("Relu", [total], [name + "_relu"],
                                 name=name + "_r"))
        total = name + "_relu"
        y = np.maximum(y, np.float32(0))
    inits.extend([nh.from_array(np.array(so, np.float32), "so_" + name),
                  nh.from_array(np.array(zo, dtype), "zo_" + name)])
    nodes.append(h.make_node("QuantizeLinear",
                             [total, "so_" + name, "zo_" + name], [name],
                             name=name + "_q"))
    info = np.iinfo(dtype)
    for kind, scaled in (("float", y / np.float32(so)),
                         ("npu", y * np.float32(1 / np.float32(so)))):
        r = np.clip(np.rint(scaled).astype(np.int64) + zo, info.min, info.max)
        np.save(os.path.join(out, f"{name}.{kind}.npy"), r.astype(dtype))
    outputs.append(h.make_tensor_value_info(
        name, T.UINT8 if dtype == np.uint8 else T.INT8, shape))


chain("add_u8", "qa", "qb", False, 0.04, 120, np.uint8)
chain("add_relu", "qb", "qc", True, 0.03, 20, np.uint8)
chain("add_s8", "qc", "qd", False, 0.02, -5, np.int8)
inputs = [h.make_tensor_value_info(n, T.UINT8 if v.dtype == np.uint8
                                   else T.INT8, shape) for n, v in q.items()]
graph = h.make_graph(nodes, "residual", inputs, outputs, inits)
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "residual.onnx"))
