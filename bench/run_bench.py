#!/usr/bin/python3
# ===- run_bench.py - mlc against ONNX Runtime, same run, interleaved ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/run_bench.py BUILD_DIR [--models a,b] [--threads 1,2]
#                      [--iterations N] [--rounds R] [--write-doc FILE]
#
# For each model exported by models/export_torch_models.py (BUILD_DIR/models,
# `make models-check` makes them) it compiles the model with mlc-compile
# (recording compile time, peak compile memory and the arena size), makes
# random inputs (seed 0), and then, for each thread count, alternates R
# rounds of `mlc-run --bench N` and ONNX Runtime (bench/ort_bench.js,
# onnxruntime-node, graph optimizations 'all') so both see the same machine
# noise. Reported: median of the per-round medians, the ratio mlc/ORT, the
# geometric mean of the ratios, ORT's peak RSS, and how far mlc's output is
# from ORT's (max |mlc - ORT| / max |ORT|). Timing belongs here, not in
# tests.
#
# ===--------------------------------------------------------------------=== #

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["mlp", "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
          "efficientnet_b0", "squeezenet1_1", "vit_b_16", "bert_small",
          "bert_base"]
NP_TO_ORT = {np.float32: "float32", np.int64: "int64", np.int32: "int32"}
ONNX_TO_NP = {onnx.TensorProto.FLOAT: np.float32,
              onnx.TensorProto.INT64: np.int64,
              onnx.TensorProto.INT32: np.int32}


def make_inputs(model_path, workdir):
    """Random inputs for the model's graph inputs: .npy for mlc-run, raw
    files plus NAME:DTYPE:DIMS:FILE specs for ort_bench.js."""
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    npys, specs = [], []
    for k, value in enumerate(v for v in model.graph.input
                              if v.name not in initializers):
        t = value.type.tensor_type
        dtype = ONNX_TO_NP[t.elem_type]
        dims = [d.dim_value for d in t.shape.dim]
        if dtype is np.float32:
            a = rng.standard_normal(dims).astype(np.float32)
        else:
            a = rng.integers(0, 2, dims).astype(dtype)
        npy = os.path.join(workdir, f"input_{k}.npy")
        raw = os.path.join(workdir, f"input_{k}.bin")
        np.save(npy, a)
        a.tofile(raw)
        npys.append(npy)
        specs.append(f"{value.name}:{NP_TO_ORT[dtype]}:"
                     f"{'x'.join(map(str, dims))}:{raw}")
    return npys, specs


def compile_model(build, model_path, lib):
    out = subprocess.run(
        ["/usr/bin/time", "-f", "TIME %e %M",
         os.path.join(build, "bin", "mlc-compile"), model_path, "-o", lib,
         "--mcpu=native", "--print-memory-plan"],
        capture_output=True, text=True, check=True)
    seconds, kib = re.search(r"TIME ([\d.]+) (\d+)", out.stderr).groups()
    arena = int(re.search(r"arena (\d+) bytes", out.stdout).group(1))
    return float(seconds), int(kib) / 1024.0, arena


