# Writes a model whose inputs keep a symbolic dim other than a batch
# (`n`, shared by both inputs), inputs at two sizes and NumPy's results
# into the folder argv[1]:
#   y = Relu(a) + b * 2        a, b: float32 [1, n]
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

out = sys.argv[1]
graph = h.make_graph(
    [h.make_node("Relu", ["a"], ["r"]),
     h.make_node("Mul", ["b", "two"], ["b2"]),
     h.make_node("Add", ["r", "b2"], ["y"])],
    "symbolic_dims",
    [h.make_tensor_value_info("a", T.FLOAT, [1, "n"]),
     h.make_tensor_value_info("b", T.FLOAT, [1, "n"])],
    [h.make_tensor_value_info("y", T.FLOAT, [1, "n"])],
    [h.make_tensor("two", T.FLOAT, [], [2.0])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))

rng = np.random.RandomState(0)
for n in (5, 300):
    a = rng.randn(1, n).astype(np.float32)
    b = rng.randn(1, n).astype(np.float32)
    np.save(os.path.join(out, f"a{n}.npy"), a)
    np.save(os.path.join(out, f"b{n}.npy"), b)
    np.save(os.path.join(out, f"y{n}.ref.npy"), np.maximum(a, 0) + b * 2)

# An image of any size: y = AveragePool(x) (3x3, stride 2, pads 1, the pads
# not counted) and z = MaxPool(x) (2x2, stride 2), x: float32 [1, 2, h, w].
pool = h.make_graph(
    [h.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                 strides=[2, 2], pads=[1, 1, 1, 1]),
     h.make_node("MaxPool", ["x"], ["z"], kernel_shape=[2, 2],
                 strides=[2, 2])],
    "symbolic_pool",
    [h.make_tensor_value_info("x", T.FLOAT, [1, 2, "h", "w"])],
    [h.make_tensor_value_info("y", T.FLOAT, [1, 2, "oh", "ow"]),
     h.make_tensor_value_info("z", T.FLOAT, [1, 2, "ph", "pw"])])
model = h.make_model(pool, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "pool.onnx"))


def pools(x):
    _, c, hh, ww = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones_like(x), ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (hh + 2 - 3) // 2 + 1, (ww + 2 - 3) // 2 + 1
    y = np.zeros((1, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            window = (slice(None), slice(None), slice(2 * i, 2 * i + 3),
                      slice(2 * j, 2 * j + 3))
            y[:, :, i, j] = padded[window].sum((2, 3)) / ones[window].sum((2, 3))
    z = x[:, :, :hh // 2 * 2, :ww // 2 * 2].reshape(
        1, c, hh // 2, 2, ww // 2, 2).max((3, 5))
    return y, z


for hh, ww in ((7, 10), (32, 17)):
    x = rng.randn(1, 2, hh, ww).astype(np.float32)
    np.save(os.path.join(out, f"x{hh}x{ww}.npy"), x)
    y, z = pools(x)
    np.save(os.path.join(out, f"pool_y{hh}x{ww}.ref.npy"), y)
    np.save(os.path.join(out, f"pool_z{hh}x{ww}.ref.npy"), z)
