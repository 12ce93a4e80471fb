# Redraws a model's weights from seeds, compiles it with mlc-compile (argv
# 1, the remaining arguments its flags), and rebuilds mlc's weight file from
# the seeds and the recipe (bench/seeded_weights.py), as a GPU machine does;
# then again with one statistic changed, which the SHA-256 must catch.
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "bench"))
import seeded_weights  # noqa: E402

out = os.environ["OUT"]
rng = np.random.RandomState(0)
inits = [numpy_helper.from_array(rng.randn(*shape).astype(np.float32), name)
         for name, shape in [("w1", (16, 64)), ("b1", (64,)),
                             ("w2", (10, 64)), ("b2", (10,)), ("s", (4,))]]
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w1"], ["h"]),
     helper.make_node("Add", ["h", "b1"], ["a"]),
     helper.make_node("Relu", ["a"], ["r"]),
     helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)],
    "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
params = seeded_weights.reseed(model)
print("redrawn:", " ".join(sorted(params)))
arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer
          if t.name in params}
onnx.save(model, os.path.join(out, "m.onnx"))
subprocess.run([sys.argv[1], os.path.join(out, "m.onnx")] + sys.argv[2:] +
               ["-o", os.path.join(out, "m.so")], check=True)
blob = open(os.path.join(out, "m.weights"), "rb").read()
plan, literal = seeded_weights.recipe(blob, arrays)
print("pieces:", " ".join(f"{name}:{how}" for _, name, how in
                          sorted(plan["pieces"], key=lambda p: p[1])))
print("literal bytes:", len(literal))

stripped = seeded_weights.strip(model, params)
stripped = onnx.load_from_string(stripped.SerializeToString())
regenerated = seeded_weights.regenerate(stripped, params)
rebuilt = seeded_weights.rebuild(plan, literal, regenerated)
print("rebuilt:", rebuilt == blob, len(rebuilt), "bytes")

params["w1"][1][0] += 1.0
try:
    seeded_weights.rebuild(plan, literal,
                           seeded_weights.regenerate(stripped, params))
except ValueError as e:
    print("changed:", e)
