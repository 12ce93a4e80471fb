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
#                      [--iterations N] [--min-round-ms T] [--rounds R]
#                      [--write-doc FILE]
#
# For each model exported by models/export_torch_models.py (BUILD_DIR/models,
# `make models-check` makes them) it compiles the model with mlc-compile
# (recording compile time, peak compile memory and the arena size), makes
# random inputs (seed 0), and then, for each thread count, alternates R
# rounds of `mlc-run --bench N` and ONNX Runtime (bench/ort_bench.js,
# onnxruntime-node, graph optimizations 'all') so both see the same machine
# noise. A round times at least N runs and, for models that run faster than
# T / N ms, as many as take about T ms (from one untimed round of mlc-run
# first), the same count for both tools: five runs of a 0.6 ms model are one
# scheduler hiccup away from a different median. Reported: median of the per-round medians, the ratio mlc/ORT, the
# geometric mean of the ratios, ORT's peak RSS, and how far mlc's output is
# from ORT's (max |mlc - ORT| / max |ORT|), and mlc's achieved GFLOP/s
# (multiply-adds of Conv/ConvTranspose/MatMul/Gemm counted as 2 FLOPs, from
# ONNX shape inference) as a share of OpenBLAS sgemm measured in the same run.
# A microbenchmark compiles N x N x N f32 matmuls with mlc and times them
# against OpenBLAS's cblas_sgemm (bench/sgemm_bench.c, one thread) and the
# FMA peak. Timing belongs here, not in tests.
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


def count_flops(model_path):
    """FLOPs of one run: 2 per multiply-add of the model's Conv,
    ConvTranspose, MatMul and Gemm nodes (other ops are not counted)."""
    model = onnx.shape_inference.infer_shapes(
        onnx.load(model_path, load_external_data=False))
    shapes = {}
    for v in list(model.graph.value_info) + list(model.graph.input) + \
            list(model.graph.output):
        dims = v.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[v.name] = [d.dim_value for d in dims]
    for i in model.graph.initializer:
        shapes[i.name] = list(i.dims)
    flops = 0
    for node in model.graph.node:
        ins = [shapes.get(n) for n in node.input]
        out = shapes.get(node.output[0]) if node.output else None
        if out is None or any(x is None for x in ins[:2]):
            continue
        if node.op_type == "Conv":
            w = ins[1]
            flops += 2 * math.prod(out) * math.prod(w[1:])
        elif node.op_type == "ConvTranspose":
            w = ins[1]
            flops += 2 * math.prod(ins[0]) * math.prod(w[1:])
        elif node.op_type in ("MatMul", "Gemm"):
            a = ins[0]
            k = a[-1]
            if node.op_type == "Gemm" and any(
                    at.name == "transA" and at.i for at in node.attribute):
                k = a[0]
            flops += 2 * math.prod(out) * k
    return flops


def make_inputs(model_path, workdir, dims=None, prefix=""):
    """Random inputs for the model's graph inputs: .npy for mlc-run, raw
    files plus NAME:DTYPE:DIMS:FILE specs for ort_bench.js. Symbolic dims
    take their values from `dims` ({name: value}); files are named
    `prefix`input_K."""
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    npys, specs = [], []
    for k, value in enumerate(v for v in model.graph.input
                              if v.name not in initializers):
        t = value.type.tensor_type
        dtype = ONNX_TO_NP[t.elem_type]
        shape = [d.dim_value if d.HasField("dim_value") else
                 (dims or {})[d.dim_param] for d in t.shape.dim]
        if dtype is np.float32:
            a = rng.standard_normal(shape).astype(np.float32)
        else:
            a = rng.integers(0, 2, shape).astype(dtype)
        npy = os.path.join(workdir, f"{prefix}input_{k}.npy")
        raw = os.path.join(workdir, f"{prefix}input_{k}.bin")
        np.save(npy, a)
        a.tofile(raw)
        npys.append(npy)
        specs.append(f"{value.name}:{NP_TO_ORT[dtype]}:"
                     f"{'x'.join(map(str, shape))}:{raw}")
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


def mlc_bench_command(build, lib, npys, threads, iterations):
    """`mlc-run --bench` of `lib` on the inputs `npys`."""
    cmd = [os.path.join(build, "bin", "mlc-run"), lib, "--bench",
           str(iterations), "--warmup", "1", "--threads", str(threads)]
    for f in npys:
        cmd += ["-i", f]
    return cmd


def bench_median(stdout):
    """The median mlc-run --bench printed."""
    return float(re.search(r"median_ms: ([\d.]+)", stdout).group(1))


def mlc_round(build, lib, npys, threads, iterations):
    out = subprocess.run(mlc_bench_command(build, lib, npys, threads,
                                           iterations),
                         capture_output=True, text=True, check=True)
    return bench_median(out.stdout)


def round_iterations(estimate_ms, at_least, min_round_ms, at_most=500):
    """Timed runs per round: at least `at_least`, and enough for about
    `min_round_ms` of a model that runs in `estimate_ms`."""
    if estimate_ms <= 0:
        return at_least
    return max(at_least, min(at_most, math.ceil(min_round_ms / estimate_ms)))


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


