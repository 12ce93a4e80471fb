# ===- runtime.py - Load and run compiled models from Python --------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Runs a model library made by ``mlc-compile -o MODEL.so`` on numpy arrays,
through the runtime's C interface (``libmlc_runtime.so``, mlc_runtime.h) with
ctypes.

A loaded model may run from several threads at once: each thread gets an
arena of its own. Inputs that are already C-contiguous arrays of the right
dtype and shape are passed without a copy.
"""

import ctypes
import os
import threading

import numpy as np

from ._native import load_library
from .tools import MLCError

# ONNX TensorProto.DataType numbers, as the runtime reports dtypes.
_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
           6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
           11: np.float64, 12: np.uint32, 13: np.uint64}

class _GenerateConfig(ctypes.Structure):
    _fields_ = [("max_new_tokens", ctypes.c_int32), ("top_k", ctypes.c_int32),
                ("top_p", ctypes.c_float), ("temperature", ctypes.c_float),
                ("seed", ctypes.c_uint64), ("eos_token_id", ctypes.c_int64)]


class _GenerateStats(ctypes.Structure):
    _fields_ = [("prefill_ms", ctypes.c_double),
                ("decode_ms", ctypes.c_double),
                ("prompt_tokens", ctypes.c_int64),
                ("new_tokens", ctypes.c_int64)]


class GenerateStats:
    """Timings of one :meth:`Model.generate`: the prefill (the prompt's
    step) and the decode steps after it."""

    def __init__(self, raw):
        self.prefill_ms = raw.prefill_ms
        self.decode_ms = raw.decode_ms
        self.prompt_tokens = raw.prompt_tokens
        self.new_tokens = raw.new_tokens

    @property
    def decode_tokens_per_second(self):
        steps = self.new_tokens - 1
        return steps * 1000.0 / self.decode_ms if steps > 0 and \
            self.decode_ms > 0 else 0.0

    def __repr__(self):
        return (f"GenerateStats(prompt {self.prompt_tokens} tokens in "
                f"{self.prefill_ms:.1f} ms, {self.new_tokens} new tokens, "
                f"decode {self.decode_tokens_per_second:.1f} tokens/s)")


def _declare(lib):
    c = ctypes
    lib.mlc_model_load.restype = c.c_void_p
    lib.mlc_model_load.argtypes = [c.c_char_p, c.c_char_p, c.c_char_p,
                                   c.c_size_t]
    lib.mlc_model_free.argtypes = [c.c_void_p]
    lib.mlc_model_name.restype = c.c_char_p
    lib.mlc_model_name.argtypes = [c.c_void_p]
    lib.mlc_model_num_tensors.restype = c.c_size_t
    lib.mlc_model_num_tensors.argtypes = [c.c_void_p, c.c_int]
    lib.mlc_model_tensor_name.restype = c.c_char_p
    for name in ("name", "dtype", "rank", "bytes"):
        getattr(lib, "mlc_model_tensor_" + name).argtypes = [
            c.c_void_p, c.c_int, c.c_size_t]
    lib.mlc_model_tensor_dtype.restype = c.c_int32
    lib.mlc_model_tensor_rank.restype = c.c_int32
    lib.mlc_model_tensor_bytes.restype = c.c_int64
    lib.mlc_model_tensor_dim.restype = c.c_int64
    lib.mlc_model_tensor_dim.argtypes = [c.c_void_p, c.c_int, c.c_size_t,
                                         c.c_int32]
    lib.mlc_model_num_symbols.restype = c.c_size_t
    lib.mlc_model_num_symbols.argtypes = [c.c_void_p]
    lib.mlc_model_symbol_name.restype = c.c_char_p
    lib.mlc_model_symbol_name.argtypes = [c.c_void_p, c.c_size_t]
    lib.mlc_model_tensor_dim_symbol.restype = c.c_int32
    lib.mlc_model_tensor_dim_symbol.argtypes = [c.c_void_p, c.c_int,
                                                c.c_size_t, c.c_int32]
    lib.mlc_model_resolve_dims.restype = c.c_int32
    lib.mlc_model_resolve_dims.argtypes = [
        c.c_void_p, c.POINTER(c.POINTER(c.c_int64)), c.POINTER(c.c_int64),
        c.c_char_p, c.c_size_t]
    lib.mlc_model_tensor_dim_at.restype = c.c_int64
    lib.mlc_model_tensor_dim_at.argtypes = [c.c_void_p, c.c_int, c.c_size_t,
                                            c.c_int32, c.POINTER(c.c_int64)]
    lib.mlc_model_run_dims.restype = c.c_int32
    lib.mlc_model_run_dims.argtypes = [c.c_void_p, c.c_void_p,
                                       c.POINTER(c.c_int64),
                                       c.POINTER(c.c_void_p),
                                       c.POINTER(c.c_void_p)]
    lib.mlc_arena_new.restype = c.c_void_p
    lib.mlc_arena_new.argtypes = [c.c_void_p]
    lib.mlc_arena_free.argtypes = [c.c_void_p]
    lib.mlc_model_run.restype = c.c_int32
    lib.mlc_model_run.argtypes = [c.c_void_p, c.c_void_p,
                                  c.POINTER(c.c_void_p),
                                  c.POINTER(c.c_void_p)]
    lib.mlc_model_num_kernels.restype = c.c_size_t
    lib.mlc_model_num_kernels.argtypes = [c.c_void_p]
    lib.mlc_model_kernel_name.restype = c.c_char_p
    lib.mlc_model_kernel_name.argtypes = [c.c_void_p, c.c_size_t]
    lib.mlc_model_kernel_nanoseconds.restype = c.c_int64
    lib.mlc_model_kernel_nanoseconds.argtypes = [c.c_void_p, c.c_size_t]
    lib.mlc_model_reset_profile.argtypes = [c.c_void_p]
    lib.mlc_status_message.restype = c.c_char_p
    lib.mlc_status_message.argtypes = [c.c_int32]
    lib.mlc_free.argtypes = [c.c_void_p]
    lib.mlc_model_check_message.restype = c.c_char_p
    lib.mlc_model_check_message.argtypes = [c.c_void_p, c.c_void_p]
    lib.mlc_model_is_gpu.restype = c.c_int
    lib.mlc_model_is_gpu.argtypes = [c.c_void_p]
    lib.mlc_generate_config_init.argtypes = [c.POINTER(_GenerateConfig)]
    lib.mlc_model_generate.restype = c.c_int32
    lib.mlc_model_generate.argtypes = [
        c.c_void_p, c.c_void_p, c.POINTER(c.c_int64), c.c_size_t,
        c.POINTER(_GenerateConfig), c.POINTER(c.c_int64),
        c.POINTER(c.c_size_t), c.POINTER(_GenerateStats), c.c_char_p,
        c.c_size_t]
    lib.mlc_gpu_context_create.restype = c.c_void_p
    lib.mlc_gpu_context_create.argtypes = [c.c_void_p, c.c_int, c.c_char_p,
                                           c.c_size_t]
    lib.mlc_gpu_context_free.argtypes = [c.c_void_p]
    lib.mlc_gpu_device_description.restype = c.c_char_p
    lib.mlc_gpu_device_description.argtypes = [c.c_void_p]
    lib.mlc_gpu_run.restype = c.c_int32
    lib.mlc_gpu_run.argtypes = [c.c_void_p, c.c_void_p, c.c_void_p,
                                c.c_char_p, c.c_size_t]
    lib.mlc_model_is_npu.restype = c.c_int
    lib.mlc_model_is_npu.argtypes = [c.c_void_p]
    lib.mlc_npu_sim_create.restype = c.c_void_p
    lib.mlc_npu_sim_create.argtypes = [c.c_void_p, c.c_char_p, c.c_size_t]
    lib.mlc_npu_sim_free.argtypes = [c.c_void_p]
    lib.mlc_npu_sim_run.restype = c.c_int32
    lib.mlc_npu_sim_run.argtypes = [c.c_void_p, c.c_void_p, c.c_void_p,
                                    c.c_char_p, c.c_size_t]
    lib.mlc_npu_sim_run_dims.restype = c.c_int32
    lib.mlc_npu_sim_run_dims.argtypes = [c.c_void_p, c.POINTER(c.c_int64),
                                         c.c_void_p, c.c_void_p,
                                         c.c_char_p, c.c_size_t]
    lib.mlc_npu_sim_stats.argtypes = [c.c_void_p,
                                      c.POINTER(c.c_int64 * 7),
                                      c.POINTER(c.c_double),
                                      c.POINTER(c.c_int64)]
    lib.mlc_npu_sim_reset_stats.argtypes = [c.c_void_p]


def _runtime():
    return load_library("libmlc_runtime.so", _declare)


class TensorInfo:
    """An input or output: ``name``, numpy ``dtype``, ``shape``. A symbolic
    dim (a batch the model was compiled for at any size) is its symbol's
    name in ``shape`` (``'batch'``, or ``'2*batch'`` for a multiple), as
    ONNX Runtime shows it; -1 marks a dim the data decides."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, shape

    def __repr__(self):
        return f"TensorInfo({self.name!r}, {np.dtype(self.dtype).name}, {self.shape})"


