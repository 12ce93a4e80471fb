#!/usr/bin/python3
# ===- quantize_qdq.py - A float ONNX model to a calibrated QDQ model -----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   quantize_qdq.py MODEL.onnx OUT.onnx [--samples N] [--seed S]
#                   [--op-types Conv,Gemm,MatMul,Add]
#                   [--exclude-output-quantization OP_TYPES]
#
# Writes the QDQ form ONNX Runtime's static quantizer writes by default, for
# the ops of the bench models (docs/NPU.md, "Quantized models", lists what
# it leaves out):
# - every Conv, Gemm and MatMul whose second input is a weight reads its
#   activation through QuantizeLinear/DequantizeLinear with uint8 values and
#   an asymmetric scale and zero point, and its weight through
#   DequantizeLinear of int8 values with a symmetric scale (per output
#   channel for Conv, per tensor otherwise); biases stay float;
# - an Add of two activations (a residual connection) reads both through
#   QuantizeLinear/DequantizeLinear;
# - the outputs of those ops are quantized too, and a Relu or Clip(0, max)
#   that is their only consumer is removed, its output's range quantizing
#   the op's output (ONNX Runtime's removable activations: the uint8 zero
#   point 0 saturates what the Relu would have cut).
# Each tensor is quantized once; all its consumers read the DequantizeLinear.
# The activation ranges are calibrated by running the float model in ONNX
# Runtime (onnxruntime-node, through mlc's Python package) on N random
# inputs: normal values for float inputs, token ids below 30522 and a mask of
# ones for int64 inputs.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))

from mlc import comparison  # noqa: E402

CONTRACTIONS = ("Conv", "Gemm", "MatMul")
DEFAULT_OP_TYPES = CONTRACTIONS + ("Add",)


def graph_inputs(model):
    initialized = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initialized]


def random_inputs(model, rng):
    """One calibration sample: normal floats, token ids and masks of ones."""
    values = {}
    for value in graph_inputs(model):
        t = value.type.tensor_type
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        if t.elem_type == TensorProto.FLOAT:
            values[value.name] = rng.standard_normal(shape).astype(np.float32)
        elif "mask" in value.name:
            values[value.name] = np.ones(shape, np.int64)
        else:
            values[value.name] = rng.integers(0, 30522, shape, np.int64)
    return values


def float_tensors(model):
    """Names of the float32 values of the graph (after shape inference)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    names = set()
    for v in list(inferred.graph.value_info) + list(inferred.graph.input) + \
            list(inferred.graph.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            names.add(v.name)
    return names


def calibrate(model, activations, samples, seed):
    """(min, max) of each activation over `samples` random inputs."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    outputs = {o.name for o in probe.graph.output}
    for name in activations:
        if name not in outputs:
            probe.graph.output.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    rng = np.random.default_rng(seed)
    ranges = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.onnx")
        onnx.save(probe, path)
        for _ in range(samples):
            results = comparison.run_ort(path, random_inputs(model, rng))
            for name in activations:
                v = results[name]
                lo, hi = float(v.min()), float(v.max())
                old = ranges.get(name, (lo, hi))
                ranges[name] = (min(old[0], lo), max(old[1], hi))
    return ranges


