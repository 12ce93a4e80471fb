#!/usr/bin/python3
# ===- symbolic_dims_bench.py - Symbolic sequence and image sizes --------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/symbolic_dims_bench.py BUILD_DIR
#       [--models bert_base,ppocr_det,decoder] [--threads 1] [--rounds 3]
#       [--iterations 5] [--write-doc docs/Performance.md]
#
# Models whose symbolic dims are not (only) a batch: BERT-base exported with
# a symbolic batch and sequence length (models/export_torch_models.py
# --dynamic, into BUILD_DIR/models), PaddleOCR's detector with a symbolic
# batch, height and width (BUILD_DIR/wild, fetched by
# utils/wild_models_check.py) and a 55M-parameter Llama-style decoder with
# a symbolic batch, sequence and past length (models/export_decoder.py
# --size small, into BUILD_DIR/models: a prompt, and one token after a
# past). Each is compiled once with --mcpu=native and
# every dim left symbolic, and, per size, once with every dim pinned (the
# static compile at that size). Per size, it alternates rounds of mlc-run
# --bench on the two libraries and of ONNX Runtime (bench/ort_bench.js) on
# the same dynamic ONNX file and inputs, and reports the medians and the
# ratios symbolic / static and symbolic / ORT. A third library keeps the
# dims symbolic with --dim-max bounds (each symbol's largest value in the
# table), which places their buffers in the arena. Timing belongs here, not
# in tests.
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

DET = "p2o.DynamicDimension."
# name: (path under BUILD_DIR, [{symbol: value}, ...])
CASES = {
    "bert_base": ("models/bert_base-opset13-dynamic.onnx",
                  [{"batch": 1, "seq": 128}, {"batch": 8, "seq": 128},
                   {"batch": 1, "seq": 16}]),
    "ppocr_det": ("wild/ocr/package/assets/ch_PP-OCRv4_det_infer.onnx",
                  [{DET + "0": 1, DET + "1": 640, DET + "2": 640},
                   {DET + "0": 1, DET + "1": 320, DET + "2": 480}]),
    # models/export_decoder.py --size small: a prompt of 64 tokens, then one
    # token after 128.
    "decoder": ("models/decoder_small-opset14.onnx",
                [{"batch": 1, "seq": 64, "past": 0, "total": 64},
                 {"batch": 1, "seq": 1, "past": 128, "total": 129}]),
}


def compile_library(build, model_path, lib, dims, bounds=None):
    cmd = [os.path.join(build, "bin", "mlc-compile"), model_path, "-o", lib,
           "--mcpu=native"] + [f"--dim={k}={v}" for k, v in dims.items()]
    cmd += [f"--dim-max={k}={v}" for k, v in (bounds or {}).items()]
    subprocess.run(cmd, check=True, capture_output=True)


def describe(dims):
    return "x".join(str(v) for v in dims.values())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default="bert_base,ppocr_det,decoder")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models.split(","):
            relative, sizes = CASES[name]
            path = os.path.join(args.build, relative)
            if not os.path.exists(path) and name == "bert_base":
                subprocess.run([sys.executable,
                                os.path.join(HERE, "..", "models",
                                             "export_torch_models.py"),
                                os.path.join(args.build, "models"), name,
                                "--dynamic"], check=True, capture_output=True)
            if not os.path.exists(path) and name == "decoder":
                os.makedirs(os.path.dirname(path), exist_ok=True)
                subprocess.run([sys.executable,
                                os.path.join(HERE, "..", "models",
                                             "export_decoder.py"), path,
                                "--size", "small"], check=True,
                               capture_output=True)
            if not os.path.exists(path):
                print(f"{name}: {path} is missing (utils/wild_models_check.py "
                      "fetches it); skipped")
                continue
            symbolic = os.path.join(workdir, f"{name}-any.so")
            compile_library(args.build, path, symbolic, {})
            # Bounded: each symbol at most its largest value here.
            bounds = {s: max(d[s] for d in sizes) for s in sizes[0]}
            bounded = os.path.join(workdir, f"{name}-bounded.so")
            compile_library(args.build, path, bounded, {}, bounds)
            for k, dims in enumerate(sizes):
                static = os.path.join(workdir, f"{name}-{k}.so")
                compile_library(args.build, path, static, dims)
                npys, specs = run_bench.make_inputs(path, workdir, dims,
                                                    prefix=f"{name}{k}_")
                times = {"static": [], "symbolic": [], "bounded": [],
                         "ort": []}
                for _ in range(args.rounds):
                    times["static"].append(run_bench.mlc_round(
                        args.build, static, npys, args.threads,
                        args.iterations))
                    times["symbolic"].append(run_bench.mlc_round(
                        args.build, symbolic, npys, args.threads,
                        args.iterations))
                    times["bounded"].append(run_bench.mlc_round(
                        args.build, bounded, npys, args.threads,
                        args.iterations))
                    ort = run_bench.ort_round(path, specs, args.threads,
                                              args.iterations, workdir)
                    times["ort"].append(ort["median_ms"])
                median = {k: float(np.median(v)) for k, v in times.items()}
                rows.append((name, describe(dims), median))
                print(f"{name} {describe(dims)}: static "
                      f"{median['static']:.2f} ms, symbolic "
                      f"{median['symbolic']:.2f} ms, bounded "
                      f"{median['bounded']:.2f} ms, ORT {median['ort']:.2f} "
                      "ms", flush=True)
    lines = ["| model | sizes | mlc static (ms) | mlc symbolic dims (ms) | "
             "mlc symbolic, --dim-max (ms) | ORT, same dynamic file (ms) | "
             "symbolic / static | bounded / static | symbolic / ORT |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, sizes, m in rows:
        lines.append(f"| {name} | {sizes} | {m['static']:.2f} | "
                     f"{m['symbolic']:.2f} | {m['bounded']:.2f} | "
                     f"{m['ort']:.2f} | "
                     f"{m['symbolic'] / m['static']:.2f} | "
                     f"{m['bounded'] / m['static']:.2f} | "
                     f"{m['symbolic'] / m['ort']:.2f} |")
    print("\n".join(lines))
    if args.write_doc:
        text = "\n".join(
            [f"Measured {datetime.date.today()} on {run_bench.machine()}, "
             f"{args.threads} thread(s), by `bench/symbolic_dims_bench.py "
             f"build --models {args.models} --threads {args.threads} "
             f"--rounds {args.rounds} --iterations {args.iterations} "
             "--write-doc docs/Performance.md`: medians of "
             f"{args.rounds} interleaved rounds of {args.iterations} runs. "
             "*sizes* are BERT's batch x sequence, the detector's batch x "
             "height x width and the decoder's batch x new tokens x past "
             "length x total length. *static* pins every dim with `--dim`; "
             "*symbolic dims* is one library compiled with all of them "
             "symbolic, *--dim-max* one with each bounded by its largest "
             "value in the table; ONNX Runtime 1.30 (npm, CPU, optimizations 'all') "
             "runs the same dynamic ONNX file.", ""] + lines)
        run_bench.replace_doc_section(args.write_doc, "symbolic_dims_bench",
                                      "Symbolic sequence and image sizes", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
