# ===- __init__.py - The mlc Python package ------------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Python entry points to the mlc compiler.

``mlc.opt`` drives ``mlc-opt`` of a build; ``mlc.load(path)`` loads a model
library made by ``mlc-compile -o MODEL.so`` and ``model.run(...)`` runs it on
numpy arrays, through the runtime's C interface (docs/Python.md).
"""

from .tools import MLCError, find_tool, opt
from .runtime import Model, TensorInfo, load

__all__ = ["MLCError", "Model", "TensorInfo", "find_tool", "load", "opt"]