def mlc_round(build, lib, npys, threads, iterations):
    cmd = [os.path.join(build, "bin", "mlc-run"), lib, "--bench",
           str(iterations), "--warmup", "1", "--threads", str(threads)]
    for f in npys:
        cmd += ["-i", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return float(re.search(r"median_ms: ([\d.]+)", out.stdout).group(1))


def ort_round(model_path, specs, threads, iterations, workdir):
    out = subprocess.run(
        ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model_path,
         str(threads), str(iterations), "1", workdir] + specs,
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def output_difference(build, lib, npys, workdir):
    outdir = os.path.join(workdir, "mlc-out")
    cmd = [os.path.join(build, "bin", "mlc-run"), lib, "-o", outdir]
    for f in npys:
        cmd += ["-i", f]
    subprocess.run(cmd, check=True, capture_output=True)
    got = np.load(os.path.join(outdir, "output_0.npy")).astype(np.float64)
    ref = np.fromfile(os.path.join(workdir, "ort_output_0.bin"),
                      np.float32).astype(np.float64).reshape(got.shape)
    scale = float(np.max(np.abs(ref)))
    return float(np.max(np.abs(got - ref))) / scale if scale else float("nan")


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            name = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        name = platform.processor()
    return f"{name}, {os.cpu_count()} cores, {platform.system()}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    threads = [int(t) for t in args.threads.split(",")]
    rows = []
    for name in args.models.split(","):
        model_path = os.path.join(build, "models", f"{name}-opset13.onnx")
        if not os.path.exists(model_path):
            print(f"{name}: {model_path} missing (run `make models-check`)")
            continue
        workdir = os.path.join(build, "bench", name)
        os.makedirs(workdir, exist_ok=True)
        lib = os.path.join(workdir, f"{name}.so")
        seconds, peak_mb, arena = compile_model(build, model_path, lib)
        npys, specs = make_inputs(model_path, workdir)
        for t in threads:
            mlc, ort = [], []
            for _ in range(args.rounds):
                mlc.append(mlc_round(build, lib, npys, t, args.iterations))
                ort.append(ort_round(model_path, specs, t, args.iterations,
                                     workdir))
            row = {
                "model": name, "threads": t,
                "mlc_ms": statistics.median(mlc),
                "ort_ms": statistics.median(r["median_ms"] for r in ort),
                "ort_rss_mb": max(r["peak_rss_mb"] for r in ort),
                "compile_s": seconds, "compile_mb": peak_mb,
                "arena_mb": arena / (1 << 20),
                "diff": output_difference(build, lib, npys, workdir),
            }
            row["ratio"] = row["mlc_ms"] / row["ort_ms"]
            rows.append(row)
            print(f"{name} threads={t}: mlc {row['mlc_ms']:.2f} ms, ORT "
                  f"{row['ort_ms']:.2f} ms, mlc/ORT {row['ratio']:.2f}, "
                  f"output rel. diff {row['diff']:.1e}", flush=True)
    if args.write_doc and rows:
        write_doc(args.write_doc, rows, threads, args)
    return 0


def write_doc(path, rows, threads, args):
    with open(path, "w") as f:
        f.write("# Performance\n\n")
        f.write(f"Measured {datetime.date.today()} on {machine()} by "
                "`bench/run_bench.py build --write-doc docs/Performance.md` "
                f"({args.rounds} interleaved rounds of {args.iterations} "
                "timed runs per tool and thread count; median of the round "
                "medians). ONNX Runtime is onnxruntime-node "
                "1.30.0 (CPU, graph optimizations 'all'); the models are "
                "models/export_torch_models.py's opset-13 exports with random "
                "weights. The machine is shared and noisy: compare the ratios, "
                "not absolute times across runs.\n\n")
        for t in threads:
            ratios = [r["ratio"] for r in rows if r["threads"] == t]
            geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
            f.write(f"Geometric mean of mlc/ORT latency at {t} thread(s): "
                    f"**{geo:.1f}** (mlc takes {geo:.1f} times as long as "
                    "ONNX Runtime).\n\n")
        f.write("| model | threads | mlc median ms | ORT median ms | mlc/ORT "
                "| mlc compile s | compile peak MB | mlc arena MB | ORT peak "
                "RSS MB | max abs(mlc-ORT)/max abs(ORT) |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['model']} | {r['threads']} | {r['mlc_ms']:.2f} | "
                    f"{r['ort_ms']:.2f} | {r['ratio']:.1f} | "
                    f"{r['compile_s']:.1f} | {r['compile_mb']:.0f} | "
                    f"{r['arena_mb']:.1f} | {r['ort_rss_mb']:.0f} | "
                    f"{r['diff']:.1e} |\n")
        f.write("\nmlc's code is still naive loops from "
                "`convert-linalg-to-loops` (no tiling, vectorization, packing "
                "or threads), so `--threads 2` does not change its time; "
                "achieved GFLOP/s and the matmul/conv microbenchmark against "
                "OpenBLAS are not measured yet.\n")


if __name__ == "__main__":
    sys.exit(main())
