#!/usr/bin/python3
# ===- fuzz_models.py - Differential fuzzing of mlc against ONNX Runtime --=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   utils/fuzz_models.py [BUILD_DIR] [--seed S] [--count N] [--start I]
#                        [--jobs J] [--timeout SEC] [--findings DIR]
#                        [--summary-json FILE] [--markdown FILE]
#                        [--mlc-compile PATH] [--mlc-run PATH]
#                        [--reference auto|ort|none] [--no-minimize]
#                        [--keep] [--quiet]
#   utils/fuzz_models.py --replay FINDING_DIR|MODEL.onnx [...]
#
# Generates small random ONNX models that are valid by construction
# (NNSmith-style: the generator tracks every shape, and each model passes
# onnx.checker and ONNX's strict shape inference), compiles and runs each
# with mlc-compile / mlc-run and with ONNX Runtime (onnxruntime-node from
# bench/node_modules, one Node.js process for the whole run through
# bench/ort_run_many.js) on the same random inputs, and compares the
# outputs. Without ONNX Runtime (--reference none, or auto when it is not
# installed) the models are only compiled and run: crashes and errors still
# count, numbers are not compared.
#
# A model is a chain or DAG of blocks: Conv (kernels 1..5, strides,
# dilations, groups and depthwise, asymmetric pads, auto_pad), MaxPool,
# AveragePool, GlobalAveragePool, MatMul, Gemm, BatchNormalization,
# LayerNormalization, Softmax, an attention block (MatMul-Softmax-MatMul with
# Reshape/Transpose), elementwise ops with broadcasting, Reshape, Transpose,
# Concat, Split, Slice, Flatten, Unsqueeze and Resize; in float32, float16
# (all of it, or between Casts) or quantized (QuantizeLinear /
# DequantizeLinear around Conv, MatMul and Gemm; DynamicQuantizeLinear with
# ConvInteger / MatMulInteger; QLinearConv; QLinearMatMul) with int8 and
# uint8. Model i of seed S is generated from the pair (S, i) alone, so any
# model can be generated again with --seed S --start i --count 1.
#
# Tolerance: max |mlc - ref| <= rel * max(1, max |ref|) + q, with rel 1e-4
# for float32 and 1e-2 for float16, and q a bound the generator carries on
# every value for the quantization steps a rounding flip upstream can
# change it by (one step at each rounding, amplified by the weights of the
# linear ops after it; a dynamic scale enters by its reference value).
# Integer outputs allow q steps. A float16 model that differs is compared
# once more with ONNX Runtime's results for the same model in float32 (mlc
# may keep float16 values in float32 between ops, where ONNX Runtime rounds
# every node's result). Quantized inputs are sometimes on a grid
# with power-of-two scales, so that QuantizeLinear sees exact ties and must
# round them half to even with no tolerance at all.
#
# Outcomes: ok; unsupported (mlc-compile exits 1 with a diagnostic that says
# an op or form is not supported: counted, not a failure); compile-error
# (exit 1 with another diagnostic); run-error (mlc-run exits 1);
# crash (a signal, an exit status other than 0 or 1, a crash report on
# stderr, or a time-out, at either step); mismatch (an output's shape, dtype
# or numbers differ); ort-error (ONNX Runtime refused the model: not
# counted against mlc). Each compile-error, run-error, crash and mismatch
# is saved as FINDINGS/<seed>-<index>/ (model.onnx, input_<k>.npy,
# log.txt, meta.json, repro.sh) and minimized into its minimized/ folder:
# the model is cut after the first node whose output shows the failure, the
# nodes before the ones needed are replaced by graph inputs, and input dims
# are shrunk, while ONNX Runtime still runs the model and it fails the same
# way (the same outcome; for errors the same message up to names and
# numbers). --replay runs saved findings again.
#
# Where ONNX Runtime departs from the specification the generator stays
# away (each place says why): SAME padding with dilations, pooling windows
# of padding alone, Resize's align_corners with a fractional output size
# and tf_half_pixel_for_nn rounding up over dims that keep their size.
#
# Prints a summary (outcome counts, models per minute, findings grouped by
# outcome, ops and message, every finding); with --summary-json writes it
# as JSON (also every 200 models during a run), with --markdown as Markdown
# tables.
# Exits 1 when there is a crash, a mismatch, a compile-error or a
# run-error.
#
# ===--------------------------------------------------------------------=== #
"""Differential fuzzer of mlc's code generation against ONNX Runtime.

Usage::

    utils/fuzz_models.py build --seed 1 --count 200 --jobs 2 \\
        --findings /tmp/fuzz-findings --summary-json /tmp/fuzz.json
    utils/fuzz_models.py build --replay /tmp/fuzz-findings/1-17

``BUILD_DIR`` (or ``--mlc-compile``/``--mlc-run``, or $MLC_BUILD_DIR, or
./build) locates the tools; ONNX Runtime comes from
``bench/node_modules/onnxruntime-node`` (``cd bench && npm install
--ignore-scripts``).
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPSET = 17
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
U8, I8, I32, I64 = (TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32,
                    TensorProto.INT64)
NP_TYPES = {F32: np.float32, F16: np.float16, U8: np.uint8, I8: np.int8,
            I32: np.int32, I64: np.int64}
FLOATS = (F32, F16)
QUANTIZED = (U8, I8)
REL_TOLERANCE = {F32: 1e-4, F16: 1e-2}
# Largest tensor and most arithmetic a model may have: a compile stays
# around a second and a run is instant.
MAX_ELEMENTS = 4096
MAX_FLOPS = 1_000_000
CRASH_MARKERS = ("LLVM ERROR", "PLEASE submit a bug report", "Assertion",
                 "Sanitizer", "runtime error:", "Stack dump",
                 "UNREACHABLE executed", "terminate called")
UNSUPPORTED = re.compile(
    r"unsupported|not supported|no converter|does not convert|"
    r"does not support|not implemented|refuses|cannot lower|not yet|"
    r"no lowering", re.I)


# ===--------------------------------------------------------------------=== #
# The generator
# ===--------------------------------------------------------------------=== #

class Skip(Exception):
    """A block does not apply to the value it was given; the graph is
    rolled back to before the block."""


class Value:
    """A tensor of the graph being generated.

    ``err`` bounds how far mlc's value may be from the reference's because
    of quantization: {"": absolute bound, NAME: coefficient of the value
    NAME (a dynamic scale, a graph output)}; in the value's own units
    (steps for integers). ``exact`` marks a value both must compute bit for
    bit (graph inputs and data movement of them). ``q`` is (scale name,
    zero point name, scale, zero point) for an int8/uint8 value.
    """

    def __init__(self, name, shape, dtype, err=None, exact=False, q=None):
        self.name, self.shape, self.dtype = name, tuple(int(d) for d in shape), dtype
        self.err = {k: v for k, v in (err or {}).items() if v}
        self.exact, self.q = exact, q

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))


def scaled(err, factor):
    """`err` times a Lipschitz bound; None for an unbounded op."""
    if not err:
        return {}
    if factor is None or not math.isfinite(factor):
        raise Skip("an unbounded op after quantization")
    return {k: v * factor for k, v in err.items()}


def summed(*errs):
    out = {}
    for err in errs:
        for k, v in err.items():
            out[k] = out.get(k, 0.0) + v
    return out


def numeric(err):
    """The bound of `err` as a number; Skip if it depends on a run-time
    value."""
    if any(k for k in err):
        raise Skip("an error bound that depends on a dynamic scale")
    return err.get("", 0.0)


def requantized(err, scale, exact):
    """Steps a QuantizeLinear of a value with error `err` (float units) to
    `scale` may differ by: none when both compute the same float exactly
    and the scale is a power of two, else floor(err / scale) + 1."""
    e = numeric(err)
    if exact and e == 0 and is_pow2(scale):
        return {}
    return {"": math.floor(e / scale) + 1}


def is_pow2(x):
    m, _ = math.frexp(x)
    return m == 0.5


def conv_out(size, k, s, d, pb, pe, ceil=False):
    eff = d * (k - 1) + 1
    num = size + pb + pe - eff
    if num < 0:
        return 0
    return (-(-num // s) if ceil else num // s) + 1


class Graph:
    """The model being generated: nodes, initializers, inputs and the
    tracked values."""

    def __init__(self, rng, mode):
        self.rng, self.mode = rng, mode
        self.fdtype = F16 if mode == "f16" else F32
        self.nodes, self.inits, self.inputs = [], [], []
        self.values, self.order = {}, []
        self.consumed, self.forced = set(), []
        self.counter, self.flops = 0, 0
        self.blocks = []

    # Roll-back.
    def snapshot(self):
        return (len(self.nodes), len(self.inits), len(self.inputs),
                dict(self.values), list(self.order), set(self.consumed),
                list(self.forced), self.counter, self.flops, len(self.blocks))

    def restore(self, s):
        (n, i, x, self.values, self.order, self.consumed, self.forced,
         self.counter, self.flops, b) = s
        del self.nodes[n:], self.inits[i:], self.inputs[x:], self.blocks[b:]

    # Random helpers.
    def randint(self, lo, hi):
        """An integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def chance(self, p):
        return bool(self.rng.random() < p)

    def choice(self, options, p=None):
        return options[int(self.rng.choice(len(options), p=p))]

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}{self.counter}"

    # Building.
    def const(self, array, hint="w"):
        name = self.fresh(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def ints(self, values):
        return self.const(np.asarray(values, np.int64), "i")

    def node(self, op, inputs, outputs=1, **attrs):
        names = [self.fresh(op[:4].lower()) for _ in range(outputs)]
        self.consumed.update(i for i in inputs if i)
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op, list(inputs), names,
                                           name=self.fresh("n_" + op),
                                           **attrs))
        return names

    def value(self, name, shape, dtype, **kw):
        shape = tuple(int(d) for d in shape)
        if any(d < 1 for d in shape):
            raise Skip("an empty dim")
        if int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS:
            raise Skip("too large")
        v = Value(name, shape, dtype, **kw)
        self.values[name] = v
        self.order.append(name)
        return v

    def op(self, op, inputs, shape, dtype, err=None, exact=False, q=None,
           **attrs):
        """A one-output node and its value."""
        (out,) = self.node(op, inputs, **attrs)
        return self.value(out, shape, dtype, err=err, exact=exact, q=q)

    def input(self, shape, dtype, kind="normal"):
        name = self.fresh("in")
        v = self.value(name, shape, dtype, exact=True)
        self.inputs.append((name, v.shape, dtype, kind))
        return v

    def cost(self, flops):
        self.flops += int(flops)
        if self.flops > MAX_FLOPS:
            raise Skip("over the arithmetic budget")

    def weights(self, shape, fan_in, dtype=None):
        w = self.rng.standard_normal(shape) / math.sqrt(max(1, fan_in))
        return w.astype(NP_TYPES[dtype or self.fdtype])

    def floats(self, shape, scale=1.0, dtype=None):
        return (self.rng.standard_normal(shape) * scale).astype(
            NP_TYPES[dtype or self.fdtype])

    # Quantization parameters.
    def act_scale(self, pow2):
        if pow2:
            return 2.0 ** -self.randint(3, 6)
        return float(np.float32(self.rng.uniform(0.01, 0.06)))

    def zero_point(self, dtype):
        if dtype == U8:
            return self.randint(96, 160) if self.chance(0.7) else 128
        return self.randint(-16, 16) if self.chance(0.5) else 0

    def qparams(self, dtype, scale, zp):
        return (self.const(np.float32(scale), "s"),
                self.const(np.array(zp, NP_TYPES[dtype]), "z"), scale, zp)

    def quantize(self, x, dtype=None, pow2=None):
        """QuantizeLinear of a float32 value to a fresh per-tensor scale."""
        if x.dtype != F32:
            raise Skip("quantizes float32 only")
        dtype = dtype or self.choice([U8, I8])
        pow2 = self.chance(0.5) if pow2 is None else pow2
        scale = self.act_scale(pow2)
        q = self.qparams(dtype, scale, self.zero_point(dtype))
        err = requantized(x.err, scale, x.exact)
        return self.op("QuantizeLinear", [x.name, q[0], q[1]], x.shape, dtype,
                       err=err, exact=not err, q=q)

    def dequantize(self, x):
        scale = x.q[2]
        err = scaled(x.err, scale)
        return self.op("DequantizeLinear", [x.name, x.q[0], x.q[1]], x.shape,
                       F32, err=err, exact=not err and is_pow2(scale))


