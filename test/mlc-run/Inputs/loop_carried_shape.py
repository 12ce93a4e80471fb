# Writes a Loop whose carried value's size is known only at run time, its
# inputs, and NumPy's result into the folder argv[1].
#   y = y + x[i : i + width]   for i in 0 .. trip_count - 1
# with `width` an input: at width 1 the carried value keeps its shape [1];
# at width 2 it would become [2], which ONNX allows but a compiled Loop
# refuses at run time, naming the node.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

out = sys.argv[1]
body = h.make_graph(
    [h.make_node("Identity", ["cond_in"], ["cond_out"]),
     h.make_node("Unsqueeze", ["i", "axis0"], ["start"]),
     h.make_node("Add", ["start", "width_in"], ["end"]),
     h.make_node("Slice", ["x", "start", "end"], ["part"]),
     h.make_node("Add", ["y_in", "part"], ["y_out"]),
     h.make_node("Identity", ["y_out"], ["scan_out"])],
    "body",
    [h.make_tensor_value_info("i", T.INT64, []),
     h.make_tensor_value_info("cond_in", T.BOOL, []),
     h.make_tensor_value_info("y_in", T.FLOAT, ["n"])],
    [h.make_tensor_value_info("cond_out", T.BOOL, []),
     h.make_tensor_value_info("y_out", T.FLOAT, ["n"]),
     h.make_tensor_value_info("scan_out", T.FLOAT, ["n"])])
graph = h.make_graph(
    [h.make_node("Identity", ["width"], ["width_in"]),
     h.make_node("Loop", ["trips", "", "y"], ["y_final", "ys"],
                 name="running_sum", body=body)],
    "loop_carried_shape",
    [h.make_tensor_value_info("trips", T.INT64, []),
     h.make_tensor_value_info("y", T.FLOAT, [1]),
     h.make_tensor_value_info("width", T.INT64, [1])],
    [h.make_tensor_value_info("y_final", T.FLOAT, ["n"]),
     h.make_tensor_value_info("ys", T.FLOAT, ["k", "n"])],
    [h.make_tensor("x", T.FLOAT, [6], [1, 2, 3, 4, 5, 6]),
     h.make_tensor("axis0", T.INT64, [1], [0])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "loop.onnx"))

np.save(os.path.join(out, "trips.npy"), np.array(4, np.int64))
np.save(os.path.join(out, "y.npy"), np.array([10], np.float32))
np.save(os.path.join(out, "width1.npy"), np.array([1], np.int64))
np.save(os.path.join(out, "width2.npy"), np.array([2], np.int64))
np.save(os.path.join(out, "y_final.ref.npy"), np.array([20], np.float32))
np.save(os.path.join(out, "ys.ref.npy"),
        np.array([[11], [13], [16], [20]], np.float32))

# A carried value that grows: z = x[0 : i + 1], from z = [0] (shape [1]).
grow_body = h.make_graph(
    [h.make_node("Identity", ["cond_in"], ["cond_out"]),
     h.make_node("Unsqueeze", ["i", "axis0"], ["last"]),
     h.make_node("Add", ["last", "one"], ["end"]),
     h.make_node("Slice", ["x", "zero", "end"], ["z_out"])],
    "grow_body",
    [h.make_tensor_value_info("i", T.INT64, []),
     h.make_tensor_value_info("cond_in", T.BOOL, []),
     h.make_tensor_value_info("z_in", T.FLOAT, ["n"])],
    [h.make_tensor_value_info("cond_out", T.BOOL, []),
     h.make_tensor_value_info("z_out", T.FLOAT, ["n"])])
grow = h.make_graph(
    [h.make_node("Loop", ["trips", "", "y"], ["z_final"], name="growing",
                 body=grow_body)],
    "loop_grows",
    [h.make_tensor_value_info("trips", T.INT64, []),
     h.make_tensor_value_info("y", T.FLOAT, [1])],
    [h.make_tensor_value_info("z_final", T.FLOAT, ["n"])],
    [h.make_tensor("x", T.FLOAT, [6], [1, 2, 3, 4, 5, 6]),
     h.make_tensor("axis0", T.INT64, [1], [0]),
     h.make_tensor("zero", T.INT64, [1], [0]),
     h.make_tensor("one", T.INT64, [1], [1])])
model = h.make_model(grow, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "grow.onnx"))
np.save(os.path.join(out, "trips1.npy"), np.array(1, np.int64))
