# ===- seeded_weights.py - Models whose weights travel as a seed ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# A GPU machine may take only a few tens of MB per transfer, and the bench
# models' weights are 0.1-0.4 GB each. Their weights are random anyway, so
# the models that travel have every large float initializer redrawn from a
# generator that gives the same bits on every machine (PCG64's raw output;
# no floating-point step that NumPy could vectorize differently), keeping
# each row's mean and standard deviation so activations keep their scale.
# What travels is the model without those initializers (their shapes and
# statistics instead) and a recipe for mlc's weight file: which ranges are
# which initializer (as it is or transposed) and the few bytes that are
# neither. The GPU machine regenerates the initializers, rebuilds the
# weight file (checked against its SHA-256) and the ONNX model (for ONNX
# Runtime's reference outputs).
#
# ===--------------------------------------------------------------------=== #

import hashlib
import json
import zlib

import numpy as np
from onnx import TensorProto, numpy_helper

MIN_ELEMENTS = 16


def draw(name, shape, mean, spread):
    """The initializer `name` redrawn: per row (axis 0) uniform around
    mean[row] with half-width spread[row], bit-identical everywhere."""
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.random.PCG64(zlib.crc32(name.encode())).random_raw(count)
    # 24 random bits -> a float32 in [-1, 1): exact in float32.
    unit = ((raw >> np.uint64(40)).astype(np.int64) - (1 << 23)).astype(
        np.float32) * np.float32(1.0 / (1 << 23))
    rows = shape[0] if len(shape) > 1 else 1
    unit = unit.reshape(rows, -1)
    mean = np.asarray(mean, np.float32).reshape(rows, 1)
    spread = np.asarray(spread, np.float32).reshape(rows, 1)
    return (unit * spread + mean).astype(np.float32).reshape(shape)


def reseed(model):
    """Redraws the model's large float initializers in place; returns
    {name: (shape, mean, spread)} for them."""
    params = {}
    for t in model.graph.initializer:
        if t.data_type != TensorProto.FLOAT:
            continue
        a = numpy_helper.to_array(t)
        if a.size < MIN_ELEMENTS:
            continue
        rows = a.reshape(a.shape[0] if a.ndim > 1 else 1, -1).astype(
            np.float64)
        mean = rows.mean(axis=1).astype(np.float32)
        spread = (rows.std(axis=1) * np.sqrt(3.0)).astype(np.float32)
        shape = list(a.shape)
        params[t.name] = (shape, mean.tolist(), spread.tolist())
        t.CopyFrom(numpy_helper.from_array(
            draw(t.name, shape, mean, spread), t.name))
    return params


def strip(model, params):
    """The model without the redrawn initializers' data (serialized)."""
    for t in model.graph.initializer:
        if t.name in params:
            t.ClearField("raw_data")
            t.ClearField("float_data")
    return model


def regenerate(model, params):
    """Refills a stripped model's initializers; returns {name: array}."""
    arrays = {}
    for t in model.graph.initializer:
        if t.name in params:
            shape, mean, spread = params[t.name]
            arrays[t.name] = draw(t.name, shape, mean, spread)
            t.CopyFrom(numpy_helper.from_array(arrays[t.name], t.name))
    return arrays


def _candidates(arrays):
    for name, a in arrays.items():
        yield name, "copy", a.tobytes()
        if a.ndim == 2:
            yield name, "transpose", np.ascontiguousarray(a.T).tobytes()


def recipe(blob, arrays):
    """(recipe, literal bytes) that rebuild `blob` from `arrays`: each
    occurrence of an array (or its transpose) at an 8-byte-aligned offset,
    and the bytes in between as they are."""
    words = np.frombuffer(blob[:len(blob) // 8 * 8], np.uint64)
    covered = np.zeros(len(blob), bool)
    pieces = []
    for name, how, data in _candidates(arrays):
        head = np.frombuffer(data[:8], np.uint64)[0]
        for w in np.nonzero(words == head)[0]:
            at = int(w) * 8
            if not covered[at] and blob[at:at + len(data)] == data:
                pieces.append([at, name, how])
                covered[at:at + len(data)] = True
    literal = bytearray()
    ranges = []
    edges = np.flatnonzero(np.diff(np.concatenate(
        ([True], covered, [True])).astype(np.int8)))
    for start, end in zip(edges[::2], edges[1::2]):
        ranges.append([int(start), int(end - start)])
        literal += blob[start:end]
    return ({"size": len(blob), "sha256": hashlib.sha256(blob).hexdigest(),
             "pieces": sorted(pieces), "literal": ranges}, bytes(literal))


def rebuild(plan, literal, arrays):
    """The weight file from a recipe; raises when its SHA-256 differs."""
    blob = bytearray(plan["size"])
    for at, name, how in plan["pieces"]:
        a = arrays[name]
        data = (np.ascontiguousarray(a.T) if how == "transpose" else
                a).tobytes()
        blob[at:at + len(data)] = data
    offset = 0
    for start, length in plan["literal"]:
        blob[start:start + length] = literal[offset:offset + length]
        offset += length
    digest = hashlib.sha256(blob).hexdigest()
    if digest != plan["sha256"]:
        raise ValueError("rebuilt weights differ from the compiled ones "
                         f"(SHA-256 {digest}, expected {plan['sha256']})")
    return bytes(blob)


def save_params(path, params):
    with open(path, "w") as f:
        json.dump(params, f)


def load_params(path):
    with open(path) as f:
        return json.load(f)