def broadcast(a, b):
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise Skip("not broadcastable")
        out.append(max(x, y))
    return tuple(out)


def is_float(g, x):
    return x.dtype == g.fdtype


def need_float(g, x):
    if not is_float(g, x):
        raise Skip("needs a float value")


def linear_bound(w, axis):
    """The largest sum of |w| over all axes but `axis` (the infinity norm
    of the linear map, output channel or column on `axis`)."""
    w = np.abs(np.asarray(w, np.float64))
    w = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    return float(w.sum(axis=1).max()) if w.size else 0.0


# ---- Elementwise ---------------------------------------------------------

def unary(g, x):
    need_float(g, x)
    op = g.choice(["Relu", "Sigmoid", "Tanh", "Clip", "HardSigmoid",
                   "LeakyRelu", "Abs", "Neg"])
    inputs, attrs, lip = [x.name], {}, 1.0
    exact = op in ("Relu", "Abs", "Neg") and x.exact
    if op == "Sigmoid":
        lip = 0.25
    elif op == "Clip":
        lo = float(g.rng.uniform(-2, 0))
        hi = float(g.rng.uniform(0.1, 2))
        kind = g.randint(0, 2)
        np_t = NP_TYPES[g.fdtype]
        inputs += [g.const(np_t(lo), "lo") if kind != 2 else "",
                   g.const(np_t(hi), "hi") if kind != 1 else ""]
        while inputs and inputs[-1] == "":
            inputs.pop()
    elif op == "HardSigmoid":
        attrs = {"alpha": float(g.rng.uniform(0.1, 0.5)),
                 "beta": float(g.rng.uniform(0.2, 0.8))}
        lip = attrs["alpha"]
    elif op == "LeakyRelu":
        attrs = {"alpha": float(g.rng.uniform(0.01, 0.5))}
    return g.op(op, inputs, x.shape, x.dtype, err=scaled(x.err, lip),
                exact=exact, **attrs)


def broadcast_shape(g, shape):
    """A random shape that broadcasts with `shape`."""
    keep = g.randint(0, len(shape))
    out = []
    for d in shape[len(shape) - keep:]:
        if d == 1 and g.chance(0.2):
            out.append(g.randint(2, 3))
        else:
            out.append(d if g.chance(0.6) else 1)
    if g.chance(0.1) and len(out) < 5 and len(shape) < 5 and keep == len(shape):
        out.insert(0, 2)
    return tuple(out)


def binary(g, x):
    need_float(g, x)
    op = g.choice(["Add", "Mul", "Sub", "Max", "Min"], p=[.4, .3, .1, .1, .1])
    source = g.choice(["const", "value", "input"], p=[.5, .3, .2])
    other, other_err, is_const = None, {}, False
    if source == "value":
        candidates = [g.values[n] for n in g.order
                      if n != x.name and is_float(g, g.values[n])]
        fits = []
        for c in candidates:
            try:
                if broadcast(x.shape, c.shape) == x.shape or g.chance(0.3):
                    broadcast(x.shape, c.shape)
                    fits.append(c)
            except Skip:
                pass
        if not fits:
            raise Skip("no value to pair with")
        c = fits[g.randint(0, len(fits) - 1)]
        other, other_err, shape = c.name, c.err, c.shape
    else:
        shape = broadcast_shape(g, x.shape)
        if source == "const":
            c = g.floats(shape)
            other, is_const = g.const(c, "b"), True
            cmax = float(np.abs(c.astype(np.float64)).max())
        else:
            other = g.input(shape, g.fdtype).name
    out_shape = broadcast(x.shape, shape)
    if g.chance(0.5):
        a, b, ea, eb = x.name, other, x.err, other_err
    else:
        a, b, ea, eb = other, x.name, other_err, x.err
    if op == "Mul":
        if is_const:
            err = scaled(x.err, cmax)
        elif x.err or other_err:
            raise Skip("a product of two values with quantization error")
        else:
            err = {}
    else:
        err = summed(ea, eb)
    g.cost(np.prod(out_shape))
    return g.op(op, [a, b], out_shape, x.dtype, err=err,
                exact=op in ("Max", "Min") and x.exact and source != "value")


# ---- Convolution and pooling ---------------------------------------------

