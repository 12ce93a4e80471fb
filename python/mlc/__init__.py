# ===- __init__.py - The mlc Python package ------------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Python entry points to the mlc compiler.

``mlc.compile(model, ...)`` compiles an ONNX model (a path, bytes or an
``onnx.ModelProto``) in this process, through the compiler's C interface;
``mlc.load(path)`` loads a model library and ``model.run(...)`` runs it on
numpy arrays, through the runtime's; ``mlc.opt`` drives ``mlc-opt``.
``python3 -m mlc compile|run|check-support`` is the same from a shell
(docs/Python.md).
"""

from .tools import MLCError, find_tool, opt
from .runtime import Model, TensorInfo, load
from .compiler import Artifacts, check_support, compile, compile_to_memory, version
from .comparison import Comparison, compare, ort_available

__all__ = ["Artifacts", "Comparison", "MLCError", "Model", "TensorInfo",
           "check_support", "compare", "compile", "compile_to_memory",
           "find_tool", "load", "opt", "ort_available", "version"]
