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
import sys
import tempfile
import threading
import time
import warnings

from ._native import load_library
from .tools import MLCError

# Compilations from several threads take turns: the compiler's global
# registries are set up lazily and are not checked for concurrent use.
_compile_lock = threading.Lock()


_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_uint,
                             ctypes.c_uint, ctypes.c_char_p, ctypes.c_uint,
                             ctypes.c_uint, ctypes.c_void_p)


class Artifacts:
    """What :func:`compile_to_memory` (or :func:`compile` with
    ``artifacts=True``) produced: ``object`` (bytes: the relocatable object,
    or assembly), ``header`` (str), ``weights`` (bytes, with
    ``weights="external"``), ``ir`` (str or bytes, for an earlier phase),
    ``memory_plan`` (str), ``timings`` (``[(phase, seconds, peak_bytes)]``)
    and ``path`` (what was written, or None)."""

    def __init__(self, lib, handle, path):
        def get(what):
            size = ctypes.c_size_t()
            ptr = lib.mlc_artifacts_get(handle, what.encode(),
                                        ctypes.byref(size))
            return ctypes.string_at(ptr, size.value) if ptr else b""
        self.object = get("object")
        self.header = get("header").decode()
        self.weights = get("weights")
        ir = get("ir")
        try:
            self.ir = ir.decode()
        except UnicodeDecodeError:  # bytecode
            self.ir = ir
        self.memory_plan = get("memory-plan").decode()
        self.timings = []
        for k in range(lib.mlc_artifacts_num_phases(handle)):
            seconds, peak = ctypes.c_double(), ctypes.c_int64()
            name = lib.mlc_artifacts_phase(handle, k, ctypes.byref(seconds),
                                           ctypes.byref(peak))
            self.timings.append((name.decode(), seconds.value, peak.value))
        self.path = path


class _ProgressLine:
    """mlc-compile's progress line, on stderr when it is a terminal, once
    a compile has run two seconds."""

    def __init__(self):
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, at):
        now = time.monotonic()
        if now - self.start < 2 or (self.shown and now - self.last < 0.1):
            return
        self.last, self.shown = now, True
        text = f"[{at['phase']}"
        if at["passes"]:
            text += f" {at['pass']}/{at['passes']}"
        text += f"] {at['pass_name']}"
        if at["functions"] > 1:
            text += f", function {at['function']}/{at['functions']}"
        sys.stderr.write(f"\r\x1b[Kmlc.compile: {text}  {now - self.start:.1f} s")
        sys.stderr.flush()

    def close(self):
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


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
    lib.mlc_compile_options_set_progress.argtypes = [c.c_void_p, _PROGRESS,
                                                     c.c_void_p]
    lib.mlc_compile_file_ex.restype = c.c_int
    lib.mlc_compile_file_ex.argtypes = [c.c_char_p, c.c_char_p, c.c_void_p,
                                        c.POINTER(c.c_void_p),
                                        c.POINTER(c.c_void_p)]
    lib.mlc_compile_buffer_ex.restype = c.c_int
    lib.mlc_compile_buffer_ex.argtypes = [c.c_char_p, c.c_size_t, c.c_char_p,
                                          c.c_char_p, c.c_char_p, c.c_void_p,
                                          c.POINTER(c.c_void_p),
                                          c.POINTER(c.c_void_p)]
    lib.mlc_artifacts_get.restype = c.c_void_p
    lib.mlc_artifacts_get.argtypes = [c.c_void_p, c.c_char_p,
                                      c.POINTER(c.c_size_t)]
    lib.mlc_artifacts_num_phases.restype = c.c_size_t
    lib.mlc_artifacts_num_phases.argtypes = [c.c_void_p]
    lib.mlc_artifacts_phase.restype = c.c_char_p
    lib.mlc_artifacts_phase.argtypes = [c.c_void_p, c.c_size_t,
                                        c.POINTER(c.c_double),
                                        c.POINTER(c.c_int64)]
    lib.mlc_artifacts_free.argtypes = [c.c_void_p]


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


