# ===- test_compiler.py - Compiling models from Python --------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #

import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mlc  # noqa: E402

DEMO = os.path.join(os.path.dirname(__file__), "..", "..", "models", "demo")
MODEL = os.path.join(DEMO, "digits_mlp.onnx")


class CompilerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(DEMO, "digits_samples.json")) as f:
            samples = json.load(f)
        cls.images = np.array(samples["images"], np.float32)
        # scikit-learn's probabilities for the same images.
        cls.reference = np.array(samples["probabilities"], np.float32)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def check_demo(self, path):
        probabilities = mlc.load(path).run([self.images])["probabilities"]
        np.testing.assert_allclose(probabilities, self.reference, atol=1e-4)

    def test_from_path_bytes_and_proto(self):
        self.check_demo(mlc.compile(MODEL, output=self.out("path.so"),
                                    dim={"batch": 8}))
        with open(MODEL, "rb") as f:
            data = f.read()
        self.check_demo(mlc.compile(data, output=self.out("bytes.so"),
                                    dim=["batch=8"], parallel=False))
        proto = onnx.load(MODEL)
        path = mlc.compile(proto, output=self.out("proto.so"),
                           shape={"image": [8, 64]})
        self.assertEqual(mlc.load(path).name, "proto")
        self.check_demo(path)

    def test_default_output_and_artifacts(self):
        path = mlc.compile(MODEL, dim={"batch": 8})
        self.assertTrue(path.endswith("model.so") and os.path.exists(path))
        self.check_demo(path)
        obj = mlc.compile(MODEL, output=self.out("digits.o"), dim={"batch": 8},
                          weights="external")
        for ext in (".o", ".h", ".weights"):
            self.assertTrue(os.path.exists(self.out("digits" + ext)), ext)
        with open(self.out("digits.h")) as f:
            self.assertIn("digits_run_with_weights", f.read())
        self.assertEqual(obj, self.out("digits.o"))
        ir = mlc.compile(MODEL, output=self.out("graph.mlir"),
                         dim={"batch": 8}, emit="graph")
        with open(ir) as f:
            self.assertIn("mlc_graph.", f.read())

    def test_errors_carry_diagnostics(self):
        with self.assertRaises(mlc.MLCError) as e:
            mlc.compile(b"\x08\x07\x12\x03abc\xff", output=self.out("bad.so"))
        self.assertIn("model.onnx", e.exception.diagnostics)
        with self.assertRaises(mlc.MLCError) as e:
            mlc.compile(MODEL, output=self.out("x.so"), no_such_flag=1)
        self.assertIn("unknown option 'no-such-flag'", e.exception.diagnostics)
        # A symbolic dim that is not a batch stays symbolic on the CPU; the
        # NPU target needs it pinned.
        relu = helper.make_model(helper.make_graph(
            [helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "n"])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, "n"])]),
            opset_imports=[helper.make_opsetid("", 17)])
        m = mlc.load(mlc.compile(relu, output=self.out("n.so")))
        self.assertEqual(m.symbols, ["n"])
        for n in (3, 70):
            x = np.linspace(-1, 1, 2 * n, dtype=np.float32).reshape(2, n)
            np.testing.assert_array_equal(m.run([x])["y"], np.maximum(x, 0))
        with self.assertRaises(mlc.MLCError) as e:
            mlc.compile(relu, output=self.out("x.so"), target="npu")
        self.assertIn("--dim n=N", e.exception.diagnostics)
        # An op the importer does not know, named with its node.
        node = helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery")
        graph = helper.make_graph(
            [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        with self.assertRaises(mlc.MLCError) as e:
            mlc.compile(model, output=self.out("x.so"))
        self.assertIn("mystery", e.exception.diagnostics)
        self.assertIn("NoSuchOp", e.exception.diagnostics)
        self.assertFalse(os.path.exists(self.out("x.so")))

    def test_in_memory_timings_and_progress(self):
        seen = []
        artifacts = mlc.compile_to_memory(MODEL, dim={"batch": 8},
                                          progress=seen.append)
        self.assertIsNone(artifacts.path)
        self.assertEqual(artifacts.object[:4], b"\x7fELF")
        self.assertIn("int32_t main_run(", artifacts.header)
        self.assertEqual([t[0] for t in artifacts.timings],
                         ["import", "graph", "loop", "kernels", "llvm",
                          "object"])
        self.assertTrue(all(s >= 0 and peak > 0
                            for _, s, peak in artifacts.timings))
        # Every pass reported, in order, then code generation.
        self.assertEqual(seen[0]["phase"], "graph")
        self.assertEqual(seen[0]["pass"], 1)
        self.assertEqual(seen[-1]["pass_name"], "LLVM code generation")
        passes = [at["pass"] for at in seen if at["passes"]]
        self.assertEqual(passes, sorted(passes))
        self.assertLessEqual(max(passes), seen[0]["passes"])
        self.assertGreater(max(passes), seen[0]["passes"] // 2)
        graph = mlc.compile_to_memory(MODEL, dim={"batch": 8}, emit="graph")
        self.assertIn("mlc_graph.", graph.ir)
        self.assertEqual(graph.object, b"")
        with self.assertRaises(mlc.MLCError):
            mlc.compile_to_memory(b"junk")

    def test_check_support(self):
        supported, report = mlc.check_support(MODEL)
        self.assertTrue(supported)
        self.assertIn("Gemm", report)

    def test_command_line(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.join(os.path.dirname(__file__), "..")
        lib = self.out("cli.so")
        subprocess.run([sys.executable, "-m", "mlc", "compile", MODEL, "-o", lib,
                        "--dim", "batch=8", "--parallel=false"], check=True,
                       env=env, capture_output=True)
        np.save(self.out("images.npy"), self.images)
        run = subprocess.run([sys.executable, "-m", "mlc", "run", lib, "-i",
                              self.out("images.npy"), "-o", self.out("cli")],
                             check=True, env=env, capture_output=True, text=True)
        self.assertIn("probabilities: float32 [8, 10]", run.stdout)
        np.testing.assert_allclose(np.load(self.out("cli/probabilities.npy")),
                                   self.reference, atol=1e-4)
        bad = subprocess.run([sys.executable, "-m", "mlc", "compile",
                              "/nonexistent.onnx"], env=env,
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("cannot open '/nonexistent.onnx'", bad.stderr)


if __name__ == "__main__":
    unittest.main()
