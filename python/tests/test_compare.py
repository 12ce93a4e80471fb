# ===- test_compare.py - Comparing with a reference, finding the bad node -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mlc  # noqa: E402
from mlc import comparison as compare  # noqa: E402

NODE = "/usr/share/libonnx-testdata/data/node"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def chain_model():
    """x -> MatMul -> Add -> Relu -> Mul -> Tanh -> y, with named nodes."""
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b"),
             numpy_helper.from_array(np.full(8, 0.5, np.float32), "c")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h0"], name="mm"),
             helper.make_node("Add", ["h0", "b"], ["h1"], name="bias"),
             helper.make_node("Relu", ["h1"], ["h2"], name="act"),
             helper.make_node("Mul", ["h2", "c"], ["h3"], name="scale"),
             helper.make_node("Tanh", ["h3"], ["y"], name="squash")]
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def numpy_reference(relu_slope):
    """A reference that evaluates the chain in numpy; with relu_slope != 0
    its Relu is wrong (leaky), so every value from node 'act' on departs."""
    def run(model, inputs):
        values = dict(inputs)
        for init in model.graph.initializer:
            values[init.name] = numpy_helper.to_array(init)
        for node in model.graph.node:
            a = [values[i] for i in node.input]
            if node.op_type == "MatMul":
                out = a[0] @ a[1]
            elif node.op_type == "Add":
                out = a[0] + a[1]
            elif node.op_type == "Relu":
                out = np.where(a[0] > 0, a[0], relu_slope * a[0])
            elif node.op_type == "Mul":
                out = a[0] * a[1]
            else:
                out = np.tanh(a[0])
            values[node.output[0]] = out.astype(np.float32)
        return {o.name: values[o.name] for o in model.graph.output}
    return run


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_stored_outputs(self):
        test = os.path.join(NODE, "test_softmax_axis_1")
        result = compare.compare(os.path.join(test, "model.onnx"),
                                 reference=os.path.join(test, "test_data_set_0"))
        self.assertTrue(result.ok, result.report())
        # The same outputs, one value changed: found.
        bad = os.path.join(self.tmp, "bad")
        shutil.copytree(os.path.join(test, "test_data_set_0"), bad)
        tensor = TensorProto()
        with open(os.path.join(bad, "output_0.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        array = numpy_helper.to_array(tensor).copy()
        array.flat[7] += 0.01
        with open(os.path.join(bad, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, tensor.name).SerializeToString())
        result = compare.compare(os.path.join(test, "model.onnx"), reference=bad)
        self.assertFalse(result.ok)
        self.assertIn("DIFFERS", result.report())

    def test_models_compiled_for_the_npu_run_in_its_simulator(self):
        test = os.path.join(NODE, "test_gemm_default_matrix_bias")
        placement = os.path.join(self.tmp, "all-on-npu.json")
        with open(placement, "w") as f:
            f.write('{"*": "npu"}')
        # bf16 operands: within a percent of the stored f32 outputs.
        result = compare.compare(os.path.join(test, "model.onnx"),
                                 reference=os.path.join(test,
                                                        "test_data_set_0"),
                                 tolerance=1e-2, target="npu",
                                 npu_config="large", npu_placement=placement)
        self.assertTrue(result.ok, result.report())

    def test_bisect_names_the_first_wrong_node(self):
        path = os.path.join(self.tmp, "chain.onnx")
        onnx.save(chain_model(), path)
        good = compare.compare(path, reference=numpy_reference(0.0))
        self.assertTrue(good.ok, good.report())
        result = compare.compare(path, reference=numpy_reference(0.1),
                                 bisect=True)
        self.assertFalse(result.ok)
        value, node, op, diff = result.first_bad
        self.assertEqual((value, node, op), ("h2", "act", "Relu"))
        self.assertIn("first value that departs: 'h2', output of node 'act' (Relu)",
                      result.report())
        # Binary search: fewer probes than values.
        self.assertLess(len(result.probes), 5)

    def test_command_lines(self):
        test = os.path.join(NODE, "test_relu")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        ok = subprocess.run([sys.executable, "-m", "mlc", "compare",
                             os.path.join(test, "model.onnx"), "--reference",
                             os.path.join(test, "test_data_set_0")],
                            env=env, capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("y: ok", ok.stdout)
        mlc_run = mlc.find_tool("mlc-run")
        run = subprocess.run([mlc_run, os.path.join(test, "model.onnx"),
                              "--compare-with",
                              os.path.join(test, "test_data_set_0")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("y: ok", run.stdout)
        bad = subprocess.run([mlc_run, os.path.join(test, "model.onnx"),
                              "--bisect"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("--bisect and --tolerance go with --compare-with",
                      bad.stderr)

    @unittest.skipUnless(compare.ort_available(),
                         "onnxruntime-node is not installed (cd bench && npm "
                         "install --ignore-scripts)")
    def test_sizes_decided_at_run_time_match_onnx_runtime(self):
        # NonMaxSuppression over 2 x 200 random boxes in 3 classes (corner
        # and center formats), and TopK with k read at run time feeding
        # NonZero: outputs whose sizes the data decides, against ONNX
        # Runtime on the same inputs.
        rng = np.random.default_rng(7)
        for center in (0, 1):
            graph = helper.make_graph(
                [helper.make_node("NonMaxSuppression",
                                  ["boxes", "scores", "m", "iou", "st"],
                                  ["selected"], center_point_box=center)],
                "nms",
                [helper.make_tensor_value_info("boxes", TensorProto.FLOAT,
                                               [2, 200, 4]),
                 helper.make_tensor_value_info("scores", TensorProto.FLOAT,
                                               [2, 3, 200])],
                [helper.make_tensor_value_info("selected", TensorProto.INT64,
                                               None)],
                [helper.make_tensor("m", TensorProto.INT64, [1], [20]),
                 helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.45]),
                 helper.make_tensor("st", TensorProto.FLOAT, [1], [0.2])])
            path = os.path.join(self.tmp, f"nms{center}.onnx")
            onnx.save(helper.make_model(
                graph, opset_imports=[helper.make_opsetid("", 13)]), path)
            corner = rng.uniform(0, 100, (2, 200, 2)).astype(np.float32)
            size = rng.uniform(5, 30, (2, 200, 2)).astype(np.float32)
            boxes = np.concatenate([corner, size if center else corner + size],
                                   -1)
            scores = rng.uniform(0, 1, (2, 3, 200)).astype(np.float32)
            inputs = {"boxes": boxes, "scores": scores}
            lib = os.path.join(self.tmp, f"nms{center}.so")
            subprocess.run([mlc.find_tool("mlc-compile"), path, "-o", lib],
                           check=True, capture_output=True)
            got = mlc.load(lib).run(inputs)["selected"]
            ref = compare.run_ort(path, inputs)["selected"]
            self.assertGreater(len(ref), 50)
            np.testing.assert_array_equal(got, ref)
        graph = helper.make_graph(
            [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
             helper.make_node("Greater", ["v", "half"], ["big"]),
             helper.make_node("NonZero", ["big"], ["where"])],
            "topk", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                   [4, 50]),
                     helper.make_tensor_value_info("k", TensorProto.INT64,
                                                   [1])],
            [helper.make_tensor_value_info("v", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("i", TensorProto.INT64, None),
             helper.make_tensor_value_info("where", TensorProto.INT64, None)],
            [helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])])
        path = os.path.join(self.tmp, "topk.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 13)]), path)
        lib = os.path.join(self.tmp, "topk.so")
        subprocess.run([mlc.find_tool("mlc-compile"), path, "-o", lib],
                       check=True, capture_output=True)
        model = mlc.load(lib)
        for k in (1, 7, 50):
            inputs = {"x": rng.uniform(0, 1, (4, 50)).astype(np.float32),
                      "k": np.array([k], np.int64)}
            got, ref = model.run(inputs), compare.run_ort(path, inputs)
            for name in ("v", "i", "where"):
                np.testing.assert_array_equal(got[name], ref[name], name)

    @unittest.skipUnless(compare.ort_available(),
                         "onnxruntime-node is not installed (cd bench && npm "
                         "install --ignore-scripts)")
    def test_onnx_runtime(self):
        result = compare.compare(os.path.join(ROOT, "models", "demo",
                                              "digits_mlp.onnx"),
                                 reference="ort", dim={"batch": 3})
        self.assertTrue(result.ok, result.report())
        # A bench model, exported by PyTorch, against ONNX Runtime.
        subprocess.run(["/usr/bin/python3",
                        os.path.join(ROOT, "models", "export_torch_models.py"),
                        self.tmp, "resnet18"], check=True, capture_output=True)
        result = compare.compare(os.path.join(self.tmp, "resnet18-opset13.onnx"),
                                 reference="ort")
        self.assertTrue(result.ok, result.report())
        self.assertEqual([d.name for d in result.outputs], ["output"])

    @unittest.skipUnless(compare.ort_available(),
                         "onnxruntime-node is not installed (cd bench && npm "
                         "install --ignore-scripts)")
    def test_bisect_finds_a_planted_wrong_lowering(self):
        # mlc-graph-test-perturb-node adds 0.5 to node 'act''s result inside
        # the compiler; against ONNX Runtime, bisect must name that node,
        # from mlc-run as from Python.
        path = os.path.join(self.tmp, "chain.onnx")
        onnx.save(chain_model(), path)
        result = compare.compare(path, reference="ort", bisect=True,
                                 testing_perturb_node="act")
        self.assertFalse(result.ok)
        self.assertEqual(result.first_bad[:3], ("h2", "act", "Relu"))
        run = subprocess.run([mlc.find_tool("mlc-run"), path,
                              "--compare-with=ort", "--bisect"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
