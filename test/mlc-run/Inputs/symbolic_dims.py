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
