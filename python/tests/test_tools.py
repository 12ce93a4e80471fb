# ===- test_tools.py - Tests of the mlc Python package --------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mlc  # noqa: E402

RELU = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = mlc_graph.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""


class ToolsTest(unittest.TestCase):
    def test_optimize_refines_shapes(self):
        out = mlc.opt(RELU, passes=["--mlc-graph-optimize-pipeline"])
        self.assertIn("-> tensor<2x3xf32>", out)
        self.assertNotIn("tensor<*xf32>", out)

    def test_diagnostics_become_exceptions(self):
        bad = RELU.replace("tensor<*xf32>", "tensor<5x3xf32>")
        with self.assertRaises(mlc.MLCError) as ctx:
            mlc.opt(bad)
        self.assertIn("'mlc_graph.relu' op", ctx.exception.diagnostics)


if __name__ == "__main__":
    unittest.main()