def matmul_model(n, path):
    """An N x N x N f32 MatMul with a constant right-hand side."""
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.random((n, n), dtype=np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "W"], ["Y"])], "matmul",
        [helper.make_tensor_value_info("A", onnx.TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, [n, n])],
        [w])
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def microbench(build, sizes, rounds, iterations):
    """mlc's matmul against OpenBLAS sgemm and the FMA peak, one thread,
    interleaved."""
    workdir = os.path.join(build, "bench", "matmul")
    os.makedirs(workdir, exist_ok=True)
    tool = os.path.join(workdir, "sgemm_bench")
    subprocess.run(
        ["cc", "-O2", "-I/usr/include/x86_64-linux-gnu/openblas-pthread",
         os.path.join(ROOT, "bench", "sgemm_bench.c"), "-o", tool,
         "-lopenblas"], check=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    # Debian's OpenBLAS 0.3.21 does not know AVX-512 AMD CPUs (Zen 4, Zen
    # 5) and runs its Haswell kernel there, at half their peak; later
    # releases pick the SkylakeX kernel for them, and so does this
    # comparison on any CPU with AVX-512F, whatever OPENBLAS_CORETYPE the
    # environment asked for: the reference is OpenBLAS's best kernel.
    with open("/proc/cpuinfo") as f:
        if " avx512f" in f.read():
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
    rows = []
    for n in sizes:
        model = os.path.join(workdir, f"matmul{n}.onnx")
        matmul_model(n, model)
        lib = os.path.join(workdir, f"matmul{n}.so")
        compile_model(build, model, lib)
        a = os.path.join(workdir, f"a{n}.npy")
        np.save(a, np.random.default_rng(2).random((n, n), dtype=np.float32))
        mlc, blas, peak = [], [], []
        for _ in range(rounds):
            mlc.append(mlc_round(build, lib, [a], 1, iterations))
            out = subprocess.run([tool, str(n), str(iterations)], env=env,
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            blas.append(r["openblas_gflops"])
            peak.append(r["fma_peak_gflops"])
        row = {"n": n, "mlc_gflops": 2 * n ** 3 / statistics.median(mlc) / 1e6,
               "openblas_gflops": statistics.median(blas),
               "peak_gflops": statistics.median(peak)}
        rows.append(row)
        print(f"matmul {n}: mlc {row['mlc_gflops']:.1f} GFLOP/s, OpenBLAS "
              f"{row['openblas_gflops']:.1f}, FMA peak {row['peak_gflops']:.1f}",
              flush=True)
    return rows


def replace_doc_section(path, marker, heading, text):
    """Puts TEXT between the `<!-- MARKER begin/end -->` comments of the
    Markdown file PATH, or appends it under the heading HEADING when the
    file has no such section yet."""
    begin, end = f"<!-- {marker} begin -->", f"<!-- {marker} end -->"
    section = f"{begin}\n\n{text}\n\n{end}"
    with open(path) as f:
        doc = f.read()
    if begin in doc:
        doc = doc[:doc.index(begin)] + section + doc[doc.index(end) +
                                                     len(end):]
    else:
        doc = doc.rstrip("\n") + f"\n\n## {heading}\n\n{section}\n"
    with open(path, "w") as f:
        f.write(doc)


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            name = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        name = platform.processor()
    # The CPU as LLVM (and so `--mcpu=native`) sees it: cpuinfo says only
    # "AMD EPYC" on some virtual machines.
    try:
        out = subprocess.run(["/usr/lib/llvm-22/bin/llc", "--version"],
                             capture_output=True, text=True).stdout
        llvm_cpu = re.search(r"Host CPU:\s*(\S+)", out).group(1)
        name += f" (LLVM: {llvm_cpu})"
    except (OSError, AttributeError):
        pass
    return f"{name}, {os.cpu_count()} cores, {platform.system()}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--min-round-ms", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--matmul-sizes", default="512,1024")
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    threads = [int(t) for t in args.threads.split(",")]
    sizes = [int(n) for n in args.matmul_sizes.split(",") if n]
    micro = microbench(build, sizes, args.rounds, 10) if sizes else []
    sgemm = max((r["openblas_gflops"] for r in micro), default=None)
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
        flops = count_flops(model_path)
        for t in threads:
            mlc, ort = [], []
            iterations = round_iterations(
                mlc_round(build, lib, npys, t, 3), args.iterations,
                args.min_round_ms)
            for _ in range(args.rounds):
                mlc.append(mlc_round(build, lib, npys, t, iterations))
                ort.append(ort_round(model_path, specs, t, iterations,
                                     workdir))
            row = {
                "model": name, "threads": t, "iterations": iterations,
                "mlc_ms": statistics.median(mlc),
                "ort_ms": statistics.median(r["median_ms"] for r in ort),
                "ort_rss_mb": max(r["peak_rss_mb"] for r in ort),
                "compile_s": seconds, "compile_mb": peak_mb,
                "arena_mb": arena / (1 << 20),
                "diff": output_difference(build, lib, npys, workdir),
            }
            row["ratio"] = row["mlc_ms"] / row["ort_ms"]
            row["gflops"] = flops / row["mlc_ms"] / 1e6
            row["sgemm_pct"] = (100 * row["gflops"] / (sgemm * t)
                                if sgemm else float("nan"))
            rows.append(row)
            print(f"{name} threads={t}: mlc {row['mlc_ms']:.2f} ms, ORT "
                  f"{row['ort_ms']:.2f} ms, mlc/ORT {row['ratio']:.2f}, "
                  f"output rel. diff {row['diff']:.1e}", flush=True)
    if args.write_doc and rows:
        write_doc(args.write_doc, rows, threads, args, micro)
    return 0


def write_doc(path, rows, threads, args, micro):
    # Sections other tools write (bench/compare_builds.py, the GPU,
    # symbolic-size, quantized, wild-model and user-model benchmarks) stay;
    # the matmul section is this run's when it measured one.
    kept = ""
    if os.path.exists(path):
        old = open(path).read()
        own = {"## f32 matmul, one thread"} if micro else set()
        sections = old.split("\n## ")[1:]
        kept = "".join("\n## " + section for section in sections
                       if "## " + section.split("\n", 1)[0] not in own)
    with open(path, "w") as f:
        f.write("# Performance\n\n")
        f.write(f"Measured {datetime.date.today()} on {machine()} by "
                "`bench/run_bench.py build --write-doc docs/Performance.md` "
                f"({args.rounds} interleaved rounds per tool and thread "
                f"count, each of at least {args.iterations} timed runs and "
                f"about {args.min_round_ms:.0f} ms, the same count for both "
                "tools (column 'runs'); median of the round medians). ONNX Runtime is onnxruntime-node "
                "1.30.0 (CPU, graph optimizations 'all'); the models are "
                "models/export_torch_models.py's opset-13 exports with random "
                "weights. The machine is shared and noisy: compare the ratios, "
                "not absolute times across runs.\n\n")
        for t in threads:
            ratios = [r["ratio"] for r in rows if r["threads"] == t]
            geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
            f.write(f"Geometric mean of mlc/ORT latency at {t} thread(s): "
                    f"**{geo:.2f}** (mlc takes {geo:.2f} times as long as "
                    "ONNX Runtime).\n\n")
        f.write("| model | threads | runs | mlc median ms | ORT median ms | mlc/ORT "
                "| mlc GFLOP/s | % of sgemm | mlc compile s | compile peak MB "
                "| mlc arena MB | ORT peak RSS MB "
                "| max abs(mlc-ORT)/max abs(ORT) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['model']} | {r['threads']} | {r['iterations']} | "
                    f"{r['mlc_ms']:.2f} | "
                    f"{r['ort_ms']:.2f} | {r['ratio']:.2f} | "
                    f"{r['gflops']:.1f} | {r['sgemm_pct']:.0f} | "
                    f"{r['compile_s']:.1f} | {r['compile_mb']:.0f} | "
                    f"{r['arena_mb']:.1f} | {r['ort_rss_mb']:.0f} | "
                    f"{r['diff']:.1e} |\n")
        f.write("\nGFLOP/s counts the multiply-adds of Conv, ConvTranspose, "
                "MatMul and Gemm (2 FLOPs each); % of sgemm divides it by "
                "OpenBLAS's single-thread sgemm rate below times the thread "
                "count.\n")
        if micro:
            f.write("\n## f32 matmul, one thread\n\n"
                    "N x N x N, constant right-hand side for mlc "
                    "(`mlc-compile --mcpu=native`), OpenBLAS 0.3 "
                    "`cblas_sgemm` with OPENBLAS_NUM_THREADS=1 (and "
                    "OPENBLAS_CORETYPE=SkylakeX on AVX-512 CPUs, which "
                    "0.3.21 runs with AVX2 kernels otherwise) "
                    "(bench/sgemm_bench.c), and the FMA peak of 12 "
                    "independent FMA chains at the CPU's widest vectors "
                    "(512-bit ones with AVX-512).\n\n"
                    "| N | mlc GFLOP/s | OpenBLAS GFLOP/s | mlc/OpenBLAS "
                    "| FMA peak GFLOP/s |\n|---|---|---|---|---|\n")
            for r in micro:
                f.write(f"| {r['n']} | {r['mlc_gflops']:.1f} | "
                        f"{r['openblas_gflops']:.1f} | "
                        f"{100 * r['mlc_gflops'] / r['openblas_gflops']:.0f}% "
                        f"| {r['peak_gflops']:.1f} |\n")
        f.write("\nWhere the time goes and what comes next: "
                "[CPU.md](CPU.md#code-generation).\n")
        if kept:
            f.write(kept.rstrip("\n") + "\n")


if __name__ == "__main__":
    sys.exit(main())
