# Writes a QDQ model whose convolutions' results only go through a bias, a
# Relu or Clip and a QuantizeLinear (uint8), as ONNX Runtime's quantizer
# writes Conv -> Relu -> QuantizeLinear, into the folder argv[1], with its
# uint8 input and two references for each uint8 output:
#   NAME.float.npy: the graph as written, in float (the bias added to the
#                   exact sums scaled back, then relu/clip, then quantized);
#   NAME.npu.npy:   the NPU's integer form: the sums plus round(b / (sa sw)),
#                   relu on them, each column scaled by f32(sa sw / so),
#                   rounded to even, plus the zero point, saturated.
# The outputs "relu" (Conv, Relu), "relu_zp" (the same quantized with a zero
# point of 20: the relu runs on the sums) and "relu6" (Conv, Clip(0, 6) whose
# QuantizeLinear's range ends below 6) and "gemm" (a Reshape of the input,
# Gemm with transB and a bias, Relu) can be requantized on the NPU; "clip1"
# (Clip(0, 1), inside that range) cannot.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
qx = rng.randint(0, 256, size=(1, 8, 12, 12)).astype(np.uint8)
sx, zx = np.float32(0.02), np.uint8(131)
np.save(os.path.join(out, "qx.npy"), qx)
a = qx.astype(np.int64) - int(zx)
padded = np.pad(a[0], ((0, 0), (1, 1), (1, 1)))

nodes = [h.make_node("DequantizeLinear", ["qx", "sx", "zx"], ["x"],
                     name="dq_x")]
inits = [nh.from_array(np.array(sx), "sx"), nh.from_array(np.array(zx), "zx")]
outputs = []


def chain(name, clip, so, zo):
    """Conv (pad 1, per-channel int8 weights, a bias) -> clip -> uint8."""
    w = rng.randint(-127, 128, size=(32, 8, 3, 3)).astype(np.int8)
    sw = (rng.rand(32) * 0.004 + 0.001).astype(np.float32)
    b = (rng.randn(32) * 2).astype(np.float32)
    acc = np.zeros((32, 12, 12), np.int64)
    for i in range(3):
        for j in range(3):
            acc += np.einsum("chw,fc->fhw", padded[:, i:i + 12, j:j + 12],
                             w[:, :, i, j].astype(np.int64))
    unit = np.float64(sx) * sw.astype(np.float64)
    lo, hi = clip
    # As written.
    y = acc * unit[:, None, None] + b[:, None, None]
    y = np.clip(y, lo, hi)
    q = np.clip(np.rint(y / np.float64(so)) + zo, 0, 255)
    np.save(os.path.join(out, name + ".float.npy"), q[None].astype(np.uint8))
    # The NPU's integers.
    start = acc + np.rint(b.astype(np.float64) / unit)[:, None, None]
    if lo == 0 and zo > 0:  # with zero point 0, saturation is the relu
        start = np.maximum(start, 0)
    scale = (unit / np.float64(so)).astype(np.float32)
    p = np.rint(start.astype(np.float32) * scale[:, None, None]) + zo
    np.save(os.path.join(out, name + ".npu.npy"),
            np.clip(p, 0, 255)[None].astype(np.uint8))

    nodes.extend([
        h.make_node("DequantizeLinear", [name + "_wq", name + "_sw",
                                         name + "_zw"], [name + "_w"],
                    axis=0, name=name + "_dq_w"),
        h.make_node("Conv", ["x", name + "_w", name + "_b"], [name + "_conv"],
                    pads=[1, 1, 1, 1], name=name),
        h.make_node("Relu", [name + "_conv"], [name + "_y"],
                    name=name + "_relu") if np.isinf(hi) else
        h.make_node("Clip", [name + "_conv", name + "_lo", name + "_hi"],
                    [name + "_y"], name=name + "_clip"),
        h.make_node("QuantizeLinear", [name + "_y", name + "_so",
                                       name + "_zo"], [name], name=name + "_q"),
    ])
    inits.extend([
        nh.from_array(w, name + "_wq"), nh.from_array(sw, name + "_sw"),
        nh.from_array(np.zeros(32, np.int8), name + "_zw"),
        nh.from_array(b, name + "_b"),
        nh.from_array(np.array(lo, np.float32), name + "_lo"),
        nh.from_array(np.array(hi, np.float32), name + "_hi"),
        nh.from_array(np.array(so, np.float32), name + "_so"),
        nh.from_array(np.array(zo, np.uint8), name + "_zo")])
    outputs.append(h.make_tensor_value_info(name, T.UINT8, [1, 32, 12, 12]))


def gemm(name, so, zo):
    """x as [8, 144] -> Gemm (int8 weights [32, 144], transB, per-tensor
    scale, a bias) -> Relu -> uint8."""
    w = rng.randint(-127, 128, size=(32, 144)).astype(np.int8)
    sw = np.float32(0.002)
    b = (rng.randn(32) * 2).astype(np.float32)
    acc = a.reshape(8, 144) @ w.T.astype(np.int64)
    unit = np.float64(sx) * np.float64(sw)
    y = np.maximum(acc * unit + b, 0)
    q = np.clip(np.rint(y / np.float64(so)) + zo, 0, 255)
    np.save(os.path.join(out, name + ".float.npy"), q.astype(np.uint8))
    start = np.maximum(acc + np.rint(b.astype(np.float64) / unit), 0)
    scale = np.float32(unit / np.float64(so))
    p = np.rint(start.astype(np.float32) * scale) + zo
    np.save(os.path.join(out, name + ".npu.npy"),
            np.clip(p, 0, 255).astype(np.uint8))
    nodes.extend([
        h.make_node("Reshape", ["x", "rows_shape"], [name + "_rows"],
                    name=name + "_reshape"),
        h.make_node("DequantizeLinear", [name + "_wq", name + "_sw",
                                         name + "_zw"], [name + "_w"],
                    name=name + "_dq_w"),
        h.make_node("Gemm", [name + "_rows", name + "_w", name + "_b"],
                    [name + "_mm"], transB=1, name=name),
        h.make_node("Relu", [name + "_mm"], [name + "_y"],
                    name=name + "_relu"),
        h.make_node("QuantizeLinear", [name + "_y", name + "_so",
                                       name + "_zo"], [name], name=name + "_q"),
    ])
    inits.extend([
        nh.from_array(np.array([8, 144], np.int64), "rows_shape"),
        nh.from_array(w, name + "_wq"), nh.from_array(np.array(sw), name + "_sw"),
        nh.from_array(np.array(0, np.int8), name + "_zw"),
        nh.from_array(b, name + "_b"),
        nh.from_array(np.array(so, np.float32), name + "_so"),
        nh.from_array(np.array(zo, np.uint8), name + "_zo")])
    outputs.append(h.make_tensor_value_info(name, T.UINT8, [8, 32]))


chain("relu", (0, np.float32(np.inf)), 0.05, 0)
chain("relu_zp", (0, np.float32(np.inf)), 0.05, 20)
chain("relu6", (0, 6), 0.02, 0)
chain("clip1", (0, 1), 0.02, 0)
gemm("gemm", 0.05, 10)
graph = h.make_graph(
    nodes, "requantize",
    [h.make_tensor_value_info("qx", T.UINT8, [1, 8, 12, 12])], outputs, inits)
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          os.path.join(out, "requantize.onnx"))
