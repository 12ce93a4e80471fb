# ===- test_quantize_qdq.py - models/quantize_qdq.py's QDQ form ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))

import mlc  # noqa: E402
from mlc import comparison  # noqa: E402
import quantize_qdq  # noqa: E402


def residual_block():
    """x -> Conv -> Relu -> Conv -> Add(x) -> Relu -> y: a ResNet block."""
    rng = np.random.default_rng(3)
    c = 8

    def weight(name):
        return numpy_helper.from_array(
            (rng.standard_normal((c, c, 3, 3)) * 0.2).astype(np.float32), name)

    inits = [weight("w1"), weight("w2"),
             numpy_helper.from_array(rng.standard_normal(c).astype(np.float32),
                                     "b1")]
    pads = {"pads": [1, 1, 1, 1]}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                              **pads),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2",
                              **pads),
             helper.make_node("Add", ["c2", "x"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["y"], name="relu2")]
    shape = [1, c, 10, 10]
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                       shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


class QuantizeQDQTest(unittest.TestCase):
    def test_residual_block_form_and_values(self):
        model, count = quantize_qdq.quantize(residual_block(), 2, 0)
        self.assertEqual(count, 3)  # two Convs and the Add
        nodes = {n.name: n for n in model.graph.node}
        producer = {o: n for n in model.graph.node for o in n.output}
        # relu1 is folded into conv1's QuantizeLinear; relu2 stays, its input
        # being a graph output's producer that is not quantized.
        self.assertNotIn("relu1", nodes)
        self.assertEqual(nodes["conv1"].output[0], "r1")
        q = producer["r1_q"]
        self.assertEqual(q.op_type, "QuantizeLinear")
        zero = {t.name: t for t in model.graph.initializer}["r1_zero"]
        self.assertEqual(int(numpy_helper.to_array(zero)), 0)
        # The Add reads both inputs dequantized, and its output is quantized.
        self.assertEqual([producer[i].op_type for i in nodes["add"].input],
                         ["DequantizeLinear", "DequantizeLinear"])
        self.assertIn("s_q", producer)
        self.assertEqual(nodes["relu2"].input[0], "s_dq")
        # Every consumer of x reads its DequantizeLinear.
        self.assertEqual(nodes["conv1"].input[0], "x_dq")
        self.assertEqual(nodes["add"].input[1], "x_dq")
        onnx.checker.check_model(model)

        # mlc against ONNX Runtime running the graph as written: the same
        # 8-bit values but where a sum lands near a rounding boundary. On
        # the CPU, and on the NPU, whose vector unit requantizes both
        # convolutions (the second's QuantizeLinear no longer waits behind
        # the Add) before the CPU adds.
        scale = float(numpy_helper.to_array(
            {t.name: t for t in model.graph.initializer}["s_scale"]))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "block.onnx")
            onnx.save(model, path)
            placement = os.path.join(tmp, "all.json")
            with open(placement, "w") as f:
                f.write('{"*": "npu"}')
            inputs = {"x": np.random.default_rng(5).standard_normal(
                (1, 8, 10, 10)).astype(np.float32)}
            want = comparison.run_ort(path, inputs, "disabled")["y"]
            cpu = mlc.load(mlc.compile(
                path, output=os.path.join(tmp, "block.so"))).run(inputs)["y"]
            npu = mlc.load(mlc.compile(
                path, target="npu", npu_config="edge",
                npu_placement=placement,
                output=os.path.join(tmp, "block-npu.so")), device="npu-sim")
            got_npu = npu.run(inputs)["y"]
            stats = npu.npu_stats()
        self.assertGreater(stats["cycles"], 0)
        for got in (cpu, got_npu):
            steps = np.abs(got - want) / scale
            self.assertLessEqual(steps.max(), 1.0 + 1e-3)
            self.assertLess(np.count_nonzero(steps > 1e-3), 0.02 * steps.size)

    def test_inputs_only_form(self):
        contractions = quantize_qdq.CONTRACTIONS
        model, count = quantize_qdq.quantize(
            residual_block(), 2, 0, op_types=contractions,
            exclude_outputs=contractions)
        self.assertEqual(count, 2)
        self.assertEqual([n.op_type for n in model.graph.node].count("Relu"),
                         2)
        # Only the Convs' activations are quantized: x (read by conv1 and the
        # Add) and r1.
        quantized = sorted(n.input[0] for n in model.graph.node
                           if n.op_type == "QuantizeLinear")
        self.assertEqual(quantized, ["r1", "x"])

    def test_bad_input_is_an_error_naming_it(self):
        script = os.path.join(HERE, "..", "..", "models", "quantize_qdq.py")
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.onnx")
            with open(bad, "w") as f:
                f.write("not a model")
            model = os.path.join(tmp, "block.onnx")
            onnx.save(residual_block(), model)
            out = os.path.join(tmp, "out.onnx")
            for args, message in (
                    ([bad, out], "bad.onnx: cannot read an ONNX model"),
                    ([os.path.join(tmp, "missing.onnx"), out],
                     "missing.onnx: cannot read an ONNX model"),
                    ([model, out, "--op-types", "Conv,Softmax"],
                     "cannot quantize Softmax")):
                run = subprocess.run([sys.executable, script] + args,
                                     capture_output=True, text=True)
                self.assertEqual(run.returncode, 1)
                self.assertIn(message, run.stderr)
                self.assertNotIn("Traceback", run.stderr)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
