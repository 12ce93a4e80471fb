#!/usr/bin/env python3
# ===- quantized_bench.py - Quantized models on the CPU, against ORT ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM
# Exceptions. See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===------------------------------------------------------------------=== #
#
#   quantized_bench.py BUILD_DIR [--models resnet18,mobilenet_v2,bert_small]
#                      [--threads 1,2] [--rounds 5] [--write-doc FILE]
#
# Times, in the same run and interleaved, each bench model in f32 and
# quantized by models/quantize_qdq.py (QDQ, as ONNX Runtime's quantizer
# writes it), compiled by mlc for this CPU (the QDQ model's Convs and
# MatMuls as integer contractions) and run by ONNX Runtime 1.30 (npm, CPU:
# its QDQ fusions run its int8 kernels). Prints a Markdown table of the
# medians; with --write-doc, puts it into that file's "quantized-bench"
# section (docs/Performance.md).
#
# ===------------------------------------------------------------------=== #

import argparse
import os
import statistics
import sys
import tempfile


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "utils"))

import quantize_qdq  # noqa: E402
import run_bench  # noqa: E402
from bench_models import ensure_exported  # noqa: E402


def time_models(build, models, workdir, threads, rounds):
    """Median ms of mlc and of ONNX Runtime on each of `models` (the f32
    model and its QDQ form), per thread count: {threads: [(mlc_ms,
    ort_ms) per model]}. Every round times each model with both, one after
    another, so that a machine whose speed drifts (a shared core) slows
    the models it compares alike."""
    prepared = []
    for model in models:
        lib = os.path.join(workdir, os.path.basename(model) + ".so")
        run_bench.compile_model(build, model, lib)
        npys, specs = run_bench.make_inputs(
            model, workdir, prefix=os.path.basename(model) + "-")
        estimate = run_bench.mlc_round(build, lib, npys, 1, 1)
        iterations = run_bench.round_iterations(estimate, 5, 300.0)
        prepared.append((model, lib, npys, specs, iterations))
    times = {}
    for t in threads:
        samples = [([], []) for _ in models]
        for _ in range(rounds):
            for (model, lib, npys, specs, iterations), (mlc, ort) in zip(
                    prepared, samples):
                mlc.append(run_bench.mlc_round(build, lib, npys, t,
                                               iterations))
                ort.append(run_bench.ort_round(model, specs, t, iterations,
                                               workdir)["median_ms"])
        times[t] = [(statistics.median(mlc), statistics.median(ort))
                    for mlc, ort in samples]
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--models", default="resnet18,mobilenet_v2,bert_small")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    names = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    models_dir = os.path.join(build, "models")
    ensure_exported(models_dir, names)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mlc-qbench-") as tmp:
        for name in names:
            source = os.path.join(models_dir, f"{name}-opset13.onnx")
            qdq = os.path.join(tmp, f"{name}-qdq.onnx")
            _, count = quantize_qdq.quantize_file(source, qdq)
            times = time_models(build, [source, qdq], tmp, threads,
                                args.rounds)
            for t in threads:
                (mf, of), (mq, oq) = times[t]
                row = (name, count, t, mf, mq, of, oq)
                rows.append(row)
                print(f"{name} ({count} quantized), {t} thread(s): mlc f32 "
                      f"{row[3]:.2f} ms, QDQ {row[4]:.2f} ms; ORT f32 "
                      f"{row[5]:.2f} ms, QDQ {row[6]:.2f} ms", flush=True)
    lines = [
        f"Measured by `bench/quantized_bench.py build --models "
        f"{','.join(names)}` on {run_bench.machine()}: median ms per run, "
        f"mlc (`--mcpu=native`) and ONNX Runtime 1.30 (npm, CPU), f32 and "
        f"QDQ, timed in the same run, {args.rounds} interleaved rounds. "
        f"QDQ is the model "
        f"quantized by models/quantize_qdq.py (uint8 activations, int8 "
        f"weights per channel), which mlc computes as exact i16-pair "
        f"contractions (vpmaddwd) and ONNX Runtime with its fused int8 "
        f"kernels.",
        "",
        "| model | nodes quantized | threads | mlc f32 | mlc QDQ | QDQ / f32 "
        "| ORT f32 | ORT QDQ | mlc QDQ / ORT QDQ |",
        "|---|---|---|---|---|---|---|---|---|"]
    for name, count, t, mf, mq, of, oq in rows:
        lines.append(f"| {name} | {count} | {t} | {mf:.2f} | {mq:.2f} | "
                     f"{mq / mf:.2f} | {of:.2f} | {oq:.2f} | {mq / oq:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.write_doc:
        run_bench.replace_doc_section(args.write_doc, "quantized-bench",
                                      "Quantized models on the CPU", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
