# ===- test_runtime.py - Loading and running compiled models from Python -=== #
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
import threading
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mlc  # noqa: E402

DEMO = os.path.join(os.path.dirname(__file__), "..", "..", "models", "demo")


class RuntimeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "digits.so")
        subprocess.run([mlc.find_tool("mlc-compile"),
                        os.path.join(DEMO, "digits_mlp.onnx"), "--dim",
                        "batch=8", "-o", cls.path], check=True,
                       capture_output=True)
        with open(os.path.join(DEMO, "digits_samples.json")) as f:
            samples = json.load(f)
        cls.images = np.array(samples["images"][:8], np.float32)
        # scikit-learn's probabilities for the same images.
        cls.reference = np.array(samples["probabilities"][:8], np.float32)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_signature(self):
        model = mlc.load(self.path)
        self.assertEqual(model.name, "digits")
        self.assertEqual([(i.name, i.shape) for i in model.inputs],
                         [(model.inputs[0].name, (8, 64))])
        self.assertEqual(model.outputs[0].shape, (8, 10))
        self.assertEqual(np.dtype(model.outputs[0].dtype), np.float32)

    def test_run_matches_scikit_learn(self):
        model = mlc.load(self.path)
        by_name = model.run({model.inputs[0].name: self.images})
        by_order = model.run([self.images])
        out = by_name[model.outputs[0].name]
        np.testing.assert_allclose(out, self.reference, atol=1e-4)
        np.testing.assert_array_equal(out, by_order[model.outputs[0].name])

    def test_symbolic_batch(self):
        # Compiled once with its batch left symbolic, the model runs at any
        # batch and matches scikit-learn at each.
        path = os.path.join(self.tmp.name, "digits_any.so")
        subprocess.run([mlc.find_tool("mlc-compile"),
                        os.path.join(DEMO, "digits_mlp.onnx"), "-o", path],
                       check=True, capture_output=True)
        model = mlc.load(path)
        self.assertEqual(model.symbols, ["batch"])
        self.assertEqual(model.inputs[0].shape, ("batch", 64))
        self.assertEqual(model.outputs[0].shape, ("batch", 10))
        for batch in (3, 8, 1):
            out = model.run([self.images[:batch]])[model.outputs[0].name]
            self.assertEqual(out.shape, (batch, 10))
            np.testing.assert_allclose(out, self.reference[:batch],
                                       atol=1e-4)
        with self.assertRaisesRegex(mlc.MLCError, r"input '.*' has shape "
                                    r"\[2,63\]; the model takes "
                                    r"\[batch,64\] \(dim 1 differs\)"):
            model.run([np.zeros((2, 63), np.float32)])

    def test_inputs_convert(self):
        model = mlc.load(self.path)
        out = model.run([self.images.astype(np.float64).T.copy().T])
        np.testing.assert_allclose(out[model.outputs[0].name], self.reference,
                                   atol=1e-4)

    def test_errors(self):
        model = mlc.load(self.path)
        with self.assertRaisesRegex(mlc.MLCError, "has shape \\(2, 64\\)"):
            model.run([self.images[:2]])
        with self.assertRaisesRegex(mlc.MLCError, "missing inputs"):
            model.run({})
        with self.assertRaisesRegex(mlc.MLCError, "takes 1 inputs, got 2"):
            model.run([self.images, self.images])
        with self.assertRaisesRegex(mlc.MLCError, "cannot load"):
            mlc.load(os.path.join(self.tmp.name, "missing.so"))

    def test_run_time_check(self):
        # An If branch that cannot run at the compiled shapes fails when it
        # is taken, with the check's message; the other branch runs.
        folder = os.path.join(self.tmp.name, "checks")
        os.makedirs(folder, exist_ok=True)
        script = os.path.join(os.path.dirname(__file__), "..", "..", "test",
                              "mlc-run", "Inputs", "branch_at_shapes.py")
        subprocess.run([sys.executable, script, folder], check=True)
        path = os.path.join(folder, "branch.so")
        subprocess.run([mlc.find_tool("mlc-compile"),
                        os.path.join(folder, "branch.onnx"), "--dim", "n=512",
                        "-o", path], check=True, capture_output=True)
        model = mlc.load(path)
        x = np.load(os.path.join(folder, "x.npy"))
        with self.assertRaisesRegex(mlc.MLCError,
                                    "If node 'if_sample_rate': the "
                                    "else_branch taken cannot run"):
            model.run([x, np.array(8000, np.int64)])
        out = model.run([x, np.array(16000, np.int64)])
        np.testing.assert_array_equal(out["y"], x * 2)

    def test_gpu_models_need_a_device(self):
        gpu = os.path.join(self.tmp.name, "digits_gpu.so")
        subprocess.run([mlc.find_tool("mlc-compile"),
                        os.path.join(DEMO, "digits_mlp.onnx"), "--dim",
                        "batch=8", "--target=gpu", "-o", gpu], check=True,
                       capture_output=True)
        with self.assertRaisesRegex(mlc.MLCError, "compiled for the GPU"):
            mlc.load(gpu)
        with self.assertRaisesRegex(mlc.MLCError, "compiled for the CPU"):
            mlc.load(self.path, device="cuda")
        with self.assertRaisesRegex(mlc.MLCError, "'cpu', 'cuda', 'cuda:N' or"):
            mlc.load(gpu, device="gpu")
        # This machine's driver, or the lack of one, decides the rest.
        try:
            model = mlc.load(gpu, device="cuda")
        except mlc.MLCError as e:
            self.assertRegex(str(e), "libcuda|cuInit|CUDA")
            return
        out = model.run([self.images])[model.outputs[0].name]
        np.testing.assert_allclose(out, self.reference, atol=1e-4)

    def test_gpu_output_of_data_decided_size(self):
        """A GPU model's output whose size the data decides comes back as
        an array, with a pretend driver whose kernels do nothing (NonZero
        finds no element)."""
        source = os.path.join(os.path.dirname(__file__), "..", "..", "test",
                              "mlc-run", "Inputs", "fake_device_libcuda.c")
        node = "/usr/share/libonnx-testdata/data/node/test_nonzero_example"
        if not os.path.isdir(node):
            self.skipTest("libonnx-testdata is not installed")
        driver = os.path.join(self.tmp.name, "pretend")
        os.makedirs(driver, exist_ok=True)
        subprocess.run(["cc", "-shared", "-fPIC", source, "-o",
                        os.path.join(driver, "libcuda.so.1")], check=True)
        library = os.path.join(self.tmp.name, "nonzero_gpu.so")
        subprocess.run([mlc.find_tool("mlc-compile"),
                        os.path.join(node, "model.onnx"), "--target=gpu",
                        "-o", library], check=True, capture_output=True)
        script = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); "
                  "import mlc; m = mlc.load(sys.argv[2], device='cuda'); "
                  "out = m.run([np.ones((2, 2), bool)])['result']; "
                  "print(type(out).__name__, out.dtype, out.shape)")
        env = dict(os.environ, LD_LIBRARY_PATH=driver)
        run = subprocess.run([sys.executable, "-c", script,
                              os.path.join(os.path.dirname(__file__), ".."),
                              library], env=env, capture_output=True,
                             text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "ndarray int64 (2, 0)")

    def test_npu_models_run_in_the_simulator(self):
        # The digits MLP at batch 8 is too small to be worth the NPU's
        # trip; the placement file's default puts every matmul there.
        placement = os.path.join(self.tmp.name, "all-on-npu.json")
        with open(placement, "w") as f:
            f.write('{"*": "npu"}')
        npu = mlc.compile(os.path.join(DEMO, "digits_mlp.onnx"),
                          target="npu",
                          output=os.path.join(self.tmp.name, "digits_npu.so"),
                          dim={"batch": 8}, npu_config="large",
                          npu_placement=placement)
        with self.assertRaisesRegex(mlc.MLCError, "compiled for the NPU"):
            mlc.load(npu)
        with self.assertRaisesRegex(mlc.MLCError, "compiled for the CPU"):
            mlc.load(self.path, device="npu-sim")
        model = mlc.load(npu, device="npu-sim")
        self.assertEqual(model.device, "npu-sim")
        self.assertIsNone(mlc.load(self.path).npu_stats())
        out = model.run([self.images])[model.outputs[0].name]
        # bf16 operands: probabilities within a few thousandths.
        np.testing.assert_allclose(out, self.reference, atol=2e-2)
        self.assertEqual(out.argmax(1).tolist(),
                         self.reference.argmax(1).tolist())
        stats = model.npu_stats(reset=True)
        self.assertEqual(stats["runs"], 1)
        self.assertGreater(stats["cycles"], 0)
        self.assertGreater(stats["utilization"], 0)
        self.assertGreater(stats["bytes_loaded"], 0)
        self.assertEqual(model.npu_stats()["runs"], 0)

    def test_threads(self):
        model = mlc.load(self.path)
        expected = model.run([self.images])[model.outputs[0].name]
        results = []

        def work():
            for _ in range(20):
                results.append(model.run([self.images])[model.outputs[0].name])

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 160)
        for r in results:
            np.testing.assert_array_equal(r, expected)


    def test_profile(self):
        plain = mlc.load(self.path)
        self.assertEqual(plain.profile(), {})
        path = mlc.compile(os.path.join(DEMO, "digits_mlp.onnx"),
                           output=os.path.join(self.tmp.name, "timed.so"),
                           dim={"batch": 8}, profile=True)
        model = mlc.load(path)
        out = model.run([self.images])
        np.testing.assert_allclose(out[model.outputs[0].name], self.reference,
                                   atol=1e-4)
        times = model.profile(reset=True)
        self.assertTrue(any(name.endswith("_relu1") for name in times), times)
        self.assertTrue(all(ms >= 0 for ms in times.values()))
        self.assertEqual(list(times.values()),
                         sorted(times.values(), reverse=True))
        self.assertEqual(sum(model.profile().values()), 0)


if __name__ == "__main__":
    unittest.main()
