# ===- tools.py - Run mlc's tools from Python -----------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Locate and run mlc's tools, turning their diagnostics into exceptions."""

import os
import shutil
import subprocess

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class MLCError(RuntimeError):
    """A tool failed; ``diagnostics`` holds what it printed on stderr."""

    def __init__(self, tool, diagnostics):
        super().__init__(f"{tool} failed:\n{diagnostics}")
        self.tool = tool
        self.diagnostics = diagnostics


def find_tool(name):
    """Path of tool `name`: $MLC_BUILD_DIR/bin, the installed tools, then
    ./build/bin, then PATH."""
    candidates = []
    if os.environ.get("MLC_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["MLC_BUILD_DIR"], "bin", name))
    try:
        from . import _install  # written by `make install`
        candidates.append(os.path.join(_install.BINARY_DIR, name))
    except ImportError:
        pass
    candidates.append(os.path.join(_REPO, "build", "bin", name))
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise MLCError(name, f"cannot find '{name}' (build mlc or set MLC_BUILD_DIR)")


def opt(source, pipeline=None, passes=(), extra_args=()):
    """Runs mlc-opt on IR text and returns the resulting IR text.

    `pipeline` is a textual pass pipeline (``builtin.module(...)``); `passes`
    are flags such as ``"--mlc-graph-optimize-pipeline"``. Raises MLCError with
    the tool's diagnostics when it fails.
    """
    tool = find_tool("mlc-opt")
    args = [tool, "-"]
    if pipeline:
        args.append(f"--pass-pipeline={pipeline}")
    args.extend(passes)
    args.extend(extra_args)
    proc = subprocess.run(args, input=source, capture_output=True, text=True)
    if proc.returncode != 0:
        raise MLCError("mlc-opt", proc.stderr)
    return proc.stdout
