# ===- _native.py - Find mlc's shared libraries ---------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Where the package finds libmlc_runtime.so and libmlc_compiler.so, and
loading them once."""

import ctypes
import os
import threading

from .tools import MLCError

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_PACKAGE))


def library_dirs():
    """$MLC_BUILD_DIR/lib, the folder `make install` recorded (when the
    package is installed), then ./build/lib of the source tree it is in."""
    dirs = []
    if os.environ.get("MLC_BUILD_DIR"):
        dirs.append(os.path.join(os.environ["MLC_BUILD_DIR"], "lib"))
    try:
        from . import _install  # written by `make install`
        dirs.append(_install.LIBRARY_DIR)
    except ImportError:
        pass
    dirs.append(os.path.join(_REPO, "build", "lib"))
    return dirs


def find_library(name):
    """Path of shared library `name`, or the bare name for the dynamic
    loader's search path."""
    for folder in library_dirs():
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    return name


_loaded = {}
_lock = threading.Lock()


def load_library(name, declare):
    """The shared library `name`, loaded once; `declare(lib)` sets its
    functions' argument and result types."""
    with _lock:
        if name not in _loaded:
            try:
                lib = ctypes.CDLL(find_library(name))
            except OSError as e:
                raise MLCError("mlc", f"cannot load {name}: {e}")
            declare(lib)
            _loaded[name] = lib
        return _loaded[name]
