#!/usr/bin/python3
# ===- dynamic_batch_bench.py - A symbolic batch against a pinned one ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/dynamic_batch_bench.py BUILD_DIR [--models resnet50,bert_base]
#       [--batches 1,8] [--threads 1] [--rounds 3] [--iterations 5]
#       [--write-doc docs/Performance.md]
#
# For each model exported with a symbolic batch (models/export_torch_models.py
# --dynamic, into BUILD_DIR/models), compiles it twice with --mcpu=native:
# once with the batch left symbolic (one library for every batch) and, per
# batch size, once pinned with --dim batch=B (the static compile at the same
# shape); the transformers' sequence length is pinned to 128 in both. Then,
# per batch size, it alternates rounds of mlc-run --bench on the two
# libraries and of ONNX Runtime (bench/ort_bench.js) on the same dynamic
# ONNX file and inputs, and reports the medians and the ratios dynamic /
# static and dynamic / ORT. Timing belongs here, not in tests.
#
# ===--------------------------------------------------------------------=== #

import argparse
import datetime
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_bench  # noqa: E402

SEQ = 128


def compile_library(build, model_path, lib, dims):
    cmd = [os.path.join(build, "bin", "mlc-compile"), model_path, "-o", lib,
           "--mcpu=native"] + [f"--dim={d}" for d in dims]
    subprocess.run(cmd, check=True, capture_output=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default="resnet50,bert_base")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    models = args.models.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    outdir = os.path.join(args.build, "models")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in models:
            path = os.path.join(outdir, f"{name}-opset13-dynamic.onnx")
            if not os.path.exists(path):
                subprocess.run([sys.executable,
                                os.path.join(HERE, "..", "models",
                                             "export_torch_models.py"),
                                outdir, name, "--dynamic"], check=True,
                               capture_output=True)
            seq = ["seq=%d" % SEQ] if name.startswith("bert") else []
            dynamic = os.path.join(workdir, f"{name}-any.so")
            compile_library(args.build, path, dynamic, seq)
            for batch in batches:
                static = os.path.join(workdir, f"{name}-b{batch}.so")
                compile_library(args.build, path, static,
                                seq + [f"batch={batch}"])
                npys, specs = run_bench.make_inputs(
                    path, workdir, {"batch": batch, "seq": SEQ},
                    prefix=f"b{batch}_")
                times = {"static": [], "dynamic": [], "ort": []}
                for _ in range(args.rounds):
                    times["static"].append(run_bench.mlc_round(
                        args.build, static, npys, args.threads,
                        args.iterations))
                    times["dynamic"].append(run_bench.mlc_round(
                        args.build, dynamic, npys, args.threads,
                        args.iterations))
                    ort = run_bench.ort_round(path, specs, args.threads,
                                              args.iterations, workdir)
                    times["ort"].append(ort["median_ms"])
                median = {k: float(np.median(v)) for k, v in times.items()}
                rows.append((name, batch, median))
                print(f"{name} batch {batch}: static {median['static']:.2f} "
                      f"ms, dynamic {median['dynamic']:.2f} ms, ORT "
                      f"{median['ort']:.2f} ms", flush=True)
    lines = ["| model | batch | mlc static (ms) | mlc symbolic batch (ms) | "
             "ORT, same dynamic file (ms) | symbolic / static | "
             "symbolic / ORT |", "|---|---|---|---|---|---|---|"]
    for name, batch, m in rows:
        lines.append(f"| {name} | {batch} | {m['static']:.2f} | "
                     f"{m['dynamic']:.2f} | {m['ort']:.2f} | "
                     f"{m['dynamic'] / m['static']:.2f} | "
                     f"{m['dynamic'] / m['ort']:.2f} |")
    print("\n".join(lines))
    if args.write_doc:
        text = "\n".join(
            [f"Measured {datetime.date.today()} on {run_bench.machine()}, "
             f"{args.threads} thread(s), by `bench/dynamic_batch_bench.py "
             f"build --models {args.models} --batches {args.batches} "
             f"--threads {args.threads} --rounds {args.rounds} --iterations "
             f"{args.iterations} --write-doc docs/Performance.md`: "
             "medians of "
             f"{args.rounds} interleaved rounds of {args.iterations} runs. "
             "*static* pins the batch with `--dim batch=B`; *symbolic "
             "batch* is one library compiled without it (BERT's sequence "
             f"length pinned to {SEQ} in both); ONNX Runtime 1.30 (npm, "
             "CPU, optimizations 'all') runs the same dynamic ONNX file.",
             ""] + lines)
        run_bench.replace_doc_section(args.write_doc, "dynamic_batch_bench",
                                      "A symbolic batch", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
