# ===- broadcast_run_time_dim.py - A run-time 1 against a static dim ------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   broadcast_run_time_dim.py WORKDIR
#
# Add(x: [b, 4, s, t], m: [b2, h, s2, t2]): the result's second dim is 4,
# known from x, while m's is known only at run time. Runs it with m of the
# same sizes as x (compared with NumPy's sum) and with m's second dim 1,
# which mlc does not broadcast: prints the error it reports.
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import mlc  # noqa: E402
from mlc import comparison  # noqa: E402


def main():
    work = sys.argv[1]
    path = os.path.join(work, "broadcast.onnx")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 4, "s", "t"])
    m = helper.make_tensor_value_info("m", TensorProto.FLOAT,
                                      ["b2", "h", "s2", "t2"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Add", ["x", "m"], ["y"],
                                                name="add")],
                              "broadcast", [x, m], [y])
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 14)]),
              path)
    library = mlc.load(mlc.compile(path, output=os.path.join(work,
                                                               "broadcast.so")))
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1, 4, 2, 3)).astype(np.float32)
    for what, shape in (("same sizes", (1, 4, 2, 3)),
                        ("a 1 against 4", (1, 1, 2, 3))):
        inputs = {"x": xs, "m": rng.standard_normal(shape).astype(np.float32)}
        try:
            got = library.run(inputs)["y"]
        except mlc.MLCError as error:
            print(f"{what}: error: {' '.join(str(error).split())}")
            continue
        diff = comparison.Difference("y", got, xs + inputs["m"], 1e-6)
        print(f"{what}: {'ok' if diff.ok else diff}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
