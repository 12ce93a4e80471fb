#!/usr/bin/python3
# ===- npu_bench.py - Models on the simulated NPU against ONNX Runtime ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/npu_bench.py BUILD_DIR [--models a,b] [--quantized a,b]
#                      [--npus edge,large] [--write-doc docs/NPU.md]
#
# For each model (BUILD_DIR/models/NAME-opset13.onnx, `make models-check`
# makes them) and NPU description: compiles it with `mlc-compile
# --target=npu --npu-config=NPU --print-placement`, runs it once with
# `mlc-run --device=npu-sim --profile` on random inputs (seed 0), runs ONNX
# Runtime on the same inputs, and reports the placement (kernels on the NPU
# and on the CPU), the simulated cycles and time at the NPU's clock, the
# matrix unit's utilization (multiply-accumulates over rows x cols x
# cycles), how busy it, the vector unit and the DMA were, each program's
# node and bound (the busiest of the three), and max |mlc - ORT| / max(1, max |ORT|). --quantized models are
# first quantized as ONNX Runtime's quantizer writes them
# (models/quantize_qdq.py: QDQ, uint8 activations, int8 weights) and
# compared with ONNX Runtime running the QDQ graph as written (graph
# optimizations off) and with its fused integer kernels (on), on inputs
# from quantize_qdq.random_inputs. Simulated cycles are deterministic: two
# runs give the same numbers.
#
# ===--------------------------------------------------------------------=== #

import argparse
import json
import datetime
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "models"))
from mlc import comparison  # noqa: E402
import quantize_qdq  # noqa: E402

LINE = re.compile(
    r"(\d+) cycles, ([\d.]+) ms at (\d+) MHz, matrix unit ([\d.]+)% utilized "
    r"\(([\d.]+)% busy\), DMA ([\d.]+)% busy, (\d+) bytes loaded, (\d+) stored"
    r", vector unit ([\d.]+)% busy")


def parse(line):
    m = LINE.search(line)
    if not m:
        return None
    cycles, ms, mhz, util, busy, dma, loaded, stored, vector = m.groups()
    return {"cycles": int(cycles), "ms": float(ms), "util": float(util),
            "busy": float(busy), "dma": float(dma), "loaded": int(loaded),
            "stored": int(stored), "vector": float(vector)}


def array_cells(npu):
    """The matrix unit's rows x cols of a built-in NPU or a JSON file."""
    builtin = {"edge": 16 * 16, "large": 64 * 64}
    if npu in builtin:
        return builtin[npu]
    with open(npu) as f:
        matrix = json.load(f)["matrix"]
    return matrix["rows"] * matrix["cols"]