def _compile_source(lib, model, output, model_dir, options, artifacts,
                    diagnostics):
    """One call of mlc_compile_file_ex or mlc_compile_buffer_ex."""
    out = os.fsencode(output) if output is not None else None
    if isinstance(model, (str, os.PathLike)):
        return lib.mlc_compile_file_ex(os.fsencode(os.fspath(model)), out,
                                       options, ctypes.byref(artifacts),
                                       ctypes.byref(diagnostics))
    if hasattr(model, "SerializeToString"):
        data, name = model.SerializeToString(), "model.onnx"
        graph = getattr(model, "graph", None)
        if graph is not None and graph.name:
            name = graph.name + ".onnx"
    else:
        data, name = bytes(model), "model.onnx"
    folder = os.fsencode(model_dir) if model_dir else None
    return lib.mlc_compile_buffer_ex(data, len(data), name.encode(), folder,
                                     out, options, ctypes.byref(artifacts),
                                     ctypes.byref(diagnostics))


def _run(model, output, target, model_dir, progress, options):
    """Compiles; returns an :class:`Artifacts`."""
    lib = _compiler()
    opts = _Options(lib, dict(options, target=target))
    line = None
    if progress is None and sys.stderr.isatty():
        line = progress = _ProgressLine()

    def report(phase, pass_, passes, name, function, functions, _):
        try:
            progress({"phase": phase.decode(), "pass": pass_,
                      "passes": passes, "pass_name": name.decode(),
                      "function": function, "functions": functions})
        except Exception:  # a failing callback must not unwind into C
            pass
    callback = _PROGRESS(report) if callable(progress) else _PROGRESS()
    lib.mlc_compile_options_set_progress(opts.handle, callback, None)
    diagnostics, handle = ctypes.c_void_p(), ctypes.c_void_p()
    try:
        with _compile_lock:
            status = _compile_source(lib, model, output, model_dir,
                                     opts.handle, handle, diagnostics)
    finally:
        opts.close()
        if line:
            line.close()
    text = _take_string(lib, diagnostics)
    if status != 0:
        raise MLCError("mlc.compile", text)
    for message in text.splitlines():
        warnings.warn(f"mlc.compile: {message}", stacklevel=3)
    try:
        return Artifacts(lib, handle, output)
    finally:
        lib.mlc_artifacts_free(handle)


def compile(model, target="cpu", output=None, model_dir=None, progress=None,
            **options):
    """Compiles `model` and returns the path of what was written.

    `model` is a path to an .onnx file (or the .mlir of a phase), the bytes
    of an .onnx file, or an ``onnx.ModelProto``; for the last two,
    `model_dir` is the folder external data is looked for in (default: the
    current one). `output`'s extension picks the artifact as for
    mlc-compile: ``.so`` a shared library that :func:`mlc.load` loads,
    ``.o`` an object, ``.s`` assembly (each with its C header), anything
    else IR; when None, a ``model.so`` in a new temporary folder that the
    caller may delete.

    `progress`: None shows mlc-compile's progress line on stderr when it is
    a terminal and the compile runs over two seconds; False never; a
    callable gets a dict (phase, pass, passes, pass_name, function,
    functions) as each pass starts.

    `options` are mlc-compile's flags, ``_`` for ``-``: ``dim={"batch": 1}``
    (or ``dim=["batch=1"]``), ``shape={"image": [1, 3, 224, 224]}``,
    ``mcpu="generic"``, ``parallel=False``, ``weights="external"``,
    ``max_tensor_bytes=2**31``, ... Raises :class:`mlc.MLCError` carrying
    the diagnostics when the model is refused; warnings become Python
    warnings.
    """
    if output is None:
        output = os.path.join(tempfile.mkdtemp(prefix="mlc-"), "model.so")
    return _run(model, os.fspath(output), target, model_dir, progress,
                options).path


def compile_to_memory(model, target="cpu", model_dir=None, progress=None,
                      **options):
    """As :func:`compile`, writing nothing: returns an :class:`Artifacts`
    with the object (or, with ``emit="graph"`` and the like, the IR), the C
    header, the weights and each phase's time and peak memory."""
    return _run(model, None, target, model_dir, progress, options)


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