def window(g, spatial, max_kernel, allow_dilation, pool=False):
    """Kernel, strides, dilations, pads (or auto_pad) and output dims of a
    sliding window over `spatial`."""
    n = len(spatial)
    kernel = [g.randint(1, max_kernel) for _ in range(n)]
    strides = [g.randint(1, 2) for _ in range(n)]
    dil = [g.choice([1, 2]) if allow_dilation and g.chance(0.3) else 1
           for _ in range(n)]
    auto = g.choice(["pads", "none", "SAME_UPPER", "SAME_LOWER", "VALID"],
                    p=[.55, .1, .15, .1, .1])
    if auto.startswith("SAME"):
        # ONNX Runtime's Conv has no SAME padding with dilations, and its
        # MaxPool computes the wrong output size with them.
        dil = [1] * n
    attrs = {"kernel_shape": kernel}
    if g.chance(0.5) or any(s != 1 for s in strides):
        attrs["strides"] = strides
    if any(d != 1 for d in dil) or (allow_dilation and g.chance(0.1)):
        attrs["dilations"] = dil
    pads = [0] * (2 * n)
    if auto == "pads":
        for i in range(n):
            limit = kernel[i] - 1 if pool else dil[i] * (kernel[i] - 1)
            pads[i] = g.randint(0, limit)
            pads[i + n] = pads[i] if g.chance(0.5) else g.randint(0, limit)
        attrs["pads"] = pads
    elif auto != "none":
        attrs["auto_pad"] = auto
    out = []
    for i in range(n):
        begin = pads[i]
        if auto.startswith("SAME"):
            o = -(-spatial[i] // strides[i])
            eff = dil[i] * (kernel[i] - 1) + 1
            total = max(0, (o - 1) * strides[i] + eff - spatial[i])
            if pool and total // 2 + total % 2 >= kernel[i]:
                raise Skip("a pooling pad as large as its kernel")
            if pool and (o - 1) * strides[i] + eff < spatial[i]:
                # ONNX Runtime's pooling refuses SAME when the windows would
                # need negative padding.
                raise Skip("SAME with windows that skip the input's end")
            begin = total // 2 if auto == "SAME_UPPER" else total - total // 2
        else:
            o = conv_out(spatial[i], kernel[i], strides[i], dil[i], pads[i],
                         pads[i + n])
        if o < 1:
            raise Skip("an empty output")
        if pool and not all_windows_see_input(spatial[i], kernel[i],
                                              strides[i], dil[i], begin, o):
            raise Skip("a window of padding only")
        out.append(o)
    return attrs, out, auto, pads


def all_windows_see_input(size, k, s, d, begin, out):
    """Whether each of `out` windows has an element of the input (a window
    of padding alone has no defined maximum or average)."""
    return all(any(0 <= o * s - begin + j * d < size for j in range(k))
               for o in range(out))


def pick_groups(g, c):
    options = [1] + [d for d in range(2, c + 1) if c % d == 0]
    groups = 1 if g.chance(0.45) else g.choice(options)
    return groups


def conv(g, x):
    if x.rank not in (3, 4, 5):
        raise Skip("Conv needs rank 3 to 5")
    if x.rank == 5 and g.chance(0.5):
        raise Skip("fewer 3-D convolutions")
    variant = "float"
    if g.mode == "quant":
        variant = g.choice(["float", "qdq", "qlinear", "integer"],
                           p=[.15, .4, .25, .2])
    if x.dtype in QUANTIZED:
        if variant not in ("qlinear", "integer"):
            variant = g.choice(["qlinear", "integer"])
    elif not is_float(g, x):
        raise Skip("Conv of an integer")
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    groups = pick_groups(g, c)
    if groups == c and c > 1:
        cout = c * g.choice([1, 1, 2])
    else:
        cout = groups * g.randint(1, max(1, 12 // groups))
    attrs, out, _, _ = window(g, spatial, 5 if x.rank < 5 else 3, True)
    attrs["group"] = groups if groups != 1 or g.chance(0.3) else None
    kernel = attrs["kernel_shape"]
    if g.chance(0.3):
        del attrs["kernel_shape"]  # inferred from the weights
    fan_in = c // groups * int(np.prod(kernel))
    wshape = (cout, c // groups, *kernel)
    out_shape = (n, cout, *out)
    g.cost(2 * np.prod(out_shape) * fan_in)
    if variant == "float":
        w = g.weights(wshape, fan_in)
        inputs = [x.name, g.const(w)]
        if g.chance(0.6):
            inputs.append(g.const(g.floats((cout,), 0.5), "bias"))
        return g.op("Conv", inputs, out_shape, x.dtype,
                    err=scaled(x.err, linear_bound(w, 0)), **attrs)
    if variant == "qdq":
        return qdq_contraction(g, x, "Conv", wshape, fan_in, out_shape, attrs)
    if variant == "qlinear":
        return qlinear_conv(g, x, wshape, fan_in, out_shape, attrs)
    return integer_contraction(g, x, "ConvInteger", wshape, out_shape, attrs)


def quantized_weights(g, wshape, fan_in, dtype, channel_axis, per_channel):
    """Integer weights, their scales (one per channel on `channel_axis`, or
    one) and zero points: dequantized they are about N(0, 1/fan_in)."""
    channels = wshape[channel_axis]
    count = channels if per_channel else 1
    scale = (g.rng.uniform(0.5, 1.5, count) /
             (40 * math.sqrt(max(1, fan_in)))).astype(np.float32)
    if dtype == I8:
        zp = np.zeros(count, np.int8)
        w = np.clip(np.round(g.rng.standard_normal(wshape) * 40), -127, 127)
    else:
        zp = np.full(count, g.randint(100, 150), np.uint8)
        shape = [1] * len(wshape)
        shape[channel_axis] = -1
        w = np.clip(np.round(g.rng.standard_normal(wshape) * 40)
                    + zp.astype(np.int64).reshape(shape if per_channel
                                                  else [1] * len(wshape)),
                    0, 255)
    w = w.astype(NP_TYPES[dtype])
    if not per_channel:
        scale, zp = scale.reshape(()), zp.reshape(())
    return w, scale, zp


def dequantized(w, scale, zp, axis):
    shape = [1] * w.ndim
    if np.ndim(scale):
        shape[axis] = -1
    return ((w.astype(np.float64) - np.reshape(zp, shape))
            * np.reshape(scale, shape))


def qdq_contraction(g, x, op, wshape, fan_in, out_shape, attrs,
                    channel_axis=0):
    """Q/DQ around a float Conv, MatMul or Gemm: the activation quantized
    and dequantized, int8 weights dequantized (per tensor or per output
    channel), an int32 bias dequantized at the product of the scales or a
    float bias, and the result quantized and dequantized again or not."""
    xq = x if x.dtype in QUANTIZED else g.quantize(x)
    sx = xq.q[2]
    xd = g.dequantize(xq)
    per_channel = g.chance(0.5)
    w, ws, wz = quantized_weights(g, wshape, fan_in, I8, channel_axis,
                                  per_channel)
    wq = g.const(w, "wq")
    ws_name, wz_name = g.const(ws, "ws"), g.const(wz, "wz")
    axis = channel_axis if per_channel else None
    (wd,) = g.node("DequantizeLinear", [wq, ws_name, wz_name], axis=axis)
    inputs = [xd.name, wd]
    cout = wshape[channel_axis]
    if op != "MatMul" and g.chance(0.6):
        if g.chance(0.5):
            bscale = (np.float32(sx) * np.asarray(ws, np.float32)).astype(
                np.float32)
            bias = np.round(g.rng.standard_normal(cout) * 0.3 /
                            np.broadcast_to(bscale, (cout,))).astype(np.int32)
            (bd,) = g.node("DequantizeLinear",
                           [g.const(bias, "bq"), g.const(bscale, "bs")],
                           axis=0 if bscale.ndim else None)
            inputs.append(bd)
        else:
            inputs.append(g.const(g.floats((cout,), 0.5), "bias"))
    lip = linear_bound(dequantized(w, ws, wz, channel_axis), channel_axis)
    y = g.op(op, inputs, out_shape, F32, err=scaled(xd.err, lip), **attrs)
    if g.chance(0.6):
        yq = g.quantize(y, pow2=False)
        return yq if g.chance(0.2) else g.dequantize(yq)
    return y


def qlinear_conv(g, x, wshape, fan_in, out_shape, attrs):
    xq = x if x.dtype in QUANTIZED else g.quantize(x)
    # ONNX Runtime has uint8 x uint8, uint8 x int8 and int8 x int8, with
    # the result typed as the input.
    wdtype = I8 if xq.dtype == I8 or g.chance(0.7) else U8
    per_channel = wdtype == I8 and g.chance(0.5)
    w, ws, wz = quantized_weights(g, wshape, fan_in, wdtype, 0, per_channel)
    ydtype = xq.dtype
    ys = float(np.float32(g.rng.uniform(0.02, 0.08)))
    yq = g.qparams(ydtype, ys, g.zero_point(ydtype))
    inputs = [xq.name, xq.q[0], xq.q[1], g.const(w, "wq"), g.const(ws, "ws"),
              g.const(wz, "wz"), yq[0], yq[1]]
    if g.chance(0.6):
        bscale = np.float32(xq.q[2]) * np.asarray(ws, np.float32)
        bias = np.round(g.rng.standard_normal(wshape[0]) * 0.3 /
                        np.broadcast_to(bscale, (wshape[0],)))
        inputs.append(g.const(bias.astype(np.int32), "bq"))
    real = linear_bound(dequantized(w, ws, wz, 0), 0) * xq.q[2]
    e = numeric(xq.err) * real
    err = {"": math.floor(e / ys) + 1}
    return g.op("QLinearConv", inputs, out_shape, ydtype, err=err, q=yq,
                **attrs)


def integer_contraction(g, x, op, wshape, out_shape, attrs, channel_axis=0):
    """ConvInteger / MatMulInteger: of a value quantized here by
    DynamicQuantizeLinear (whose scale is a run-time value, an output of the
    model, and scales the tolerance) or of a quantized value; the int32
    result is cast to float and multiplied by the product of the scales."""
    wdtype = U8 if op == "ConvInteger" or g.chance(0.5) else I8
    w, ws, wz = quantized_weights(g, wshape, 1, wdtype, channel_axis, False)
    ws = np.float32(g.rng.uniform(0.005, 0.02))
    lip_int = linear_bound(w.astype(np.int64) - int(wz), channel_axis)
    if x.dtype in QUANTIZED:
        if x.dtype != U8:
            raise Skip("integer contractions of uint8 here")
        xq, xz = x, x.q[1]
        err = {"": numeric(x.err) * lip_int * x.q[2] * float(ws)}
        scale = g.const(np.float32(x.q[2] * float(ws)), "s")
    else:
        if x.dtype != F32 or x.err:
            raise Skip("DynamicQuantizeLinear of an exact float32 value")
        q, s, z = g.node("DynamicQuantizeLinear", [x.name], outputs=3)
        g.value(q, x.shape, U8)
        g.value(s, (), F32)
        g.value(z, (), U8)
        xq, xz = g.values[q], z
        (scale,) = g.node("Mul", [s, g.const(ws, "ws")])
        g.value(scale, (), F32)
        g.forced.append(scale)
        # DynamicQuantizeLinear's scale and zero point may round the other
        # way: x - zero point moves by at most one step.
        err = {scale: lip_int}
    inputs = [xq.name, g.const(w, "wq"), xz, g.const(wz, "wz")]
    (acc,) = g.node(op, inputs, **attrs)
    g.value(acc, out_shape, I32)
    (f,) = g.node("Cast", [acc], to=F32)
    g.value(f, out_shape, F32)
    return g.op("Mul", [f, scale], out_shape, F32, err=err)


def max_pool(g, x):
    if x.rank not in (3, 4, 5):
        raise Skip("pooling needs rank 3 to 5")
    if not (is_float(g, x) or x.dtype in QUANTIZED):
        raise Skip("MaxPool of float or int8/uint8")
    attrs, out, auto, pads = window(g, x.shape[2:], 3, True, pool=True)
    if auto in ("pads", "none") and g.chance(0.25):
        ceil = [conv_out(s, k, st, d, pads[i], pads[i + len(out)], True)
                for i, (s, k, st, d) in enumerate(zip(
                    x.shape[2:], attrs["kernel_shape"],
                    attrs.get("strides", [1] * len(out)),
                    attrs.get("dilations", [1] * len(out))))]
        # No window may start past the input and its begin pad (there ONNX
        # Runtime and the specification's formula part ways).
        strides = attrs.get("strides", [1] * len(out))
        dils = attrs.get("dilations", [1] * len(out))
        if all((o - 1) * st < s + pads[i] and all_windows_see_input(
                s, k, st, d, pads[i], o) for i, (o, st, s, k, d) in enumerate(
                zip(ceil, strides, x.shape[2:], attrs["kernel_shape"],
                    dils))):
            attrs["ceil_mode"], out = 1, ceil
    shape = (*x.shape[:2], *out)
    g.cost(np.prod(shape) * np.prod(attrs["kernel_shape"]))
    return g.op("MaxPool", [x.name], shape, x.dtype, err=x.err,
                exact=x.exact, q=x.q, **attrs)


def average_pool(g, x):
    need_float(g, x)
    if x.rank not in (3, 4, 5):
        raise Skip("pooling needs rank 3 to 5")
    attrs, out, auto, pads = window(g, x.shape[2:], 3, False, pool=True)
    if g.chance(0.5):
        attrs["count_include_pad"] = 1
    shape = (*x.shape[:2], *out)
    g.cost(np.prod(shape) * np.prod(attrs["kernel_shape"]))
    return g.op("AveragePool", [x.name], shape, x.dtype, err=x.err, **attrs)


def global_pool(g, x):
    need_float(g, x)
    if x.rank not in (3, 4, 5):
        raise Skip("pooling needs rank 3 to 5")
    op = g.choice(["GlobalAveragePool", "GlobalMaxPool"], p=[.8, .2])
    shape = (*x.shape[:2],) + (1,) * (x.rank - 2)
    return g.op(op, [x.name], shape, x.dtype, err=x.err,
                exact=op == "GlobalMaxPool" and x.exact)


# ---- Contractions --------------------------------------------------------

def matmul(g, x):
    if x.rank < 1:
        raise Skip("MatMul of a scalar")
    k = x.shape[-1]
    n = g.randint(1, 16)
    variant = "float"
    if g.mode == "quant":
        variant = g.choice(["float", "qdq", "qlinear", "integer"],
                           p=[.15, .4, .25, .2])
    if x.dtype in QUANTIZED:
        if variant not in ("qlinear", "integer"):
            variant = g.choice(["qlinear", "integer"])
    elif not is_float(g, x):
        raise Skip("MatMul of an integer")
    vector = batched = False
    if x.rank == 1:
        wshape, out_shape = (k, n), (n,)
    else:
        vector = variant == "float" and g.chance(0.1)
        batched = variant == "float" and not vector and g.chance(0.2)
    if vector:
        wshape, out_shape = (k,), x.shape[:-1]
    elif batched:
        b = x.shape[-3] if x.rank >= 3 else 1
        if b == 1:
            b = g.randint(1, 3)
        wshape = (b, k, n)
        out_shape = broadcast(x.shape[:-2], (b,)) + (x.shape[-2], n)
    elif x.rank > 1:
        wshape, out_shape = (k, n), x.shape[:-1] + (n,)
    g.cost(2 * int(np.prod(out_shape)) * k)
    if variant == "float":
        w = g.weights(wshape, k)
        return g.op("MatMul", [x.name, g.const(w)], out_shape, x.dtype,
                    err=scaled(x.err, linear_bound(w, -1) if w.ndim > 1
                               else float(np.abs(w).sum())))
    if x.rank < 2 and variant != "qdq":
        raise Skip("QLinearMatMul / MatMulInteger of a matrix")
    if variant == "qdq":
        return qdq_contraction(g, x, "MatMul", wshape, k, out_shape, {},
                               channel_axis=1)
    if variant == "integer":
        return integer_contraction(g, x, "MatMulInteger", wshape, out_shape,
                                   {}, channel_axis=1)
    xq = x if x.dtype in QUANTIZED else g.quantize(x)
    wdtype = I8 if xq.dtype == I8 else g.choice([U8, I8])
    w, ws, wz = quantized_weights(g, wshape, k, wdtype, 1, False)
    ydtype = xq.dtype
    ys = float(np.float32(g.rng.uniform(0.02, 0.08)))
    yq = g.qparams(ydtype, ys, g.zero_point(ydtype))
    inputs = [xq.name, xq.q[0], xq.q[1], g.const(w, "wq"), g.const(ws, "ws"),
              g.const(wz, "wz"), yq[0], yq[1]]
    e = numeric(xq.err) * xq.q[2] * linear_bound(
        dequantized(w, ws, wz, 1), 1)
    return g.op("QLinearMatMul", inputs, out_shape, ydtype,
                err={"": math.floor(e / ys) + 1}, q=yq)


def gemm(g, x):
    if x.rank != 2:
        raise Skip("Gemm needs a matrix")
    variant = "float"
    if g.mode == "quant":
        variant = g.choice(["float", "qdq"], p=[.3, .7])
    if variant == "qdq" and x.dtype not in QUANTIZED and x.dtype != F32:
        raise Skip("Q/DQ Gemm of float32")
    if variant == "float":
        need_float(g, x)
    trans_a = g.chance(0.3)
    m, k = (x.shape[1], x.shape[0]) if trans_a else x.shape
    n = g.randint(1, 16)
    out_shape = (m, n)
    g.cost(2 * m * n * k)
    if variant == "qdq":
        attrs = {"transA": 1 if trans_a else None}
        return qdq_contraction(g, x, "Gemm", (k, n), k, out_shape, attrs,
                               channel_axis=1)
    trans_b = g.chance(0.4)
    w = g.weights((n, k) if trans_b else (k, n), k)
    alpha = float(g.choice([1.0, 1.0, 0.5, 2.0]))
    inputs = [x.name, g.const(w)]
    beta = None
    if g.chance(0.7):
        cshape = g.choice([(n,), (1, n), (m, 1), (m, n), ()])
        inputs.append(g.const(g.floats(cshape, 0.5), "c"))
        beta = float(g.choice([1.0, 1.0, 0.5]))
    lip = alpha * linear_bound(w, 0 if trans_b else 1)
    return g.op("Gemm", inputs, out_shape, x.dtype, err=scaled(x.err, lip),
                alpha=alpha if alpha != 1.0 else None, beta=beta,
                transA=1 if trans_a else None, transB=1 if trans_b else None)


def attention(g, x):
    """Single-block attention: projections, heads by Reshape/Transpose,
    scaled Q K^T (with a mask now and then), Softmax, times V, heads
    merged, an output projection and a residual."""
    need_float(g, x)
    if x.err:
        raise Skip("attention after quantization")
    if x.rank == 2:
        (r,) = g.node("Reshape", [x.name, g.ints([1, *x.shape])])
        x = g.value(r, (1, *x.shape), x.dtype)
    if x.rank != 3:
        raise Skip("attention of rank 2 or 3")
    b, s, d = x.shape
    heads = g.randint(1, 4)
    dh = g.randint(1, 8)
    hd = heads * dh
    g.cost(2 * b * s * d * hd * 3 + 4 * b * heads * s * s * dh + 2 * b * s * hd * d)
    t = x.dtype

    def project(perm):
        (p,) = g.node("MatMul", [x.name, g.const(g.weights((d, hd), d))])
        shape = [0 if g.chance(0.3) else b, -1 if g.chance(0.3) else s,
                 heads, dh]
        (r,) = g.node("Reshape", [p, g.ints(shape)])
        (tr,) = g.node("Transpose", [r], perm=perm)
        return tr

    q = project([0, 2, 1, 3])
    k = project([0, 2, 3, 1])
    v = project([0, 2, 1, 3])
    (scores,) = g.node("MatMul", [q, k])
    (scores,) = g.node("Mul", [scores, g.const(
        np.array(1 / math.sqrt(dh), NP_TYPES[t]), "scale")])
    if g.chance(0.3):
        mask = np.triu(np.full((s, s), -1e4 if t == F32 else -1e3), 1)
        shape = g.choice([(s, s), (1, 1, s, s)])
        (scores,) = g.node("Add", [scores, g.const(
            mask.reshape(shape).astype(NP_TYPES[t]), "mask")])
    (probs,) = g.node("Softmax", [scores], axis=-1)
    (ctx,) = g.node("MatMul", [probs, v])
    (ctx,) = g.node("Transpose", [ctx], perm=[0, 2, 1, 3])
    (ctx,) = g.node("Reshape", [ctx, g.ints([b, s, hd] if g.chance(0.5)
                                            else [0, 0, -1])])
    if g.chance(0.6):
        (ctx,) = g.node("MatMul", [ctx, g.const(g.weights((hd, d), hd))])
        if g.chance(0.7):
            (ctx,) = g.node("Add", [ctx, x.name])
        return g.value(ctx, (b, s, d), t)
    return g.value(ctx, (b, s, hd), t)


# ---- Normalization -------------------------------------------------------

def batch_norm(g, x):
    need_float(g, x)
    if x.rank < 2:
        raise Skip("BatchNormalization needs a channel dim")
    c = x.shape[1]
    scale = g.floats((c,), 0.5) + NP_TYPES[g.fdtype](1)
    bias = g.floats((c,), 0.5)
    mean = g.floats((c,), 0.5)
    var = np.abs(g.floats((c,))) + NP_TYPES[g.fdtype](0.2)
    eps = float(g.choice([1e-5, 1e-3, 0.1]))
    lip = float(np.max(np.abs(scale.astype(np.float64)) /
                       np.sqrt(var.astype(np.float64) + eps)))
    inputs = [x.name] + [g.const(a, "bn") for a in (scale, bias, mean, var)]
    return g.op("BatchNormalization", inputs, x.shape, x.dtype,
                err=scaled(x.err, lip), epsilon=eps)


def layer_norm(g, x):
    need_float(g, x)
    if x.err:
        raise Skip("LayerNormalization after quantization")
    axis = g.randint(-x.rank, x.rank - 1)
    norm = x.shape[axis:]
    if int(np.prod(norm)) < 2:
        raise Skip("a normalization over one element")
    inputs = [x.name, g.const(g.floats(norm, 0.5) + NP_TYPES[g.fdtype](1),
                              "ln")]
    if g.chance(0.7):
        inputs.append(g.const(g.floats(norm, 0.5), "ln"))
    g.cost(8 * x.size)
    return g.op("LayerNormalization", inputs, x.shape, x.dtype,
                axis=axis if axis != -1 or g.chance(0.5) else None,
                epsilon=float(g.choice([1e-5, 1e-3])))


def softmax(g, x):
    need_float(g, x)
    if x.rank < 1:
        raise Skip("Softmax of a scalar")
    axis = g.randint(-x.rank, x.rank - 1)
    op = g.choice(["Softmax", "Softmax", "LogSoftmax"])
    if op == "LogSoftmax" and x.err:
        raise Skip("LogSoftmax after quantization")
    g.cost(6 * x.size)
    return g.op(op, [x.name], x.shape, x.dtype, err=x.err,
                axis=axis if axis != -1 or g.chance(0.5) else None)


# ---- Data movement -------------------------------------------------------

def movable(g, x):
    if not (is_float(g, x) or x.dtype in QUANTIZED):
        raise Skip("moves float or int8/uint8 values")


def factor_shape(g, total, rank):
    """A random shape of `rank` dims with product `total`."""
    primes, t, p = [], total, 2
    while t > 1 and p * p <= t:
        while t % p == 0:
            primes.append(p)
            t //= p
        p += 1
    if t > 1:
        primes.append(t)
    dims = [1] * rank
    for p in primes:
        dims[g.randint(0, rank - 1)] *= p
    return dims


def reshape(g, x):
    movable(g, x)
    rank = g.randint(1, 5)
    shape = factor_shape(g, x.size, rank)
    spec = list(shape)
    if g.chance(0.4):
        spec[g.randint(0, rank - 1)] = -1
    for i in range(min(rank, x.rank)):
        if spec[i] == x.shape[i] and g.chance(0.3):
            spec[i] = 0
    return g.op("Reshape", [x.name, g.ints(spec)], shape, x.dtype,
                err=x.err, exact=x.exact, q=x.q)


def flatten(g, x):
    movable(g, x)
    axis = g.randint(0, x.rank)
    shape = (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:])))
    if g.chance(0.3) and 0 < axis < x.rank:
        axis -= x.rank
    return g.op("Flatten", [x.name], shape, x.dtype, err=x.err,
                exact=x.exact, q=x.q, axis=axis)


def unsqueeze(g, x):
    movable(g, x)
    if x.rank >= 5:
        raise Skip("rank 5 is the most")
    count = g.randint(1, min(2, 5 - x.rank))
    rank = x.rank + count
    axes = sorted(int(a) for a in g.rng.choice(rank, count, replace=False))
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    spec = [a - rank if g.chance(0.3) else a for a in axes]
    return g.op("Unsqueeze", [x.name, g.ints(spec)], shape, x.dtype,
                err=x.err, exact=x.exact, q=x.q)


def transpose(g, x):
    movable(g, x)
    if x.rank < 2:
        raise Skip("Transpose of a vector")
    perm = [int(p) for p in g.rng.permutation(x.rank)]
    attrs = {"perm": perm}
    if perm == list(range(x.rank))[::-1] and g.chance(0.5):
        attrs = {}
    shape = [x.shape[p] for p in perm]
    return g.op("Transpose", [x.name], shape, x.dtype, err=x.err,
                exact=x.exact, q=x.q, **attrs)


def concat(g, x):
    movable(g, x)
    if x.rank < 1:
        raise Skip("Concat of a scalar")
    axis = g.randint(0, x.rank - 1)
    others = []
    for name in g.order:
        v = g.values[name]
        if (v.dtype == x.dtype and v.rank == x.rank and name != x.name and
                all(a == b for i, (a, b) in enumerate(zip(v.shape, x.shape))
                    if i != axis) and (v.q is None) == (x.q is None)):
            others.append(v)
    parts = [x]
    for _ in range(g.randint(1, 2)):
        if others and g.chance(0.5):
            parts.append(others[g.randint(0, len(others) - 1)])
        elif x.dtype in QUANTIZED:
            parts.append(x)
        else:
            shape = list(x.shape)
            shape[axis] = g.randint(1, 4)
            if g.chance(0.6):
                name = g.const(g.floats(shape), "cat")
                parts.append(Value(name, shape, x.dtype, exact=True))
            else:
                parts.append(g.input(shape, x.dtype))
    if g.chance(0.5):
        parts = [parts[i] for i in g.rng.permutation(len(parts))]
    shape = list(x.shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    err = {}
    for p in parts:
        err = {k: max(err.get(k, 0), p.err.get(k, 0))
               for k in set(err) | set(p.err)}
    return g.op("Concat", [p.name for p in parts], shape, x.dtype, err=err,
                exact=all(p.exact for p in parts), q=x.q,
                axis=axis - x.rank if g.chance(0.3) else axis)


def split(g, x):
    movable(g, x)
    axes = [a for a in range(x.rank) if x.shape[a] >= 2]
    if not axes:
        raise Skip("nothing to split")
    axis = axes[g.randint(0, len(axes) - 1)]
    d = x.shape[axis]
    inputs = [x.name]
    if g.chance(0.5):
        parts = [k for k in (2, 3) if d % k == 0]
        if not parts:
            raise Skip("no even split")
        count = g.choice(parts)
        sizes = [d // count] * count
    else:
        count = g.randint(2, min(3, d))
        cuts = sorted(int(c) for c in g.rng.choice(np.arange(1, d), count - 1,
                                                   replace=False))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [d])]
        inputs.append(g.ints(sizes))
    names = g.node("Split", inputs, outputs=count,
                   axis=axis - x.rank if g.chance(0.3) else axis)
    values = []
    for name, size in zip(names, sizes):
        shape = list(x.shape)
        shape[axis] = size
        values.append(g.value(name, shape, x.dtype, err=x.err,
                              exact=x.exact, q=x.q))
    return values[g.randint(0, count - 1)]


def slice_(g, x):
    movable(g, x)
    if x.rank < 1:
        raise Skip("Slice of a scalar")
    count = g.randint(1, x.rank)
    axes = sorted(int(a) for a in g.rng.choice(x.rank, count, replace=False))
    starts, ends, steps, shape = [], [], [], list(x.shape)
    for a in axes:
        d = x.shape[a]
        step = g.choice([1, 1, 1, 2, -1, -2, 3])
        start = g.randint(-d - 1, d + 1)
        end = g.choice([g.randint(-d - 1, d + 1), 2 ** 62, -2 ** 62])
        length = len(range(*slice(start, end, step).indices(d)))
        if length == 0:
            start, end = (0, d) if step > 0 else (d - 1, -d - 1)
            length = len(range(*slice(start, end, step).indices(d)))
        starts.append(start)
        ends.append(end)
        steps.append(step)
        shape[a] = length
    inputs = [x.name, g.ints(starts), g.ints(ends)]
    if g.chance(0.8) or any(s != 1 for s in steps):
        inputs.append(g.ints([a - x.rank if g.chance(0.3) else a
                              for a in axes]))
        if any(s != 1 for s in steps) or g.chance(0.5):
            inputs.append(g.ints(steps))
    elif axes != list(range(count)):
        raise Skip("default axes need a prefix")
    return g.op("Slice", inputs, shape, x.dtype, err=x.err, exact=x.exact,
                q=x.q)


def resize(g, x):
    need_float(g, x)
    if x.rank not in (3, 4, 5):
        raise Skip("Resize of rank 3 to 5 here")
    mode = g.choice(["nearest", "linear", "cubic"], p=[.4, .4, .2])
    if mode == "cubic" and x.rank != 4:
        mode = "linear"
    if mode == "linear" and x.rank == 5:
        mode = "nearest"
    coords = g.choice(["half_pixel", "pytorch_half_pixel", "align_corners",
                       "asymmetric"] +
                      (["tf_half_pixel_for_nn"] if mode == "nearest" else []))
    attrs = {"mode": mode, "coordinate_transformation_mode": coords}
    if mode == "nearest":
        attrs["nearest_mode"] = g.choice(["round_prefer_floor",
                                          "round_prefer_ceil", "floor",
                                          "ceil"])
    if mode == "cubic":
        attrs["cubic_coeff_a"] = float(g.choice([-0.75, -0.5]))
        attrs["exclude_outside"] = g.choice([0, 1])
    spatial = x.shape[2:]
    if g.chance(0.5):
        scales = [float(g.choice([0.5, 0.75, 1.0, 1.5, 2.0, 3.0]))
                  for _ in spatial]
        out = [int(math.floor(s * f)) for s, f in zip(spatial, scales)]
        if coords == "align_corners" and any(
                o != s * f for o, s, f in zip(out, spatial, scales)):
            # (length_original - 1) / (length_resized - 1): ONNX's reference
            # takes length_resized as scale * length, ONNX Runtime (and
            # PyTorch) as the output's integer size; they agree only when
            # scale * length is whole.
            raise Skip("align_corners with a fractional size")
        inputs = [x.name, "", g.const(np.array([1, 1] + scales, np.float32),
                                      "sc")]
    else:
        out = [g.randint(1, 2 * s + 2) for s in spatial]
        inputs = [x.name, "", "", g.ints([*x.shape[:2], *out])]
    if coords == "tf_half_pixel_for_nn" and any(
            o == s > 1 for o, s in zip(x.shape[:2] + tuple(out), x.shape)) \
            and attrs["nearest_mode"] in ("ceil", "round_prefer_ceil"):
        # ONNX Runtime copies a dim that keeps its size (the batch and the
        # channels too), where the specification's (x + 0.5) / 1 rounded up
        # moves every index by one.
        raise Skip("tf_half_pixel_for_nn over a dim of the same size")
    shape = (*x.shape[:2], *out)
    lip = 1.0 if mode != "cubic" else 1.6 ** len(spatial)
    g.cost(np.prod(shape) * (4 ** len(spatial)))
    return g.op("Resize", inputs, shape, x.dtype, err=scaled(x.err, lip),
                exact=mode == "nearest" and x.exact, **attrs)


def dequantize(g, x):
    if x.dtype not in QUANTIZED or x.q is None:
        raise Skip("dequantizes int8/uint8 values")
    return g.dequantize(x)


def quantize(g, x):
    if g.mode != "quant":
        raise Skip("quantized models only")
    return g.quantize(x)


BLOCKS = [
    (conv, 14), (max_pool, 4), (average_pool, 3), (global_pool, 2),
    (matmul, 8), (gemm, 4), (attention, 3), (batch_norm, 3),
    (layer_norm, 3), (softmax, 3), (unary, 8), (binary, 8), (reshape, 4),
    (flatten, 2), (unsqueeze, 2), (transpose, 4), (concat, 4), (split, 3),
    (slice_, 4), (resize, 4), (dequantize, 6), (quantize, 3),
]


def random_shape(g):
    rank = g.choice([2, 3, 4, 4, 4, 5, 1])
    if rank == 1:
        return (g.randint(1, 24),)
    if rank == 2:
        return (g.randint(1, 8), g.randint(1, 24))
    if rank == 3:
        return (g.randint(1, 3), g.randint(1, 12), g.randint(1, 16))
    if rank == 4:
        return (g.randint(1, 2), g.randint(1, 8), g.randint(1, 12),
                g.randint(1, 12))
    return (1, g.randint(1, 4), g.randint(1, 6), g.randint(1, 6),
            g.randint(1, 6))


class Generated:
    """A generated model: the ModelProto, its graph inputs' kinds, and for
    every value its dtype, shape and error bound (meta, for the comparison
    and the minimizer)."""

    def __init__(self, model, inputs, values, mode, seed, index):
        self.model, self.inputs, self.values = model, inputs, values
        self.mode, self.seed, self.index = mode, seed, index

    @property
    def ops(self):
        return sorted({n.op_type for n in self.model.graph.node})

    def meta(self):
        return {"seed": self.seed, "index": self.index, "mode": self.mode,
                "inputs": {n: k for n, k in self.inputs.items()},
                "values": self.values}


def value_meta(v):
    return {"dtype": int(v.dtype), "shape": list(v.shape), "err": v.err}


def generate(seed, index):
    """Model `index` of `seed`: valid by construction, checked by onnx."""
    rng = np.random.default_rng([seed, index])
    mode = ["f32", "f16", "quant"][int(rng.choice(3, p=[.5, .2, .3]))]
    g = Graph(rng, mode)
    f16_io = mode == "f16" and g.chance(0.5)
    kind = "grid" if mode == "quant" and g.chance(0.5) else "normal"
    x = g.input(random_shape(g), F16 if f16_io else F32, kind)
    if mode == "f16" and not f16_io:
        x = g.op("Cast", [x.name], x.shape, F16, exact=True, to=F16)
    blocks, weights = zip(*BLOCKS)
    p = np.array(weights, np.float64) / sum(weights)
    wanted = g.randint(2, 8)
    made, tries = 0, 0
    while made < wanted and tries < 60:
        tries += 1
        usable = [n for n in g.order
                  if (g.values[n].dtype in FLOATS or g.values[n].q) and
                  g.values[n].rank and n not in g.forced]
        if g.chance(0.7):
            src = g.values[usable[-1]]
        else:
            src = g.values[usable[g.randint(0, len(usable) - 1)]]
        block = blocks[int(rng.choice(len(blocks), p=p))]
        state = g.snapshot()
        try:
            block(g, src)
            g.blocks.append(block.__name__)
            made += 1
        except Skip:
            g.restore(state)
    # Outputs: the values no node uses (the last first), and the scales the
    # tolerance refers to.
    inputs = {name for name, *_ in g.inputs}
    leaves = [n for n in reversed(g.order)
              if n not in g.consumed and n not in inputs and
              g.values[n].dtype in FLOATS + QUANTIZED + (I32,)]
    outputs = leaves[:4]
    for extra in leaves[4:]:
        if any(extra in g.values[o].err for o in outputs):
            outputs.append(extra)
    for name in g.forced:
        if name not in outputs and any(name in g.values[o].err
                                       for o in outputs):
            outputs.append(name)
    if not outputs:
        # The input alone: something trivial to compute.
        outputs = [g.op("Relu" if is_float(g, x) else "Identity", [x.name],
                        x.shape, x.dtype, exact=True).name]
    if mode == "f16" and not f16_io:
        cast = []
        for name in outputs:
            v = g.values[name]
            if v.dtype == F16:
                cast.append(g.op("Cast", [name], v.shape, F32, err=v.err,
                                 to=F32).name)
            else:
                cast.append(name)
        outputs = cast
    # Drop the nodes no output needs (blocks that were overtaken).
    needed, nodes = set(outputs), []
    for node in reversed(g.nodes):
        if any(o in needed for o in node.output):
            nodes.append(node)
            needed.update(i for i in node.input if i)
    nodes.reverse()
    graph = helper.make_graph(
        nodes, f"fuzz_{seed}_{index}",
        [helper.make_tensor_value_info(name, dtype, shape)
         for name, shape, dtype, _ in g.inputs if name in needed],
        [helper.make_tensor_value_info(o, g.values[o].dtype,
                                       g.values[o].shape) for o in outputs],
        initializer=[t for t in g.inits if t.name in needed])
    model = helper.make_model(graph, producer_name="mlc-fuzz-models",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    check(model, {o: g.values[o].shape for o in outputs})
    values = {n: value_meta(v) for n, v in g.values.items() if n in needed}
    kinds = {name: kind for name, _, _, kind in g.inputs if name in needed}
    return Generated(model, kinds, values, mode, seed, index)


def check(model, shapes=None):
    """onnx.checker with strict shape inference; the inferred output shapes
    must be the tracked ones."""
    onnx.checker.check_model(model, full_check=True)
    if shapes:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        got = {}
        for v in list(inferred.graph.value_info) + list(inferred.graph.output):
            dims = v.type.tensor_type.shape.dim
            got[v.name] = tuple(d.dim_value for d in dims)
        for name, shape in shapes.items():
            if name in got and got[name] != tuple(shape):
                raise ValueError(f"generator bug: {name} is {shape}, ONNX "
                                 f"infers {got[name]}")


def make_inputs(model, kinds, seed):
    """Random inputs: normal floats, or for 'grid' multiples of 1/128 (so
    quantizing them meets exact ties)."""
    rng = np.random.default_rng([seed, 7])
    init = {t.name for t in model.graph.initializer}
    values = {}
    for i in model.graph.input:
        if i.name in init:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = NP_TYPES[t.elem_type]
        kind = kinds.get(i.name, "normal")
        if t.elem_type in FLOATS:
            a = rng.standard_normal(shape)
            if kind == "grid":
                a = np.round(a * 2 * 128) / 128
            values[i.name] = a.astype(dtype)
        elif t.elem_type == U8:
            values[i.name] = rng.integers(0, 256, shape).astype(dtype)
        elif t.elem_type == I8:
            values[i.name] = rng.integers(-128, 128, shape).astype(dtype)
        else:
            values[i.name] = rng.integers(-64, 64, shape).astype(dtype)
    return values


# ===--------------------------------------------------------------------=== #
# Running: mlc and ONNX Runtime
# ===--------------------------------------------------------------------=== #

def step(cmd, timeout):
    """(kind, rc, stderr): ok, error (exit 1 with a diagnostic) or crash."""
    try:
        proc = launch(cmd, timeout)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(
            e.stderr, bytes) else (e.stderr or "")
        return "crash", None, f"timed out after {timeout} s\n{err}"
    err = proc.stderr
    if proc.returncode == 0 and not any(m in err for m in CRASH_MARKERS):
        return "ok", 0, err
    if proc.returncode == 1 and "error" in err and \
            not any(m in err for m in CRASH_MARKERS):
        return "error", 1, err
    return "crash", proc.returncode, err


def launch(cmd, timeout, patience=600):
    """subprocess.run of `cmd`; while the tool is missing or busy (a build
    is relinking it), waits for it up to `patience` seconds."""
    waited = 0
    while True:
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  errors="replace", timeout=timeout)
        except OSError:
            if waited >= patience:
                raise
            time.sleep(5)
            waited += 5


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:400]
    return text.strip().splitlines()[-1][:400] if text.strip() else ""


def describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        return f"signal {-rc}"
    return f"exit {rc}"


class Tools:
    def __init__(self, compiler, runner, timeout, compile_flags=()):
        self.compiler, self.runner = compiler, runner
        self.timeout, self.flags = timeout, list(compile_flags)

    def run(self, model_path, inputs, work):
        """mlc's outputs: (outcome, detail, {name: array}) with outcome ok,
        unsupported, compile-error, run-error or crash."""
        lib = os.path.join(work, "model.so")
        kind, rc, err = step([self.compiler, model_path, "-o", lib]
                             + self.flags, self.timeout)
        if kind == "crash":
            return "crash", f"mlc-compile {describe_rc(rc)}: " + \
                crash_summary(err), {}, err
        if kind == "error":
            msg = first_error(err)
            return ("unsupported" if UNSUPPORTED.search(msg)
                    else "compile-error"), msg, {}, err
        args = [self.runner, lib, "-o", os.path.join(work, "out")]
        for name, path in inputs.items():
            args += ["-i", f"{name}={path}"]
        kind, rc, err2 = step(args, self.timeout)
        log = err + err2
        if kind == "crash":
            return "crash", f"mlc-run {describe_rc(rc)}: " + \
                crash_summary(err2), {}, log
        if kind == "error":
            return "run-error", first_error(err2), {}, log
        with open(os.path.join(work, "out", "outputs.json")) as f:
            listing = json.load(f)
        outputs = {}
        for entry in listing["outputs"]:
            outputs[entry["name"]] = np.load(
                os.path.join(work, "out", entry["file"]))
        return "ok", "", outputs, log