def node_macs(model):
    """The multiply-accumulates each Conv, MatMul and Gemm node of `model`
    asks for, from its shapes (ONNX shape inference): what utilization
    counts, whatever the NPU's program computes besides (a direct
    convolution's dropped columns)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    shapes = {}
    for v in (list(inferred.graph.input) + list(inferred.graph.value_info) +
              list(inferred.graph.output)):
        dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
        if dims and all(d > 0 for d in dims):
            shapes[v.name] = dims
    for t in inferred.graph.initializer:
        shapes[t.name] = list(t.dims)
    macs = {}
    for n in inferred.graph.node:
        out = shapes.get(n.output[0]) if n.output else None
        if out is None:
            continue
        if n.op_type == "Conv" and n.input[1] in shapes:
            w = shapes[n.input[1]]
            macs[n.name] = int(np.prod(out)) * int(np.prod(w[1:]))
        elif n.op_type == "MatMul" and n.input[0] in shapes:
            macs[n.name] = int(np.prod(out)) * shapes[n.input[0]][-1]
        elif n.op_type == "Gemm" and n.input[0] in shapes:
            a = shapes[n.input[0]]
            trans_a = any(x.name == "transA" and x.i for x in n.attribute)
            macs[n.name] = int(np.prod(out)) * (a[0] if trans_a else a[1])
    return macs


def run_model(build, model_path, npu, workdir, quantized=False):
    lib = os.path.join(workdir, f"model-{npu}.so")
    compile_cmd = [os.path.join(build, "bin", "mlc-compile"), model_path,
                   "--target=npu", f"--npu-config={npu}", "--print-placement",
                   "-o", lib]
    proc = subprocess.run(compile_cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    placements = [l for l in proc.stdout.splitlines()
                  if l.startswith("placement: ")]
    on_npu = sum(": npu (" in l for l in placements)
    model = onnx.load(model_path)
    inputs = (quantize_qdq.random_inputs(model, np.random.default_rng(1))
              if quantized else comparison.random_inputs(model, seed=0))
    args = []
    for k, array in enumerate(inputs.values()):
        path = os.path.join(workdir, f"input_{k}.npy")
        np.save(path, array)
        args += ["-i", path]
    out = os.path.join(workdir, f"out-{npu}")
    proc = subprocess.run(
        [os.path.join(build, "bin", "mlc-run"), lib, "--device=npu-sim",
         "--profile", "-o", out] + args, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    total, programs = None, []
    for line in proc.stdout.splitlines():
        if line.startswith("npu: "):
            total = parse(line)
        elif line.startswith("npu program "):
            program = parse(line)
            named = re.match(r"npu program \d+ \((.*)\): ", line)
            program["node"] = named.group(1) if named else None
            programs.append(program)
    def difference(reference):
        diff = 0.0
        for k, ref in enumerate(reference.values()):
            got = np.load(os.path.join(out, f"output_{k}.npy"))
            diff = max(diff,
                       float(np.abs(got.astype(np.float64) - ref).max()) /
                       max(1.0, float(np.abs(ref).max())))
        return diff

    # Utilization from the multiply-accumulates the nodes ask for (the
    # simulator counts what the programs compute, a direct convolution's
    # dropped columns included): per program, and over the Conv and MatMul
    # programs alone (a Gemm of one row, a classifier, is a matrix-vector
    # product no systolic array runs well).
    ops = {n.name: n.op_type for n in model.graph.node}
    wanted = node_macs(model)
    cells = array_cells(npu)
    # A node split over several programs has its work shared among them
    # by their cycles.
    node_cycles = {}
    for p in programs:
        node_cycles[p["node"]] = node_cycles.get(p["node"], 0) + p["cycles"]
    macs = cycles = 0.0
    for p in programs:
        share = (p["cycles"] / node_cycles[p["node"]]
                 if node_cycles[p["node"]] else 0.0)
        p["util"] = (100.0 * wanted.get(p["node"], 0) * share /
                     (cells * p["cycles"]) if p["cycles"] else 0.0)
        if ops.get(p["node"]) in ("Conv", "MatMul"):
            macs += p["util"] * p["cycles"]
            cycles += p["cycles"]
    if total and total["cycles"]:
        total["util"] = (100.0 * sum(wanted.get(node, 0)
                                     for node in node_cycles) /
                         (cells * total["cycles"]))
    row = {"placements": placements, "on_npu": on_npu,
           "contraction_util": macs / cycles if cycles else None,
           "on_cpu": len(placements) - on_npu, "total": total,
           "programs": programs,
           "diff": difference(comparison.run_ort(model_path, inputs))}
    if quantized:
        written = comparison.run_ort(model_path, inputs, "disabled")
        fused = comparison.run_ort(model_path, inputs)
        row["diff_written"] = difference(written)
        row["ort_fused_vs_written"] = max(
            float(np.abs(fused[n].astype(np.float64) - r).max()) /
            max(1.0, float(np.abs(r).max())) for n, r in written.items())
    return row


def group_reasons(placements):
    """Placement lines grouped by reason: one bullet per reason with its
    count and up to three of its nodes."""
    groups = {}
    for line in placements:
        m = re.match(r"placement: (.*?): cpu \((.*)\)$", line)
        if not m:
            continue
        node, reason = m.groups()
        # The estimate's numbers differ per node; the kind of reason not.
        key = re.sub(r"tiles .*?; CPU ~[\d.]+ us", "the NPU's estimate is "
                     "not below the CPU's", reason)
        groups.setdefault(key, []).append(node)
    out = []
    for reason, nodes in groups.items():
        shown = ", ".join(f"`{n}`" for n in nodes[:3])
        more = f" and {len(nodes) - 3} more" if len(nodes) > 3 else ""
        out.append(f"- {len(nodes)}: {reason} ({shown}{more})")
    return out


def write_doc(path, rows, models, quantized):
    begin = "<!-- npu_bench begin -->"
    end = "<!-- npu_bench end -->"
    lines = [begin, "",
             f"Measured {datetime.date.today()} by `bench/npu_bench.py build "
             f"--models {','.join(models)} --quantized "
             f"{','.join(quantized)} --write-doc docs/NPU.md` "
             "(simulated cycles: deterministic, the same on any machine). "
             "The models are models/export_torch_models.py's opset-13 "
             "exports with random weights and inputs (seed 0); ONNX Runtime "
             "1.30 (npm, CPU) is the reference. The QDQ rows are those "
             "models quantized by models/quantize_qdq.py as ONNX Runtime's "
             "quantizer writes them; their last column compares with ONNX "
             "Runtime running the QDQ graph as written (its optimizations "
             "off, each DequantizeLinear, float op and QuantizeLinear on "
             "its own), and the next table says how far ONNX Runtime's own "
             "fused integer kernels are from that.", "",
             "| model | NPU | kernels on NPU / CPU | NPU cycles per run | "
             "time at clock | matrix unit utilized | utilized, Conv and MatMul "
             "programs | matrix busy | vector busy | DMA busy "
             "| MB loaded | MB stored | max abs(mlc-ORT)/max abs(ORT) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = r["total"]
        if not t or not r["on_npu"]:
            lines.append(f"| {r['model']} | {r['npu']} | 0 / {r['on_cpu']} "
                         f"| - | - | - | - | - | - | - | - | - | "
                         f"{r.get('diff_written', r['diff']):.1e} |")
            continue
        contraction = (f"{r['contraction_util']:.1f}%"
                       if r["contraction_util"] is not None else "-")
        lines.append(
            f"| {r['model']} | {r['npu']} | {r['on_npu']} / {r['on_cpu']} | "
            f"{t['cycles']} | {t['ms']:.3f} ms | {t['util']:.1f}% | "
            f"{contraction} | {t['busy']:.1f}% | {t['vector']:.1f}% | "
            f"{t['dma']:.1f}% | "
            f"{t['loaded'] / 1e6:.1f} | {t['stored'] / 1e6:.1f} | "
            f"{r.get('diff_written', r['diff']):.1e} |")
    qrows = [r for r in rows if "diff_written" in r]
    if qrows:
        lines += ["", "| quantized model | NPU | mlc vs ORT as written | "
                  "mlc vs ORT fused | ORT fused vs ORT as written |",
                  "|---|---|---|---|---|"]
        for r in qrows:
            lines.append(f"| {r['model']} | {r['npu']} | "
                         f"{r['diff_written']:.1e} | {r['diff']:.1e} | "
                         f"{r['ort_fused_vs_written']:.1e} |")
    lines += ["", "Per program (one kernel each: a matmul, a convolution or a "
              "quantized add) of each model on `large`, as `mlc-run "
              "--device=npu-sim --profile` prints them; the bound is the "
              "busiest of the matrix unit, the vector unit and the DMA:", ""]
    for r in rows:
        if r["npu"] != "large" or not r["programs"]:
            continue
        lines += [f"**{r['model']}** on `large`:", "",
                  "| program (node) | cycles | utilized | matrix busy | "
                  "vector busy | DMA busy | bound |",
                  "|---|---|---|---|---|---|---|"]
        seen = set()
        for p in r["programs"]:
            key = (p["cycles"], p["util"])
            if key in seen:
                continue
            seen.add(key)
            bound = max((p["busy"], "compute"), (p["vector"], "vector"),
                        (p["dma"], "DMA"))[1]
            lines.append(f"| {p['node']} | {p['cycles']} | {p['util']:.1f}% | "
                         f"{p['busy']:.1f}% | {p['vector']:.1f}% | "
                         f"{p['dma']:.1f}% | {bound} |")
        lines += ["", "(Programs with the same counts as one above are "
                  "left out.)", ""]
    lines += ["### Placement reports", "",
              "`mlc-compile --target=npu --npu-config=NPU --print-placement` "
              "for the rows above: every kernel left on the CPU with its "
              "reason, and the whole report of the first quantized model on "
              "`edge`.", ""]
    for r in rows:
        cpu = [l for l in r["placements"] if ": cpu (" in l]
        if cpu:
            lines += [f"**{r['model']}** on `{r['npu']}`: {len(cpu)} on the "
                      "CPU", ""] + group_reasons(cpu) + [""]
    full = next((r for r in rows if "QDQ" in r["model"] and
                 r["npu"] == "edge"), None)
    if full:
        lines += [f"**{full['model']}** on `edge`, the whole report:", "",
                  "```"] + full["placements"] + ["```", ""]
    lines.append(end)
    text = open(path).read() if os.path.exists(path) else ""
    block = "\n".join(lines)
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) +
                                                       len(end):]
    else:
        text += "\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models",
                        default="bert_small,bert_base,resnet18,resnet50,"
                        "mobilenet_v2")
    parser.add_argument("--quantized", default="",
                        help="models to quantize (QDQ) and run as int8")
    parser.add_argument("--npus", default="edge,large")
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    rows = []
    models = [m for m in args.models.split(",") if m]
    quantized = [m for m in args.quantized.split(",") if m]
    jobs = [(m, False) for m in models] + [(m, True) for m in quantized]
    for name, quantize in jobs:
        model_path = os.path.join(build, "models", f"{name}-opset13.onnx")
        if not os.path.exists(model_path):
            print(f"{name}: {model_path} missing (run `make models-check`)")
            continue
        for npu in args.npus.split(","):
            with tempfile.TemporaryDirectory() as workdir:
                path = model_path
                if quantize:
                    qdq, _ = quantize_qdq.quantize(onnx.load(model_path), 4, 0)
                    path = os.path.join(workdir, f"{name}-qdq.onnx")
                    onnx.save(qdq, path)
                row = run_model(build, path, npu, workdir, quantize)
            row.update(model=name + (" (QDQ int8)" if quantize else ""),
                       npu=npu)
            rows.append(row)
            t = row["total"]
            summary = (f"{t['cycles']} cycles, {t['util']:.1f}% utilized"
                       if t and row["on_npu"] else "nothing on the NPU")
            if row["contraction_util"] is not None:
                summary += (f" ({row['contraction_util']:.1f}% in its Conv "
                            "and MatMul programs)")
            print(f"{name} on {npu}: {row['on_npu']} kernels on the NPU, "
                  f"{row['on_cpu']} on the CPU, {summary}, "
                  f"diff {row['diff']:.1e}", flush=True)
    if args.write_doc and rows:
        write_doc(args.write_doc, rows, models, quantized)
    return 0


if __name__ == "__main__":
    sys.exit(main())
