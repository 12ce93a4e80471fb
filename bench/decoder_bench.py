#!/usr/bin/python3
# ===- decoder_bench.py - Decoder prefill and decode against ORT ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/decoder_bench.py BUILD_DIR [--models optimum-f32,genai-int4,...]
#       [--size small] [--threads 1] [--rounds 2] [--iterations 3]
#       [--write-doc docs/Performance.md]
#
# Llama-style decoders in both KV-cache layouts, written into
# BUILD_DIR/models: Optimum's (models/export_decoder.py, PyTorch's export,
# f32) and ONNX Runtime GenAI's (models/export_genai.py: contrib ops,
# MatMulNBits with 4-bit weights, or f32 MatMul). Each is compiled once
# with every dim symbolic (compile time and peak memory measured), then
# timed per step against ONNX Runtime on the same file and inputs: a
# prefill of a prompt, and one decode step after a past (tokens/s = 1000 /
# step ms). Medians of interleaved rounds of mlc-run --bench and
# bench/ort_bench.js. Timing belongs here, not in tests.
#
# ===--------------------------------------------------------------------=== #

import argparse
import datetime
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_bench  # noqa: E402

# name: (exporter, extra arguments, file name under BUILD_DIR/models)
MODELS = {
    "optimum-f32": ("export_decoder.py", [], "decoder_{size}-opset14.onnx"),
    "genai-int4": ("export_genai.py", ["--bits", "4"],
                   "genai_{size}-int4.onnx"),
    "genai-f32": ("export_genai.py", ["--bits", "0"], "genai_{size}-f32.onnx"),
}
# (label, new tokens, past length)
STEPS = [("prefill 64", 64, 0), ("prefill 512", 512, 0),
         ("decode after 128", 1, 128), ("decode after 1024", 1, 1024)]


def make_inputs(path, workdir, seq, past, prefix):
    """Inputs of one step: token ids, a mask of ones over past + new, the
    positions, random past keys and values."""
    graph = onnx.load(path, load_external_data=False).graph
    rng = np.random.default_rng(0)
    npys, specs = [], []
    for k, value in enumerate(graph.input):
        dims = value.type.tensor_type.shape.dim
        if value.name == "input_ids":
            a = rng.integers(0, 1000, (1, seq))
        elif value.name == "attention_mask":
            a = np.ones((1, past + seq), np.int64)
        elif value.name == "position_ids":
            a = np.arange(past, past + seq)[None]
        else:
            a = rng.standard_normal((1, dims[1].dim_value, past,
                                     dims[3].dim_value)).astype(np.float32)
        a = a.astype(np.float32 if a.dtype == np.float32 else np.int64)
        npy = os.path.join(workdir, f"{prefix}{k}.npy")
        raw = os.path.join(workdir, f"{prefix}{k}.bin")
        np.save(npy, a)
        a.tofile(raw)
        npys.append(npy)
        kind = "float32" if a.dtype == np.float32 else "int64"
        specs.append(f"{value.name}:{kind}:{'x'.join(map(str, a.shape))}:"
                     f"{raw}")
    return npys, specs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--size", default="small")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models.split(","):
            script, extra, file = MODELS[name]
            path = os.path.join(args.build, "models",
                                file.format(size=args.size))
            if not os.path.exists(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                subprocess.run([sys.executable,
                                os.path.join(ROOT, "models", script), path,
                                "--size", args.size] + extra, check=True,
                               capture_output=True)
            weights = os.path.getsize(path) / 2**20
            lib = os.path.join(workdir, name + ".so")
            seconds, peak, _ = run_bench.compile_model(args.build, path, lib)
            print(f"{name}: {weights:.0f} MiB file, compiled in {seconds:.1f}"
                  f" s, peak {peak:.0f} MiB", flush=True)
            for label, seq, past in STEPS:
                npys, specs = make_inputs(path, workdir, seq, past,
                                          f"{name}_{seq}_{past}_")
                mlc, ort = [], []
                for _ in range(args.rounds):
                    mlc.append(run_bench.mlc_round(args.build, lib, npys,
                                                   args.threads,
                                                   args.iterations))
                    ort.append(run_bench.ort_round(
                        path, specs, args.threads, args.iterations,
                        workdir)["median_ms"])
                m, o = float(np.median(mlc)), float(np.median(ort))
                rows.append((name, weights, seconds, peak, label, seq, m, o))
                print(f"  {label}: mlc {m:.2f} ms, ORT {o:.2f} ms",
                      flush=True)
    lines = ["| model | file (MiB) | compile (s) | compile peak (MiB) | step "
             "| mlc (ms) | ORT (ms) | mlc tokens/s | ORT tokens/s | "
             "mlc speed / ORT |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, weights, seconds, peak, label, seq, m, o in rows:
        lines.append(f"| {name} | {weights:.0f} | {seconds:.1f} | {peak:.0f} "
                     f"| {label} | {m:.2f} | {o:.2f} | {seq * 1000 / m:.0f} "
                     f"| {seq * 1000 / o:.0f} | {o / m:.2f} |")
    print("\n".join(lines))
    if args.write_doc:
        text = "\n".join(
            [f"Measured {datetime.date.today()} on {run_bench.machine()}, "
             f"{args.threads} thread(s), by `bench/decoder_bench.py build "
             f"--models {args.models} --size {args.size} --threads "
             f"{args.threads} --rounds {args.rounds} --iterations "
             f"{args.iterations} --write-doc docs/Performance.md`: medians "
             f"of {args.rounds} interleaved rounds of {args.iterations} runs "
             "of one step, each model compiled once with every dim "
             "symbolic. ONNX Runtime 1.30 (npm, CPU, optimizations 'all') "
             "runs the same file. Decode tokens/s is one token per step "
             "(1000 / step ms); *speed / ORT* above 1 is mlc faster.", ""]
            + lines)
        run_bench.replace_doc_section(
            args.write_doc, f"decoder_bench_{args.threads}t",
            f"Decoders: prefill and decode ({args.threads} thread"
            f"{'s' if args.threads > 1 else ''})", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