class Model:
    """A loaded model library (see :func:`load`)."""

    def __init__(self, path, weights=None, device="cpu"):
        lib = _runtime()
        ordinal = _cuda_device(device)
        error = ctypes.create_string_buffer(4096)
        handle = lib.mlc_model_load(
            os.fsencode(path), os.fsencode(weights) if weights else None,
            error, len(error))
        if not handle:
            raise MLCError("mlc runtime", error.value.decode(errors="replace"))
        self._lib, self._handle, self._gpu, self._npu = lib, handle, None, None
        gpu = bool(lib.mlc_model_is_gpu(handle))
        npu = bool(lib.mlc_model_is_npu(handle))
        compiled = "gpu" if gpu else "npu" if npu else "cpu"
        asked = "npu" if device == "npu-sim" else \
            "cpu" if ordinal is None else "gpu"
        if compiled != asked:
            lib.mlc_model_free(handle)
            self._handle = None
            raise MLCError("mlc runtime", f"{path} was compiled for the "
                           f"{compiled.upper()}; load it with device="
                           f"{ {'gpu': 'cuda', 'npu': 'npu-sim', 'cpu': 'cpu'}[compiled]!r}")
        if npu:
            self._npu = lib.mlc_npu_sim_create(handle, error, len(error))
            if not self._npu:
                lib.mlc_model_free(handle)
                self._handle = None
                raise MLCError("mlc runtime",
                               error.value.decode(errors="replace"))
            self.device = "npu-sim"
        elif gpu:
            self._gpu = lib.mlc_gpu_context_create(handle, ordinal, error,
                                                   len(error))
            if not self._gpu:
                lib.mlc_model_free(handle)
                self._handle = None
                raise MLCError("mlc runtime",
                               error.value.decode(errors="replace"))
            self.device = lib.mlc_gpu_device_description(self._gpu).decode()
        else:
            self.device = "cpu"
        self._arenas = threading.local()
        self._all_arenas = []
        self._lock = threading.Lock()
        self.name = lib.mlc_model_name(handle).decode()
        self.symbols = [lib.mlc_model_symbol_name(handle, s).decode()
                        for s in range(lib.mlc_model_num_symbols(handle))]
        self.inputs = [self._info(0, i) for i in
                       range(lib.mlc_model_num_tensors(handle, 0))]
        self.outputs = [self._info(1, i) for i in
                        range(lib.mlc_model_num_tensors(handle, 1))]

    def _info(self, output, index):
        lib, h = self._lib, self._handle
        code = lib.mlc_model_tensor_dtype(h, output, index)
        if code not in _DTYPES:
            raise MLCError("mlc runtime", f"unsupported dtype {code}")
        rank = lib.mlc_model_tensor_rank(h, output, index)

        def dim(d):
            size = lib.mlc_model_tensor_dim(h, output, index, d)
            symbol = lib.mlc_model_tensor_dim_symbol(h, output, index, d)
            if symbol < 0:
                return size
            name = lib.mlc_model_symbol_name(h, symbol).decode()
            return name if size == 1 else f"{size}*{name}"
        shape = tuple(dim(d) for d in range(rank))
        return TensorInfo(lib.mlc_model_tensor_name(h, output, index).decode(),
                          _DTYPES[code], shape)

    def _arena(self):
        arena = getattr(self._arenas, "arena", None)
        if arena is None:
            arena = self._lib.mlc_arena_new(self._handle)
            if not arena:
                raise MLCError("mlc runtime", "cannot allocate an arena")
            self._arenas.arena = arena
            with self._lock:
                self._all_arenas.append(arena)
        return arena

    def generate(self, input_ids, max_new_tokens=32, temperature=0.0,
                 top_k=0, top_p=1.0, seed=0, eos_token_id=None):
        """Generates up to `max_new_tokens` tokens after the prompt
        `input_ids` (a list or an array of one sequence) with a compiled
        decoder (inputs input_ids, attention_mask, [position_ids,]
        past_key_values.*; outputs logits, present.*: Optimum's and ONNX
        Runtime GenAI's layouts), running the prompt once, then one token
        per step with the cache fed back. Greedy when `temperature` is 0;
        else sampled (top-k, then top-p) with a generator seeded by `seed`.
        Stops at `eos_token_id` (kept). Returns the new tokens as an int64
        array; their timings are in ``self.last_generate_stats``."""
        if self._gpu or self._npu:
            raise MLCError("mlc runtime", "generate runs CPU models only")
        prompt = np.ascontiguousarray(np.asarray(input_ids, np.int64))
        if prompt.ndim == 2 and prompt.shape[0] == 1:
            prompt = prompt[0]
        if prompt.ndim != 1 or prompt.size == 0:
            raise MLCError("mlc runtime", "input_ids must be one non-empty "
                           "sequence of token ids")
        config = _GenerateConfig()
        self._lib.mlc_generate_config_init(ctypes.byref(config))
        config.max_new_tokens = int(max_new_tokens)
        config.temperature, config.top_k = float(temperature), int(top_k)
        config.top_p, config.seed = float(top_p), int(seed)
        config.eos_token_id = -1 if eos_token_id is None else int(eos_token_id)
        tokens = np.zeros(max(int(max_new_tokens), 0), np.int64)
        count, stats = ctypes.c_size_t(), _GenerateStats()
        error = ctypes.create_string_buffer(4096)
        i64p = ctypes.POINTER(ctypes.c_int64)
        code = self._lib.mlc_model_generate(
            self._handle, self._arena(), prompt.ctypes.data_as(i64p),
            prompt.size, ctypes.byref(config), tokens.ctypes.data_as(i64p),
            ctypes.byref(count), ctypes.byref(stats), error, len(error))
        if code != 0:
            raise MLCError("mlc runtime", error.value.decode(errors="replace"))
        self.last_generate_stats = GenerateStats(stats)
        return tokens[:count.value]

    def run(self, inputs):
        """Runs the model on `inputs` (a dict by input name, or a list in
        input order) and returns a dict of output arrays by name. Raises
        MLCError on a missing input, a wrong shape or dtype that does not
        convert, or a failed run."""
        if isinstance(inputs, dict):
            unknown = set(inputs) - {i.name for i in self.inputs}
            if unknown:
                raise MLCError("mlc runtime",
                               f"unknown inputs: {sorted(unknown)}")
            missing = [i.name for i in self.inputs if i.name not in inputs]
            if missing:
                raise MLCError("mlc runtime", f"missing inputs: {missing}")
            values = [inputs[i.name] for i in self.inputs]
        else:
            values = list(inputs)
            if len(values) != len(self.inputs):
                raise MLCError("mlc runtime", f"{self.name} takes "
                               f"{len(self.inputs)} inputs, got {len(values)}")
        arrays = []
        for info, value in zip(self.inputs, values):
            # asarray keeps a 0-d array 0-d (ascontiguousarray makes it 1-d).
            array = np.asarray(value, dtype=info.dtype, order="C")
            if not self.symbols and array.shape != info.shape:
                raise MLCError("mlc runtime",
                               f"input '{info.name}' has shape {array.shape}, "
                               f"the model takes {info.shape}")
            arrays.append(array)
        dims = self._resolve_dims(arrays) if self.symbols else None
        # An output whose size depends on the data (-1 dims) is a record
        # the run fills: the address of the data it allocated, the dims.
        outputs = [np.zeros(1 + len(o.shape), np.int64) if -1 in o.shape
                   else np.empty(self._shape_at(1, k, dims), o.dtype)
                   for k, o in enumerate(self.outputs)]
        in_ptrs = (ctypes.c_void_p * max(1, len(arrays)))(
            *[a.ctypes.data for a in arrays])
        out_ptrs = (ctypes.c_void_p * max(1, len(outputs)))(
            *[o.ctypes.data for o in outputs])
        if self._gpu:
            error = ctypes.create_string_buffer(4096)
            with self._lock:  # one run at a time per context
                code = self._lib.mlc_gpu_run(self._gpu, in_ptrs, out_ptrs,
                                             error, len(error))
            if code != 0:
                raise MLCError("mlc runtime",
                               error.value.decode(errors="replace"))
            for k, o in enumerate(self.outputs):
                if -1 in o.shape:
                    outputs[k] = self._take(outputs[k], o.dtype)
            return {o.name: a for o, a in zip(self.outputs, outputs)}
        if self._npu:
            error = ctypes.create_string_buffer(4096)
            with self._lock:  # one run at a time per simulator
                code = self._lib.mlc_npu_sim_run_dims(
                    self._npu, dims, in_ptrs, out_ptrs, error, len(error))
            if code != 0:
                raise MLCError("mlc runtime",
                               error.value.decode(errors="replace") or
                               self._lib.mlc_status_message(code).decode())
            for k, o in enumerate(self.outputs):
                if -1 in o.shape:
                    outputs[k] = self._take(outputs[k], o.dtype)
            return {o.name: a for o, a in zip(self.outputs, outputs)}
        arena = self._arena()
        if dims is not None:
            code = self._lib.mlc_model_run_dims(self._handle, arena, dims,
                                                in_ptrs, out_ptrs)
        else:
            code = self._lib.mlc_model_run(self._handle, arena, in_ptrs,
                                           out_ptrs)
        if code != 0:
            message = self._lib.mlc_status_message(code).decode()
            check = self._lib.mlc_model_check_message(self._handle, arena)
            if check:
                message = check.decode(errors="replace")
            raise MLCError("mlc runtime", message)
        for k, o in enumerate(self.outputs):
            if -1 in o.shape:
                outputs[k] = self._take(outputs[k], o.dtype)
        return {o.name: a for o, a in zip(self.outputs, outputs)}

    def _resolve_dims(self, arrays):
        """The symbols' values the input arrays' shapes give (checked)."""
        c = ctypes
        shapes = [(c.c_int64 * max(1, a.ndim))(*a.shape) for a in arrays]
        pointers = (c.POINTER(c.c_int64) * max(1, len(shapes)))(
            *[c.cast(s, c.POINTER(c.c_int64)) for s in shapes])
        dims = (c.c_int64 * len(self.symbols))()
        error = c.create_string_buffer(4096)
        if self._lib.mlc_model_resolve_dims(self._handle, pointers, dims,
                                            error, len(error)):
            raise MLCError("mlc runtime",
                           error.value.decode(errors="replace"))
        return dims

    def _shape_at(self, output, index, dims):
        """The shape of a tensor at the symbols' values `dims`."""
        info = (self.outputs if output else self.inputs)[index]
        if dims is None:
            return info.shape
        return tuple(self._lib.mlc_model_tensor_dim_at(
            self._handle, output, index, d, dims)
            for d in range(len(info.shape)))

    def _take(self, record, dtype):
        """The array an output record points to, copied; the model's
        buffer is freed."""
        shape = tuple(int(d) for d in record[1:])
        address = int(record[0])
        count = int(np.prod(shape, dtype=np.int64))
        array = np.empty(shape, dtype)
        if count:
            ctypes.memmove(array.ctypes.data, address, array.nbytes)
        self._lib.mlc_free(ctypes.c_void_p(address))
        return array

    def profile(self, reset=False):
        """Milliseconds per kernel, most expensive first, summed over the
        runs since the last reset, for a library compiled with
        ``mlc-compile --profile`` (``mlc.compile(..., profile=True)``); an
        empty dict otherwise. `reset` zeroes the counters after reading."""
        lib, h = self._lib, self._handle
        times = {lib.mlc_model_kernel_name(h, k).decode():
                 lib.mlc_model_kernel_nanoseconds(h, k) / 1e6
                 for k in range(lib.mlc_model_num_kernels(h))}
        if reset:
            lib.mlc_model_reset_profile(h)
        return dict(sorted(times.items(), key=lambda kv: -kv[1]))

    def npu_stats(self, reset=False):
        """For a model loaded with ``device="npu-sim"``: the simulated NPU's
        counts per run since the last reset (``runs``, ``cycles``,
        ``milliseconds`` at the NPU's clock, ``utilization`` of the matrix
        unit, ``matrix_busy`` and ``dma_busy`` shares of the cycles,
        ``bytes_loaded``, ``bytes_stored``); None for other models. `reset`
        zeroes them after reading."""
        if not self._npu:
            return None
        counts = (ctypes.c_int64 * 7)()
        clock = ctypes.c_double()
        macs = ctypes.c_int64()
        self._lib.mlc_npu_sim_stats(self._npu, ctypes.byref(counts),
                                    ctypes.byref(clock), ctypes.byref(macs))
        runs, cycles, mac, loaded, stored, matrix, dma = list(counts)
        per_run = max(runs, 1)
        stats = {
            "runs": runs,
            "cycles": cycles / per_run,
            "milliseconds": cycles / per_run / (clock.value * 1e3),
            "utilization": mac / (macs.value * cycles) if cycles else 0.0,
            "matrix_busy": matrix / cycles if cycles else 0.0,
            "dma_busy": dma / cycles if cycles else 0.0,
            "bytes_loaded": loaded / per_run,
            "bytes_stored": stored / per_run,
        }
        if reset:
            self._lib.mlc_npu_sim_reset_stats(self._npu)
        return stats

    def __del__(self):
        lib, handle = getattr(self, "_lib", None), getattr(self, "_handle", None)
        if lib is None or not handle:
            return
        for arena in self._all_arenas:
            lib.mlc_arena_free(arena)
        if self._gpu:
            lib.mlc_gpu_context_free(self._gpu)
        if getattr(self, "_npu", None):
            lib.mlc_npu_sim_free(self._npu)
        lib.mlc_model_free(handle)
        self._handle = None


def _cuda_device(device):
    """The CUDA device number of `device` ('cuda', 'cuda:N'), None for
    'cpu' and 'npu-sim'."""
    if device in ("cpu", "npu-sim"):
        return None
    if device == "cuda":
        return 0
    if isinstance(device, str) and device.startswith("cuda:") and \
            device[5:].isdigit():
        return int(device[5:])
    raise MLCError("mlc runtime",
                   f"device must be 'cpu', 'cuda', 'cuda:N' or 'npu-sim', "
                   f"not {device!r}")


def load(path, weights=None, device="cpu"):
    """Loads the model library at `path` (from ``mlc-compile -o MODEL.so``);
    `weights` names its weights file when it was compiled with
    ``--weights=external`` and the file is not beside it. A model compiled
    with ``--target=gpu`` loads with ``device="cuda"`` (or ``"cuda:N"``):
    its weights go to the device once, and each run copies the inputs in
    and the outputs out (docs/GPU.md). A model compiled with
    ``--target=npu`` loads with ``device="npu-sim"``: its NPU programs run
    in the NPU simulator, and :meth:`Model.npu_stats` gives the simulated
    cycles (docs/NPU.md)."""
    return Model(path, weights, device)
