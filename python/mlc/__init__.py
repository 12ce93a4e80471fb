# ===- __init__.py - The mlc Python package ------------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Python entry points to the mlc compiler.

Today the package drives the command-line tools of a build (``mlc-opt``);
every call goes through the same C++ registration as the tools themselves.
"""

from .tools import MLCError, find_tool, opt

__all__ = ["MLCError", "find_tool", "opt"]
