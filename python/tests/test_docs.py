# ===- test_docs.py - The examples of docs/Python.md run ------------------=== #
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from mlc import comparison as compare  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class DocsTest(unittest.TestCase):
    def test_python_examples(self):
        with tempfile.TemporaryDirectory() as tmp:
            names = subprocess.run(
                ["/usr/bin/python3", os.path.join(ROOT, "utils", "extract_examples.py"),
                 os.path.join(ROOT, "docs", "Python.md"), tmp],
                check=True, capture_output=True, text=True).stdout.split()
            self.assertIn("quick_start.py", names)
            os.symlink(os.path.join(ROOT, "models"), os.path.join(tmp, "models"))
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            for name in names:
                with self.subTest(example=name):
                    with open(os.path.join(tmp, name)) as f:
                        if '"ort"' in f.read() and not compare.ort_available():
                            self.skipTest("onnxruntime-node is not installed")
                    run = subprocess.run([sys.executable, name], cwd=tmp,
                                         env=env, capture_output=True,
                                         text=True)
                    self.assertEqual(run.returncode, 0,
                                     f"{name}:\n{run.stdout}{run.stderr}")


if __name__ == "__main__":
    unittest.main()
