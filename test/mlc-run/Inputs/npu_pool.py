# Writes max poolings and their inputs into the folder argv[1], with each
# output computed by NumPy (the input padded with -inf, the max over each
# window; a NaN in a window wins): "stem" is ResNet's (3x3 every 2 from one
# before the first row and column), "ceil" takes ceil_mode (its last
# windows reach past the input), "asym" has a 2x3 window, steps of 1 and 2,
# pads at the top-left and bottom-right that differ, two images and a NaN,
# and "dilated" has dilations, which the NPU does not run. "gap" is a
# GlobalAveragePool, whose reference is the NPU's arithmetic emulated (each
# plane summed in f32 in row-major order, times 1 / 49 rounded to f32),
# with the mean in double beside it (gap.exact.npy). "avg" and "avg_incl"
# are AveragePools without and with count_include_pad.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

out = sys.argv[1]
rng = np.random.RandomState(0)


def max_pool(x, kernel, strides, pads, out_shape, dilations=(1, 1)):
    n, c, _, _ = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2] + 8),
                        (pads[1], pads[3] + 8)), constant_values=-np.inf)
    y = np.empty((n, c) + tuple(out_shape), np.float32)
    for i in range(out_shape[0]):
        for j in range(out_shape[1]):
            r, s = i * strides[0], j * strides[1]
            window = padded[:, :, r:r + dilations[0] * (kernel[0] - 1) + 1:
                            dilations[0],
                            s:s + dilations[1] * (kernel[1] - 1) + 1:
                            dilations[1]]
            y[:, :, i, j] = window.max(axis=(2, 3))
    return y


cases = [
    # name, input shape, attributes, output spatial shape
    ("stem", (1, 16, 28, 28),
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), (14, 14)),
    ("ceil", (1, 8, 16, 16),
     dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), (8, 8)),
    ("asym", (2, 3, 9, 10),
     dict(kernel_shape=[2, 3], strides=[1, 2], pads=[0, 1, 1, 0]), (9, 5)),
    ("dilated", (1, 4, 12, 12),
     dict(kernel_shape=[2, 2], strides=[1, 1], dilations=[2, 2]), (10, 10)),
]
nodes, inputs, outputs = [], [], []
for name, shape, attributes, spatial in cases:
    x = rng.randn(*shape).astype(np.float32)
    if name == "asym":
        x[1, 2, 4, 5] = np.nan
    np.save(os.path.join(out, name + ".x.npy"), x)
    y = max_pool(x, attributes["kernel_shape"], attributes["strides"],
                 attributes.get("pads", [0, 0, 0, 0]), spatial,
                 attributes.get("dilations", (1, 1)))
    np.save(os.path.join(out, name + ".ref.npy"), y)
    nodes.append(h.make_node("MaxPool", [name + "_x"], [name], name=name,
                             **attributes))
    inputs.append(h.make_tensor_value_info(name + "_x", T.FLOAT, shape))
    outputs.append(h.make_tensor_value_info(name, T.FLOAT,
                                            shape[:2] + spatial))

x = rng.randn(1, 32, 7, 7).astype(np.float32)
np.save(os.path.join(out, "gap.x.npy"), x)
planes = x.reshape(1, 32, 49)
sums = np.cumsum(planes, axis=2, dtype=np.float32)[:, :, -1]
np.save(os.path.join(out, "gap.ref.npy"),
        (sums * np.float32(1.0 / 49)).reshape(1, 32, 1, 1))
np.save(os.path.join(out, "gap.exact.npy"),
        planes.astype(np.float64).mean(axis=2).reshape(1, 32, 1, 1))
nodes.append(h.make_node("GlobalAveragePool", ["gap_x"], ["gap"], name="gap"))
inputs.append(h.make_tensor_value_info("gap_x", T.FLOAT, x.shape))
outputs.append(h.make_tensor_value_info("gap", T.FLOAT, (1, 32, 1, 1)))

# AveragePool 3x3 every 2 from one before: "avg" without count_include_pad
# (each window's mean over the input's elements in it; the reference is the
# NPU's arithmetic emulated: the f32 sum in row-major order times the
# reciprocal of the count rounded to f32), "avg_incl" with it (the CPU's).
for name, include in (("avg", 0), ("avg_incl", 1)):
    x = rng.randn(1, 8, 15, 15).astype(np.float32)
    np.save(os.path.join(out, name + ".x.npy"), x)
    y = np.empty((1, 8, 8, 8), np.float32)
    exact = np.empty((1, 8, 8, 8))
    for i in range(8):
        for j in range(8):
            r0, r1 = max(2 * i - 1, 0), min(2 * i + 2, 15)
            c0, c1 = max(2 * j - 1, 0), min(2 * j + 2, 15)
            window = x[0, :, r0:r1, c0:c1].reshape(8, -1)
            count = window.shape[1] if not include else 9
            sums = np.cumsum(window, axis=1, dtype=np.float32)[:, -1]
            y[0, :, i, j] = sums * np.float32(1.0 / count)
            exact[0, :, i, j] = window.astype(np.float64).sum(axis=1) / count
    np.save(os.path.join(out, name + ".ref.npy"), y)
    np.save(os.path.join(out, name + ".exact.npy"), exact)
    nodes.append(h.make_node("AveragePool", [name + "_x"], [name], name=name,
                             kernel_shape=[3, 3], strides=[2, 2],
                             pads=[1, 1, 1, 1], count_include_pad=include))
    inputs.append(h.make_tensor_value_info(name + "_x", T.FLOAT, x.shape))
    outputs.append(h.make_tensor_value_info(name, T.FLOAT, (1, 8, 8, 8)))

graph = h.make_graph(nodes, "pool", inputs, outputs)
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "pool.onnx"))
