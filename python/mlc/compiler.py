# ===- compiler.py - Compile models from Python ---------------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Compiles ONNX models in this process, through the compiler's C interface
(``libmlc_compiler.so``, mlc-c/Compiler.h) with ctypes."""

import ctypes
import os
import tempfile
import threading
import warnings

from ._native import load_library
from .tools import MLCError

# Compilations from several threads take turns: the compiler's global
# registries are set up lazily and are not checked for concurrent use.
_compile_lock = threading.Lock()


def _declare(lib):
    c = ctypes
    lib.mlc_compiler_version.restype = c.c_char_p
    lib.mlc_compile_options_new.restype = c.c_void_p
    lib.mlc_compile_options_free.argtypes = [c.c_void_p]
    lib.mlc_compile_options_set.restype = c.c_int
    lib.mlc_compile_options_set.argtypes = [c.c_void_p, c.c_char_p,
                                            c.c_char_p, c.c_char_p,
                                            c.c_size_t]
    lib.mlc_compile_file.restype = c.c_int
    lib.mlc_compile_file.argtypes = [c.c_char_p, c.c_char_p, c.c_void_p,
                                     c.POINTER(c.c_void_p)]
    lib.mlc_compile_buffer.restype = c.c_int
    lib.mlc_compile_buffer.argtypes = [c.c_char_p, c.c_size_t, c.c_char_p,
                                       c.c_char_p, c.c_char_p, c.c_void_p,
                                       c.POINTER(c.c_void_p)]
    lib.mlc_check_support.restype = c.c_int
    lib.mlc_check_support.argtypes = [c.c_char_p, c.c_void_p,
                                      c.POINTER(c.c_void_p)]
    lib.mlc_string_free.argtypes = [c.c_void_p]


def _compiler():
    return load_library("libmlc_compiler.so", _declare)


def version():
    """mlc's version string."""
    return _compiler().mlc_compiler_version().decode()


def _take_string(lib, pointer):
    if not pointer.value:
        return ""
    text = ctypes.string_at(pointer.value).decode(errors="replace")
    lib.mlc_string_free(pointer)
    return text


def _option_values(name, value):
    """The strings mlc-compile would get for --NAME=VALUE: lists repeat,
    dicts give NAME=VALUE pairs (shape dims joined by x), booleans are
    true/false."""
    if isinstance(value, dict):
        out = []
        for key, v in value.items():
            if isinstance(v, (list, tuple)):
                v = "x".join("?" if d is None else str(d) for d in v)
            out.append(f"{key}={v}")
        return out
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _option_values(name, v)]
    if isinstance(value, bool):
        return ["true" if value else "false"]
    return [str(value)]


class _Options:
    def __init__(self, lib, options):
        self.lib = lib
        self.handle = lib.mlc_compile_options_new()
        if not self.handle:
            raise MLCError("mlc.compile", "out of memory")
        error = ctypes.create_string_buffer(1024)
        for key, value in options.items():
            if value is None:
                continue
            name = key.replace("_", "-")
            for text in _option_values(name, value):
                if lib.mlc_compile_options_set(self.handle, name.encode(),
                                               text.encode(), error,
                                               len(error)) != 0:
                    self.close()
                    raise MLCError("mlc.compile",
                                   error.value.decode(errors="replace"))

    def close(self):
        if self.handle:
            self.lib.mlc_compile_options_free(self.handle)
            self.handle = None


def _compile_source(lib, model, output, model_dir, options, diagnostics):
    """One call of mlc_compile_file or mlc_compile_buffer."""
    if isinstance(model, (str, os.PathLike)):
        return lib.mlc_compile_file(os.fsencode(os.fspath(model)),
                                    os.fsencode(output), options,
                                    ctypes.byref(diagnostics))
    if hasattr(model, "SerializeToString"):
        data, name = model.SerializeToString(), "model.onnx"
        graph = getattr(model, "graph", None)
        if graph is not None and graph.name:
            name = graph.name + ".onnx"
    else:
        data, name = bytes(model), "model.onnx"
    folder = os.fsencode(model_dir) if model_dir else None
    return lib.mlc_compile_buffer(data, len(data), name.encode(), folder,
                                  os.fsencode(output), options,
                                  ctypes.byref(diagnostics))


def compile(model, target="cpu", output=None, model_dir=None, **options):
    """Compiles `model` and returns the path of what was written.

    `model` is a path to an .onnx file (or the .mlir of a phase), the bytes
    of an .onnx file, or an ``onnx.ModelProto``; for the last two,
    `model_dir` is the folder external data is looked for in (default: the
    current one). `output`'s extension picks the artifact as for
    mlc-compile: ``.so`` a shared library that :func:`mlc.load` loads,
    ``.o`` an object, ``.s`` assembly (each with its C header), anything
    else IR; when None, a ``model.so`` in a new temporary folder that the
    caller may delete.

    `options` are mlc-compile's flags, ``_`` for ``-``: ``dim={"batch": 1}``
    (or ``dim=["batch=1"]``), ``shape={"image": [1, 3, 224, 224]}``,
    ``mcpu="generic"``, ``parallel=False``, ``weights="external"``,
    ``max_tensor_bytes=2**31``, ... Raises :class:`mlc.MLCError` carrying
    the diagnostics when the model is refused; warnings become Python
    warnings.
    """
    lib = _compiler()
    if output is None:
        output = os.path.join(tempfile.mkdtemp(prefix="mlc-"), "model.so")
    output = os.fspath(output)
    opts = _Options(lib, dict(options, target=target))
    diagnostics = ctypes.c_void_p()
    try:
        with _compile_lock:
            status = _compile_source(lib, model, output, model_dir,
                                     opts.handle, diagnostics)
    finally:
        opts.close()
    text = _take_string(lib, diagnostics)
    if status != 0:
        raise MLCError("mlc.compile", text)
    for line in text.splitlines():
        warnings.warn(f"mlc.compile: {line}", stacklevel=2)
    return output


def check_support(model, **options):
    """Whether mlc can compile the model file at `model`, and the report
    ``mlc-compile --check-support`` prints: ``(supported, report)``."""
    lib = _compiler()
    opts = _Options(lib, options)
    report = ctypes.c_void_p()
    try:
        status = lib.mlc_check_support(os.fsencode(os.fspath(model)),
                                       opts.handle, ctypes.byref(report))
    finally:
        opts.close()
    return status == 0, _take_string(lib, report)