def crash_summary(err):
    lines = [l.strip() for l in err.splitlines() if l.strip()]
    for marker in CRASH_MARKERS + ("error",):
        for l in lines:
            if marker in l:
                return l[:400]
    return (lines[0][:400] if lines else "(nothing on stderr)")


ORT_TYPES = {"float32": np.float32, "float16": np.float16, "int8": np.int8,
             "uint8": np.uint8, "int32": np.int32, "int64": np.int64,
             "float64": np.float64, "bool": np.bool_}


class OrtServer:
    """One `node bench/ort_run_many.js -` for the whole run; restarted when
    it dies (a model that crashes ONNX Runtime costs a restart)."""

    def __init__(self, opt_level="disabled"):
        self.script = os.path.join(ROOT, "bench", "ort_run_many.js")
        self.node = shutil.which("node")
        self.opt = opt_level
        self.proc = None
        self.lock = threading.Lock()
        if not OrtServer.available():
            raise SystemExit("ONNX Runtime is not installed: cd bench && npm "
                             "install --ignore-scripts --no-audit --no-fund")

    @staticmethod
    def available():
        return bool(shutil.which("node")) and os.path.isdir(os.path.join(
            ROOT, "bench", "node_modules", "onnxruntime-node"))

    def _start(self):
        self.proc = subprocess.Popen(
            [self.node, self.script, "-"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            cwd=os.path.join(ROOT, "bench"))

    def run(self, model_path, inputs, work):
        """ONNX Runtime's outputs: (None, {name: array}) or (error, {})."""
        os.makedirs(work, exist_ok=True)
        specs = []
        for name, array in inputs.items():
            path = os.path.join(work, f"ort_in_{len(specs)}.bin")
            np.ascontiguousarray(array).tofile(path)
            specs.append({"name": name, "dtype": array.dtype.name,
                          "dims": list(array.shape), "file": path})
        job = {"model": model_path, "outdir": os.path.join(work, "ort"),
               "opt": self.opt, "inputs": specs}
        with self.lock:
            for _ in range(2):
                if self.proc is None or self.proc.poll() is not None:
                    self._start()
                try:
                    self.proc.stdin.write(json.dumps(job) + "\n")
                    self.proc.stdin.flush()
                    line = self.proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    line = ""
                if line:
                    break
                self.proc = None
            else:
                return "ONNX Runtime died on this model", {}
        answer = json.loads(line)
        if not answer["ok"]:
            return answer["error"][:400], {}
        outputs = {}
        for o in answer["outputs"]:
            dtype = ORT_TYPES[o["type"]]
            outputs[o["name"]] = np.fromfile(o["file"], dtype).reshape(
                o["dims"])
        return None, outputs

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


def tolerance_of(meta, name, ref_outputs):
    """The absolute tolerance of output `name` beyond the relative one: its
    error bound, with dynamic scales at their reference values."""
    err = meta["values"].get(name, {}).get("err", {})
    total = 0.0
    for key, coef in err.items():
        if key == "":
            total += coef
        elif key in ref_outputs:
            total += coef * float(np.abs(ref_outputs[key].astype(
                np.float64)).max())
        else:
            return math.inf
    return total


def compare_outputs(meta, got, ref, names):
    """None when every output agrees, else what differs (the worst first)."""
    problems = []
    for name in names:
        if name not in got or name not in ref:
            problems.append((math.inf, f"{name}: missing from "
                             f"{'mlc' if name not in got else 'ONNX Runtime'}"))
            continue
        g, r = got[name], ref[name]
        if g.dtype != r.dtype:
            problems.append((math.inf, f"{name}: dtype {g.dtype}, reference "
                             f"{r.dtype}"))
            continue
        if g.shape != r.shape:
            problems.append((math.inf, f"{name}: shape {list(g.shape)}, "
                             f"reference {list(r.shape)}"))
            continue
        if g.size == 0:
            continue
        g64, r64 = g.astype(np.float64), r.astype(np.float64)
        same = (g64 == r64) | (np.isnan(g64) & np.isnan(r64))
        diff = np.where(same, 0.0, np.abs(g64 - r64))
        diff = np.where(np.isnan(diff), np.inf, diff)
        worst = float(diff.max())
        finite = np.abs(r64[np.isfinite(r64)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        rel = {np.dtype(np.float32): REL_TOLERANCE[F32],
               np.dtype(np.float16): REL_TOLERANCE[F16]}.get(g.dtype, 0.0)
        if meta["mode"] == "f16" and rel:
            rel = REL_TOLERANCE[F16]
        allowed = rel * scale + tolerance_of(meta, name, ref) * (1 + 1e-6)
        if worst > allowed:
            at = np.unravel_index(int(np.argmax(diff)), diff.shape)
            problems.append((worst / max(allowed, 1e-30),
                             f"{name}: max |mlc - ref| {worst:.4g} > allowed "
                             f"{allowed:.3g} (at {list(map(int, at))}: mlc "
                             f"{g64[at]:.6g}, ref {r64[at]:.6g}; "
                             f"{int((diff > allowed).sum())} of {g.size} "
                             f"elements)"))
    if not problems:
        return None
    problems.sort(key=lambda p: -p[0])
    return "; ".join(p[1] for p in problems)


def evaluate(tools, ort, model_path, meta, inputs, work):
    """(outcome, detail, log) for one model and its inputs."""
    os.makedirs(work, exist_ok=True)
    npys = {}
    for k, (name, array) in enumerate(inputs.items()):
        npys[name] = os.path.join(work, f"input_{k}.npy")
        np.save(npys[name], array)
    outcome, detail, got, log = tools.run(model_path, npys, work)
    if outcome != "ok" or ort is None:
        return outcome, detail, log
    error, ref = ort.run(model_path, inputs, work)
    if error is not None:
        return "ort-error", error, log
    model = onnx.load(model_path)
    names = [o.name for o in model.graph.output]
    diff = compare_outputs(meta, got, ref, names)
    if diff and any(v.dtype == np.float16 for v in got.values()) or \
            diff and any(i.type.tensor_type.elem_type == F16
                         for i in model.graph.input):
        # mlc may keep float16 values in float32 between ops, where ONNX
        # Runtime rounds each node's result (a LayerNormalization or a
        # Softmax then magnifies the difference): the same model computed
        # in float32 is a second reference.
        twin_path = os.path.join(work, "float32.onnx")
        onnx.save(float32_twin(model), twin_path)
        wide = {k: v.astype(np.float32) if v.dtype == np.float16 else v
                for k, v in inputs.items()}
        error, ref32 = ort.run(twin_path, wide, os.path.join(work, "f32"))
        if error is None:
            ref32 = {k: v.astype(got[k].dtype) if k in got else v
                     for k, v in ref32.items()}
            if compare_outputs(meta, got, ref32, names) is None:
                return "ok", "", log
    if diff:
        return "mismatch", diff, log
    return "ok", "", log


def float32_twin(model):
    """`model` with every float16 tensor, input, output and Cast made
    float32."""
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    for t in twin.graph.initializer:
        if t.data_type == F16:
            t.CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(t).astype(np.float32), t.name))
    for v in (list(twin.graph.input) + list(twin.graph.output) +
              list(twin.graph.value_info)):
        if v.type.tensor_type.elem_type == F16:
            v.type.tensor_type.elem_type = F32
    for node in twin.graph.node:
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to" and a.i == F16:
                a.i = F32
    return twin


# ===--------------------------------------------------------------------=== #
# Minimizing a finding
# ===--------------------------------------------------------------------=== #

def prune(model):
    """`model` without the nodes, initializers and inputs no output needs."""
    needed = {o.name for o in model.graph.output}
    keep = []
    for node in reversed(model.graph.node):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(i for i in node.input if i)
    keep.reverse()
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(keep)
    inits = [t for t in model.graph.initializer if t.name in needed]
    del out.graph.initializer[:]
    out.graph.initializer.extend(inits)
    ins = [i for i in model.graph.input if i.name in needed]
    del out.graph.input[:]
    out.graph.input.extend(ins)
    del out.graph.value_info[:]
    return out


def value_info(name, meta):
    v = meta["values"][name]
    return helper.make_tensor_value_info(name, v["dtype"], v["shape"])


def with_outputs(model, names, meta):
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.output[:]
    out.graph.output.extend(value_info(n, meta) for n in names)
    # A dynamic scale the tolerance needs stays an output.
    for n in names:
        for key in meta["values"].get(n, {}).get("err", {}):
            if key and key not in names and key in meta["values"]:
                out.graph.output.append(value_info(key, meta))
    return prune(out)


def cut_inputs(model, keep_from, meta, kinds):
    """`model` with the values its nodes from `keep_from` on read from the
    earlier nodes made graph inputs instead; None when one of them is an
    integer value (its quantization parameters would be lost) or the model
    stops being valid."""
    nodes = list(model.graph.node)
    late = nodes[keep_from:]
    made_late = {o for n in late for o in n.output}
    inits = {t.name for t in model.graph.initializer}
    old_inputs = {i.name: i for i in model.graph.input}
    needed = []
    for n in late:
        for i in n.input:
            if i and i not in made_late and i not in inits and \
                    i not in needed:
                needed.append(i)
    new_inputs = []
    for name in needed:
        if name in old_inputs:
            new_inputs.append(old_inputs[name])
            continue
        v = meta["values"].get(name)
        if v is None or v["dtype"] not in FLOATS:
            return None
        new_inputs.append(value_info(name, meta))
        kinds[name] = "normal"
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(late)
    del out.graph.input[:]
    out.graph.input.extend(new_inputs)
    out = prune(out)
    try:
        check(out)
    except Exception:
        return None
    return out


def with_smaller_input(model, name, axis, size):
    """`model` with input `name`'s dim `axis` made `size` and everything
    after it re-inferred; None when that is not a valid model."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for i in out.graph.input:
        if i.name == name:
            i.type.tensor_type.shape.dim[axis].dim_value = size
    for o in out.graph.output:
        o.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(out, strict_mode=True)
        onnx.checker.check_model(inferred, full_check=True)
    except Exception:
        return None
    shapes = {v.name: v for v in inferred.graph.value_info}
    del out.graph.output[:]
    for o in inferred.graph.output:
        t = o.type.tensor_type
        if not t.HasField("shape") or any(
                not d.HasField("dim_value") for d in t.shape.dim):
            return None
        out.graph.output.append(o)
    del shapes
    return out


def signature(detail):
    """An error message without its paths, names and numbers."""
    text = re.sub(r"\S*/\S*", "PATH", detail)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "NAME", text)
    return re.sub(r"\d+", "N", text)


class Minimizer:
    """Shrinks a failing model while the failure keeps its outcome."""

    def __init__(self, tools, ort, work, budget=40):
        self.tools, self.ort, self.work = tools, ort, work
        self.budget = budget
        self.tries = 0

    def fails(self, model, meta, kinds, outcome, seed):
        """Whether `model` is valid (ONNX Runtime runs it) and fails as the
        original did: the same outcome, and for errors and crashes the same
        first message up to names and numbers."""
        if self.tries >= self.budget:
            return False
        self.tries += 1
        work = os.path.join(self.work, f"try{self.tries}")
        os.makedirs(work, exist_ok=True)
        path = os.path.join(work, "model.onnx")
        onnx.save(model, path)
        inputs = make_inputs(model, kinds, seed)
        error, _ = self.ort.run(path, inputs, work)
        if error is not None:
            return False
        got, detail, _ = evaluate(self.tools, self.ort, path, meta, inputs,
                                  work)
        if got != outcome:
            return False
        return outcome == "mismatch" or signature(detail) == self.signature

    def minimize(self, model, meta, kinds, outcome, seed, detail):
        self.signature = signature(detail)
        kinds = dict(kinds)
        best = model
        # 1. Cut after the first node whose outputs show the failure.
        nodes = list(best.graph.node)
        outs = [o.name for o in best.graph.output]
        found = False
        for k, node in enumerate(nodes):
            names = [o for o in node.output
                     if o and o in meta["values"] and
                     meta["values"][o]["dtype"] != I64]
            if not names:
                continue
            if k == len(nodes) - 1 and set(names) <= set(outs):
                break
            cut = with_outputs(best, names, meta)
            if self.fails(cut, meta, kinds, outcome, seed):
                best, found = cut, True
                break
        if not found and len(outs) > 1:
            for name in outs:
                cut = with_outputs(best, [name], meta)
                if self.fails(cut, meta, kinds, outcome, seed):
                    best = cut
                    break
        # 2. Replace the leading nodes by graph inputs, latest first.
        count = len(best.graph.node)
        for start in range(count - 1, 0, -1):
            trial_kinds = dict(kinds)
            cut = cut_inputs(best, start, meta, trial_kinds)
            if cut is None:
                continue
            if self.fails(cut, meta, trial_kinds, outcome, seed):
                best, kinds = cut, trial_kinds
                break
        # 3. Shrink input dims.
        progress = True
        while progress and self.tries < self.budget:
            progress = False
            for i in list(best.graph.input):
                dims = i.type.tensor_type.shape.dim
                for axis in range(len(dims)):
                    d = dims[axis].dim_value
                    for size in sorted({1, d // 2}):
                        if size >= d or size < 1:
                            continue
                        smaller = with_smaller_input(best, i.name, axis, size)
                        if smaller is None:
                            continue
                        trial_meta = dict(meta)
                        trial_meta["values"] = dict(meta["values"])
                        for o in smaller.graph.output:
                            entry = dict(meta["values"].get(o.name, {}))
                            entry["shape"] = [x.dim_value for x in
                                              o.type.tensor_type.shape.dim]
                            trial_meta["values"][o.name] = entry
                        if self.fails(smaller, trial_meta, kinds, outcome,
                                      seed):
                            best, meta, progress = smaller, trial_meta, True
                            break
                    if progress:
                        break
                if progress:
                    break
        return best, kinds, meta


# ===--------------------------------------------------------------------=== #
# The driver
# ===--------------------------------------------------------------------=== #

FAILURES = ("crash", "mismatch", "compile-error", "run-error")


def fuzz_one(args, tools, ort, seed, index, scratch):
    """Generates, runs and compares one model; returns its record."""
    start = time.time()
    record = {"seed": seed, "index": index}
    try:
        gen = generate(seed, index)
    except Exception as e:  # a generator bug: it must never happen
        record.update(outcome="invalid", detail=f"{type(e).__name__}: {e}"[:400])
        return record
    record.update(mode=gen.mode, ops=gen.ops, nodes=len(gen.model.graph.node))
    work = os.path.join(scratch, f"{seed}-{index}")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.onnx")
    onnx.save(gen.model, path)
    meta = gen.meta()
    inputs = make_inputs(gen.model, gen.inputs, seed * 1_000_003 + index)
    outcome, detail, log = evaluate(tools, ort, path, meta, inputs, work)
    record.update(outcome=outcome, detail=detail)
    if outcome in FAILURES and args.findings:
        folder = os.path.join(args.findings, f"{seed}-{index}")
        save_finding(folder, gen.model, inputs, meta, record, log)
        record["finding"] = folder
        if not args.no_minimize:
            mini = Minimizer(tools, ort, os.path.join(work, "min"))
            model, kinds, mmeta = mini.minimize(gen.model, meta, gen.inputs,
                                                outcome,
                                                seed * 1_000_003 + index,
                                                detail)
            if model is not gen.model:
                minputs = make_inputs(model, kinds, seed * 1_000_003 + index)
                mwork = os.path.join(work, "min-final")
                mpath = os.path.join(mwork, "model.onnx")
                os.makedirs(mwork, exist_ok=True)
                onnx.save(model, mpath)
                o2, d2, log2 = evaluate(tools, ort, mpath, mmeta, minputs,
                                        mwork)
                if o2 == outcome:
                    save_finding(os.path.join(folder, "minimized"), model,
                                 minputs, dict(mmeta, inputs=kinds),
                                 {"outcome": o2, "detail": d2}, log2)
                    record["minimized"] = os.path.join(folder, "minimized")
                    record["minimized_nodes"] = len(model.graph.node)
                    record["minimized_ops"] = sorted(
                        {n.op_type for n in model.graph.node})
                    record["minimized_detail"] = d2
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    record["seconds"] = round(time.time() - start, 3)
    return record


def save_finding(folder, model, inputs, meta, record, log):
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for k, (name, array) in enumerate(inputs.items()):
        np.save(os.path.join(folder, f"input_{k}.npy"), array)
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(dict(meta, outcome=record["outcome"],
                       detail=record["detail"],
                       input_names=list(inputs)), f, indent=1)
    with open(os.path.join(folder, "log.txt"), "w") as f:
        f.write(f"{record['outcome']}: {record['detail']}\n\n{log}")
    with open(os.path.join(folder, "repro.sh"), "w") as f:
        ins = " ".join(f"-i {name}=input_{k}.npy"
                       for k, name in enumerate(inputs))
        f.write("#!/bin/sh\n# mlc-compile and mlc-run on this model; compare "
                "with utils/fuzz_models.py --replay\ncd \"$(dirname \"$0\")\"\n"
                "mlc-compile model.onnx -o /tmp/fuzz-model.so && "
                f"mlc-run /tmp/fuzz-model.so {ins} -o /tmp/fuzz-out\n")


def replay(args, tools, ort, scratch):
    records = []
    for target in args.replay:
        if os.path.isdir(target):
            model_path = os.path.join(target, "model.onnx")
            with open(os.path.join(target, "meta.json")) as f:
                meta = json.load(f)
            inputs = {name: np.load(os.path.join(target, f"input_{k}.npy"))
                      for k, name in enumerate(meta["input_names"])}
        else:
            model_path = target
            model = onnx.load(target)
            meta = {"mode": "f32", "values": {}}
            inputs = make_inputs(model, {}, 0)
        work = tempfile.mkdtemp(dir=scratch)
        outcome, detail, log = evaluate(tools, ort, os.path.abspath(
            model_path), meta, inputs, work)
        print(f"{target}: {outcome} {detail}")
        if outcome != "ok" and not args.quiet:
            print(log)
        records.append({"seed": None, "index": target, "outcome": outcome,
                        "detail": detail})
    return records


def summarize(records, seconds):
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    by_mode = {}
    for r in records:
        m = by_mode.setdefault(r.get("mode", "?"), {})
        m[r["outcome"]] = m.get(r["outcome"], 0) + 1
    unsupported = {}
    for r in records:
        if r["outcome"] == "unsupported":
            key = re.sub(r"^.*?error: ", "", r["detail"])
            key = re.sub(r"\(\d+ in this function\) ", "", key)
            key = re.sub(r"'n_\w+'|'[a-z]+\d+'", "'…'", key)[:160]
            unsupported[key] = unsupported.get(key, 0) + 1
    findings = [r for r in records
                if r["outcome"] in FAILURES + ("invalid", "harness-error")]
    # Findings that look alike: the same outcome, the same ops in the
    # minimized model and, for errors, the same message.
    groups = {}
    for r in findings:
        detail = r.get("minimized_detail") or r["detail"]
        key = " ".join([r["outcome"], ",".join(r.get("minimized_ops") or
                                               r.get("ops", [])),
                        "" if r["outcome"] == "mismatch" else
                        signature(detail)])
        groups.setdefault(key, []).append(f"{r['seed']}-{r['index']}")
    return {"models": len(records), "seconds": round(seconds, 1),
            "models_per_minute": round(60 * len(records) / max(seconds, 1e-9),
                                       1),
            "outcomes": counts, "by_mode": by_mode,
            "unsupported": dict(sorted(unsupported.items(),
                                       key=lambda kv: -kv[1])),
            "findings": findings,
            "groups": dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))}


def print_summary(summary, out=sys.stdout):
    o = summary["outcomes"]
    print(f"models: {summary['models']} in {summary['seconds']} s "
          f"({summary['models_per_minute']} models/minute)", file=out)
    for kind in ("ok", "unsupported", "ort-error", "invalid") + FAILURES:
        print(f"{kind}: {o.get(kind, 0)}", file=out)
    if o.get("harness-error"):
        print(f"harness-error: {o['harness-error']}", file=out)
    if summary["groups"]:
        print(f"distinct findings: {len(summary['groups'])}", file=out)
        for key, members in summary["groups"].items():
            print(f"  {len(members)} x {key[:200]}: {' '.join(members[:8])}",
                  file=out)
    for r in summary["findings"]:
        where = r.get("minimized") or r.get("finding") or ""
        print(f"  {r['outcome']} {r['seed']}-{r['index']} [{r.get('mode')}] "
              f"{where}: {r.get('minimized_detail') or r['detail']}",
              file=out)


def cell(text):
    """`text` for a cell of a Markdown table."""
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(summary, path):
    o = summary["outcomes"]
    lines = [f"{summary['models']} models in {summary['seconds']} s "
             f"({summary['models_per_minute']} models/minute).", "",
             "| outcome | models |", "|---|---:|"]
    for kind in ("ok", "unsupported", "ort-error", "invalid") + FAILURES:
        lines.append(f"| {kind} | {o.get(kind, 0)} |")
    modes = sorted(summary["by_mode"])
    kinds = sorted({k for m in summary["by_mode"].values() for k in m})
    lines += ["", "| mode | " + " | ".join(kinds) + " |",
              "|---|" + "---:|" * len(kinds)]
    for m in modes:
        lines.append(f"| {m} | " + " | ".join(
            str(summary["by_mode"][m].get(k, 0)) for k in kinds) + " |")
    if summary["unsupported"]:
        lines += ["", "| unsupported: diagnostic | models |", "|---|---:|"]
        for k, v in summary["unsupported"].items():
            lines.append(f"| {cell(k)} | {v} |")
    if summary["groups"]:
        lines += ["", "| findings alike | models | examples |",
                  "|---|---:|---|"]
        for key, members in summary["groups"].items():
            lines.append(f"| {cell(key)} | {len(members)} | "
                         f"{' '.join(members[:5])} |")
    if summary["findings"]:
        lines += ["", "| model | outcome | ops | repro | error |",
                  "|---|---|---|---|---|"]
        for r in summary["findings"]:
            detail = cell(r.get("minimized_detail") or r["detail"])
            ops = r.get("minimized_ops") or r.get("ops", [])
            lines.append(f"| {r['seed']}-{r['index']} | {r['outcome']} | "
                         f"{' '.join(ops)} | "
                         f"{r.get('minimized') or r.get('finding') or ''} | "
                         f"{detail} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_summary(args, records, seconds):
    """The summary of `records`, written to --summary-json (also while a
    run goes on, so that a long run leaves what it found so far)."""
    summary = summarize(records, seconds)
    summary["seed"], summary["start"] = args.seed, args.start
    if args.summary_json:
        with open(args.summary_json + ".tmp", "w") as f:
            json.dump(summary, f, indent=1)
        os.replace(args.summary_json + ".tmp", args.summary_json)
    return summary


def find_tools(args):
    build = args.build_dir or os.environ.get("MLC_BUILD_DIR") or \
        os.path.join(ROOT, "build")
    found = []
    for given, name in ((args.mlc_compile, "mlc-compile"),
                        (args.mlc_run, "mlc-run")):
        tool = given or os.path.join(build, "bin", name)
        if not os.access(tool, os.X_OK) and given and os.sep not in given:
            tool = shutil.which(given) or tool
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"cannot run {tool} (give BUILD_DIR or "
                             "--mlc-compile/--mlc-run)")
        found.append(os.path.abspath(tool))
    return found


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir", nargs="?",
                        help="the build whose bin/ has mlc-compile and "
                             "mlc-run (default: $MLC_BUILD_DIR or ./build)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--start", type=int, default=0,
                        help="index of the first model")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds per compile and per run")
    parser.add_argument("--mlc-compile")
    parser.add_argument("--mlc-run")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="an extra mlc-compile flag; repeatable")
    parser.add_argument("--reference", choices=["auto", "ort", "none"],
                        default="auto",
                        help="ort: compare with ONNX Runtime; none: only "
                             "compile and run; auto (default): ort when "
                             "bench/node_modules has it")
    parser.add_argument("--ort-opt-level", default="disabled",
                        help="ONNX Runtime's graph optimization level for "
                             "the reference (default: disabled)")
    parser.add_argument("--findings", help="folder for failing models")
    parser.add_argument("--summary-json")
    parser.add_argument("--markdown", help="write the summary as Markdown")
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument("--keep", action="store_true",
                        help="keep every model's scratch folder")
    parser.add_argument("--scratch", help="scratch folder (default: a "
                        "temporary one)")
    parser.add_argument("--generate-only", metavar="DIR",
                        help="only write the models (and inputs) to DIR")
    parser.add_argument("--replay", nargs="+",
                        help="run saved findings (folders) or models again")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    if args.generate_only:
        os.makedirs(args.generate_only, exist_ok=True)
        for index in range(args.start, args.start + args.count):
            gen = generate(args.seed, index)
            onnx.save(gen.model, os.path.join(args.generate_only,
                                              f"{args.seed}-{index}.onnx"))
        return 0

    compiler, runner = find_tools(args)
    tools = Tools(compiler, runner, args.timeout, args.compile_flag)
    if args.reference == "ort" or (args.reference == "auto" and
                                   OrtServer.available()):
        ort = OrtServer(args.ort_opt_level)
    else:
        ort = None
        why = "" if args.reference == "none" else \
            " (ONNX Runtime is not installed)"
        print(f"reference: none{why}: mlc's outputs are not compared, only "
              "crashes and errors count")
    args.no_minimize = args.no_minimize or ort is None
    scratch = args.scratch or tempfile.mkdtemp(prefix="mlc-fuzz-")
    os.makedirs(scratch, exist_ok=True)
    started = time.time()
    try:
        if args.replay:
            records = replay(args, tools, ort, scratch)
        else:
            records = []
            indices = range(args.start, args.start + args.count)
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(fuzz_one, args, tools, ort, args.seed,
                                       i, scratch) for i in indices]
                for index, fut in zip(indices, futures):
                    try:
                        r = fut.result()
                    except Exception as e:  # the harness, not mlc
                        r = {"seed": args.seed, "index": index,
                             "outcome": "harness-error",
                             "detail": f"{type(e).__name__}: {e}"[:400]}
                    records.append(r)
                    if args.summary_json and len(records) % 200 == 0:
                        write_summary(args, records, time.time() - started)
                    if not args.quiet and r["outcome"] != "ok":
                        print(f"{r['seed']}-{r['index']} [{r.get('mode')}] "
                              f"{r['outcome']}: {r['detail']}", flush=True)
    finally:
        if ort:
            ort.close()
        if not args.scratch and not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    summary = write_summary(args, records, time.time() - started)
    print_summary(summary)
    if args.markdown:
        write_markdown(summary, args.markdown)
    failed = any(r["outcome"] in FAILURES + ("invalid", "harness-error")
                 for r in records)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
