#!/usr/bin/python3
# ===- check_quantized_layers.py - Each quantized layer, mlc against ORT -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM
# Exceptions. See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_quantized_layers.py BUILD_DIR [--models bert_small,resnet18]
#       [--target npu|cpu] [--npu-config large]
#
# A QDQ model's output is only as close to ONNX Runtime's as its first
# flipped rounding allows: float sums in another order put a value at a
# rounding boundary on the other side, one quantization step off, and every
# later layer carries that on (ONNX Runtime's own two evaluations of QDQ
# BERT-small, as written and with its fused integer kernels, differ by up to
# 8 steps at the output). What "within one quantization step" can mean for a
# whole model is each layer: this script quantizes each bench model
# (models/quantize_qdq.py), runs it with ONNX Runtime as written (graph
# optimizations off) keeping every QuantizeLinear's 8-bit output, cuts the
# graph at those outputs into layers (each QuantizeLinear with what computes
# its input from the previous layers' 8-bit outputs), and runs every layer
# with mlc (on the NPU simulator or the CPU) on ONNX Runtime's inputs to it.
# Prints, per model, the layers and the largest difference in steps of each
# layer's output, and fails when one is more than one step off.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "utils"))

import mlc  # noqa: E402
from mlc import comparison  # noqa: E402
import quantize_qdq  # noqa: E402
from bench_models import ensure_exported  # noqa: E402


def layers(model):
    """(QuantizeLinear output, the 8-bit tensors and graph inputs its layer
    reads, the nodes that compute it), in graph order, for every
    QuantizeLinear."""
    producer = {out: n for n in model.graph.node for out in n.output}
    quantized = {n.output[0] for n in model.graph.node
                 if n.op_type == "QuantizeLinear"}
    graph_inputs = {i.name for i in model.graph.input}
    constants = {i.name for i in model.graph.initializer}
    result = []
    for node in model.graph.node:
        if node.op_type != "QuantizeLinear":
            continue
        reads, nodes, stack, seen = set(), [], [node], set()
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            nodes.append(n)
            for name in n.input:
                if not name or name in constants:
                    continue
                if name in quantized or name in graph_inputs:
                    reads.add(name)
                elif name in producer:
                    stack.append(producer[name])
        if reads:
            order = {id(n): i for i, n in enumerate(model.graph.node)}
            nodes.sort(key=lambda n: order[id(n)])
            result.append((node.output[0], sorted(reads), nodes))
    return result


def elem_types(model):
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + \
            list(inferred.graph.output):
        types[vi.name] = vi.type
    return types


def layer_model(model, output, reads, nodes, types):
    used = {name for n in nodes for name in n.input}
    inits = [i for i in model.graph.initializer if i.name in used]
    graph = helper.make_graph(
        nodes, "layer",
        [helper.make_value_info(name, types[name]) for name in reads],
        [helper.make_value_info(output, types[output])], inits)
    layer = helper.make_model(graph, opset_imports=model.opset_import)
    layer.ir_version = model.ir_version
    return layer


def check_model(build, name, target, npu_config, tmp):
    models_dir = os.path.join(build, "models")
    source = os.path.join(models_dir, f"{name}-opset13.onnx")
    path = os.path.join(tmp, f"{name}-qdq.onnx")
    model, count = quantize_qdq.quantize_file(source, path)
    types = elem_types(model)
    cuts = layers(model)
    # ONNX Runtime as written, every 8-bit tensor a cut reads or writes
    # kept as an output.
    wanted = sorted({q for q, reads, _ in cuts} |
                    {r for _, reads, _ in cuts for r in reads})
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    have = {o.name for o in probe.graph.output}
    for t in wanted:
        if t not in have:
            probe.graph.output.append(helper.make_value_info(t, types[t]))
    probe_path = os.path.join(tmp, f"{name}-probe.onnx")
    onnx.save(probe, probe_path)
    inputs = quantize_qdq.random_inputs(model, np.random.default_rng(1))
    ref = comparison.run_ort(probe_path, inputs, "disabled")
    worst, over, npu_layers = 0, 0, 0
    options = {"npu_config": npu_config} if target == "npu" else {}
    device = "npu-sim" if target == "npu" else "cpu"
    for i, (output, reads, nodes) in enumerate(cuts):
        layer = layer_model(model, output, reads, nodes, types)
        layer_path = os.path.join(tmp, f"{name}-layer{i}.onnx")
        onnx.save(layer, layer_path)
        lib = mlc.compile(layer_path, target=target,
                          output=layer_path[:-len(".onnx")] + ".so",
                          progress=False, **options)
        feed = {r: inputs[r] if r in inputs else ref[r] for r in reads}
        run = mlc.load(lib, device=device)
        got = run.run(feed)[output]
        stats = run.npu_stats()
        on_npu = bool(stats and stats["cycles"] > 0)
        npu_layers += on_npu
        steps = int(np.abs(got.astype(np.int64) -
                           ref[output].astype(np.int64)).max())
        off = float(np.mean(got != ref[output]))
        worst = max(worst, steps)
        over += steps > 1
        ops = sorted({n.op_type for n in nodes} - {"QuantizeLinear",
                                                   "DequantizeLinear"})
        where = " [NPU]" if on_npu else ""
        print(f"  {name} layer {i}: {output} ({', '.join(ops) or 'requantize'}"
              f"){where}: max {steps} step(s), {100 * off:.2f}% of values "
              f"differ", flush=True)
    return count, len(cuts), npu_layers, worst, over


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--models", default="bert_small,resnet18")
    parser.add_argument("--target", choices=["npu", "cpu"], default="npu")
    parser.add_argument("--npu-config", default="large")
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    os.environ.setdefault("MLC_BUILD_DIR", build)
    names = args.models.split(",")
    ensure_exported(os.path.join(build, "models"), names)
    rows, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="mlc-qlayers-") as tmp:
        for name in names:
            count, cut, npu_layers, worst, over = check_model(
                build, name, args.target, args.npu_config, tmp)
            failed += over > 0
            rows.append(f"| {name} | {count} | {cut} | {npu_layers} | "
                        f"{worst} | {over} |")
    where = (f"NPU simulator, `{args.npu_config}`" if args.target == "npu"
             else "CPU")
    print(f"\nmlc ({where}) against ONNX Runtime as written, layer by layer:")
    print("| model | nodes quantized | layers | layers with NPU programs | "
          "largest difference (steps) | layers over one step |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
