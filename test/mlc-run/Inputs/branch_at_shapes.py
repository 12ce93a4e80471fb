# Writes a model whose If has a branch that cannot run at the shapes it is
# compiled for (as exporters guard code for other sample rates: Silero
# VAD's If on `sr`), its inputs and NumPy's result for the branch that can,
# into the folder argv[1].
#   y = x * 2                              when sr == 16000
#   y = Squeeze(Reshape(x, [1, -1, 256]), axes=[1])   otherwise,
# which type-checks only when x has 256 samples; at n = 512 dim 1 is 2.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

out = sys.argv[1]
then_graph = h.make_graph(
    [h.make_node("Mul", ["x", "two"], ["y_then"])], "then", [],
    [h.make_tensor_value_info("y_then", T.FLOAT, [1, "n"])])
else_graph = h.make_graph(
    [h.make_node("Reshape", ["x", "shape3"], ["r"]),
     h.make_node("Squeeze", ["r", "axis1"], ["y_else"], name="squeeze_8k")],
    "else", [], [h.make_tensor_value_info("y_else", T.FLOAT, [1, 256])])
graph = h.make_graph(
    [h.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
     h.make_node("If", ["is16k"], ["y"], name="if_sample_rate",
                 then_branch=then_graph, else_branch=else_graph)],
    "branch_at_shapes",
    [h.make_tensor_value_info("x", T.FLOAT, [1, "n"]),
     h.make_tensor_value_info("sr", T.INT64, [])],
    [h.make_tensor_value_info("y", T.FLOAT, [1, "n"])],
    [h.make_tensor("sr16k", T.INT64, [], [16000]),
     h.make_tensor("axis1", T.INT64, [1], [1]),
     h.make_tensor("shape3", T.INT64, [3], [1, -1, 256]),
     h.make_tensor("two", T.FLOAT, [], [2.0])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "branch.onnx"))

x = np.random.RandomState(0).rand(1, 512).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "sr16k.npy"), np.array(16000, np.int64))
np.save(os.path.join(out, "sr8k.npy"), np.array(8000, np.int64))
np.save(os.path.join(out, "y16k.ref.npy"), x * 2)