def activation_params(lo, hi):
    """uint8 scale and zero point of [lo, hi] (widened to hold 0)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    zero = int(np.clip(np.round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zero)


def weight_params(w, axis):
    """int8 values and symmetric scales of `w` (per slice along `axis`)."""
    if axis is None:
        scale = np.float32(max(np.abs(w).max(), 1e-12) / 127.0)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        return q, np.array(scale, np.float32)
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    scale = (np.maximum(np.abs(moved).max(axis=1), 1e-12) / 127.0).astype(
        np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


def is_zero(model, name):
    """Whether `name` is a constant scalar 0 (an initializer or a Constant)."""
    for t in model.graph.initializer:
        if t.name == name:
            return numpy_helper.to_array(t).size == 1 and \
                float(numpy_helper.to_array(t).reshape(())) == 0.0
    for n in model.graph.node:
        if n.op_type == "Constant" and n.output[0] == name and n.attribute:
            v = numpy_helper.to_array(n.attribute[0].t)
            return v.size == 1 and float(v.reshape(())) == 0.0
    return False


def removable_activation(model, node):
    """Whether `node` is a Relu or a Clip with a lower bound of 0."""
    if node.op_type == "Relu":
        return True
    if node.op_type != "Clip":
        return False
    attrs = {a.name: a for a in node.attribute}
    if "min" in attrs:  # opset < 11
        return attrs["min"].f == 0.0
    return len(node.input) > 1 and is_zero(model, node.input[1])


def fold_activations(model, producers):
    """Removes each Relu or Clip(0, max) that is the only consumer of a
    `producers` node's output, renaming that output to the activation's."""
    uses = {}
    for n in model.graph.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    outputs = {o.name for o in model.graph.output}
    by_output = {n.output[0]: n for n in model.graph.node
                 if id(n) in producers}
    kept = []
    for n in model.graph.node:
        p = by_output.get(n.input[0]) if n.input else None
        # Folded only where the output is quantized: a graph output is not.
        if p is not None and removable_activation(model, n) and \
                uses[n.input[0]] == 1 and n.input[0] not in outputs and \
                n.output[0] not in outputs:
            p.output[0] = n.output[0]
            continue
        kept.append(n)
    del model.graph.node[:]
    model.graph.node.extend(kept)


def quantize(model, samples, seed, op_types=DEFAULT_OP_TYPES,
             exclude_outputs=()):
    """Quantizes `model` in place: the nodes of `op_types` (of Conv, Gemm,
    MatMul and Add), and their outputs but for those of `exclude_outputs`
    (ONNX Runtime's OpTypesToExcludeOutputQuantization). Returns the model
    and how many nodes it quantized."""
    weights = {t.name: t for t in model.graph.initializer}
    floats = float_tensors(model)
    constants = {o for n in model.graph.node if n.op_type == "Constant"
                 for o in n.output}

    def quantized_nodes():
        targets = [n for n in model.graph.node if n.op_type in CONTRACTIONS
                   and n.op_type in op_types and len(n.input) > 1 and
                   n.input[1] in weights and n.input[0] in floats]
        adds = [n for n in model.graph.node if n.op_type == "Add" and
                "Add" in op_types and len(n.input) == 2 and
                all(i in floats and i not in weights and i not in constants
                    for i in n.input)]
        return targets, adds

    original = onnx.ModelProto()
    original.CopyFrom(model)
    targets, adds = quantized_nodes()
    fold_activations(model, {id(n) for n in targets + adds
                             if n.op_type not in exclude_outputs})
    # The graph's nodes are new objects now.
    targets, adds = quantized_nodes()
    outputs = {o.name for o in model.graph.output}
    activations = {n.input[0] for n in targets}
    activations |= {i for n in adds for i in n.input}
    activations |= {n.output[0] for n in targets + adds
                    if n.output[0] not in outputs and
                    n.op_type not in exclude_outputs}
    activations = sorted(activations)
    # The float model as it was: a removed activation's output is there.
    ranges = calibrate(original, activations, samples, seed)

    new_inits, weight_nodes, renamed = [], [], {}
    for n in targets:
        w_name = n.input[1]
        if w_name in renamed:
            continue
        w = numpy_helper.to_array(weights[w_name]).astype(np.float32)
        axis = 0 if n.op_type == "Conv" else None
        q, scale = weight_params(w, axis)
        new_inits += [numpy_helper.from_array(q, w_name + "_q"),
                      numpy_helper.from_array(scale, w_name + "_scale"),
                      numpy_helper.from_array(
                          np.zeros(scale.shape, np.int8), w_name + "_zero")]
        attrs = {"axis": axis} if axis is not None else {}
        weight_nodes.append(helper.make_node(
            "DequantizeLinear", [w_name + "_q", w_name + "_scale",
                                 w_name + "_zero"], [w_name + "_dq"],
            name=w_name + "_DequantizeLinear", **attrs))
        renamed[w_name] = w_name + "_dq"

    def qdq_nodes(name):
        scale, zero = activation_params(*ranges[name])
        new_inits.extend([numpy_helper.from_array(scale, name + "_scale"),
                          numpy_helper.from_array(zero, name + "_zero")])
        return [helper.make_node("QuantizeLinear",
                                 [name, name + "_scale", name + "_zero"],
                                 [name + "_q"], name=name + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear",
                                 [name + "_q", name + "_scale",
                                  name + "_zero"], [name + "_dq"],
                                 name=name + "_DequantizeLinear")]

    quantized = set(activations)
    nodes = list(weight_nodes)
    for name in activations:
        if name in {i.name for i in model.graph.input}:
            nodes += qdq_nodes(name)
    target_ids = {id(n) for n in targets}
    for n in model.graph.node:
        # Every consumer of a quantized tensor reads its DequantizeLinear.
        for k, i in enumerate(n.input):
            if i in quantized:
                n.input[k] = i + "_dq"
        if id(n) in target_ids:
            n.input[1] = renamed[n.input[1]]
        nodes.append(n)
        for out in n.output:
            if out in quantized:
                nodes += qdq_nodes(out)
    used = {i for n in nodes for i in n.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept + new_inits)
    return model, len(targets) + len(adds)


def quantize_file(source, output, samples=4, seed=0, op_types=DEFAULT_OP_TYPES,
                  exclude_outputs=()):
    """Quantizes the model file `source` into `output`; returns the
    quantized model and how many nodes it quantized."""
    model, count = quantize(onnx.load(source), samples, seed, op_types,
                            exclude_outputs)
    onnx.save(model, output)
    return model, count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("output")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--op-types", default=",".join(DEFAULT_OP_TYPES),
        help="the op types to quantize, of Conv, Gemm, MatMul and Add "
             "(default: all four)")
    parser.add_argument(
        "--exclude-output-quantization", default="", metavar="OP_TYPES",
        help="op types whose outputs stay float (a Relu or Clip after them "
             "then stays too)")
    args = parser.parse_args()
    op_types = tuple(t for t in args.op_types.split(",") if t)
    unknown = [t for t in op_types if t not in DEFAULT_OP_TYPES]
    if unknown:
        print(f"error: --op-types: cannot quantize {', '.join(unknown)} "
              f"(only {', '.join(DEFAULT_OP_TYPES)})", file=sys.stderr)
        return 1
    excluded = tuple(t for t in args.exclude_output_quantization.split(",")
                     if t)
    try:
        model = onnx.load(args.model)
    except Exception as e:  # OSError, or protobuf's DecodeError
        print(f"error: {args.model}: cannot read an ONNX model: {e}",
              file=sys.stderr)
        return 1
    if max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
           default=0) < 13:
        print("error: the model's opset is below 13 (per-channel "
              "DequantizeLinear needs 13)", file=sys.stderr)
        return 1
    model, count = quantize(model, args.samples, args.seed, op_types,
                            excluded)
    onnx.checker.check_model(model)
    onnx.save(model, args.output)
    print(f"{args.output}: {count} nodes quantized")
    return 0


if __name__ == "__main__":
    sys.exit(main())
