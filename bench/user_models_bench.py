#!/usr/bin/env python3
# ===- user_models_bench.py - Models as users bring them, against ORT ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM
# Exceptions. See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===------------------------------------------------------------------=== #
#
#   user_models_bench.py BUILD_DIR [--classes fp16,dynquant] [--rounds 2]
#                        [--threads 1] [--write-doc FILE]
#
# Builds the full-size regression models of test/mlc-run/Inputs/
# user_models.py (a mixed-precision 1024x1024 segmentation network, a
# 1024x1024 conv network dynamically quantized as ONNX Runtime's
# quantize_dynamic writes it, ...), compiles each for this CPU and times it with mlc-run and
# ONNX Runtime 1.30 (npm, CPU) in the same run, interleaved round by round.
# Prints a Markdown table (mlc ms, ORT ms, ratio, max error against ORT);
# with --write-doc, puts it into that file's "user-models-bench" section
# (docs/Performance.md).
#
# ===------------------------------------------------------------------=== #

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import run_bench  # noqa: E402

BUILDER = os.path.join(ROOT, "test", "mlc-run", "Inputs", "user_models.py")
DESCRIPTIONS = {
    "fp16": "float16 segmentation net, f32 in/out, Casts around Resize",
    "dynquant": "conv net dynamically quantized as quantize_dynamic writes "
                "it (ConvInteger, uint8 weights)",
    "shufflenet": "ShuffleNetV2 x0.5 (PyTorch, opset 11), 224x224",
    "bn2d": "face-embedding head, BatchNormalization of ranks 2-5",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("build")
    parser.add_argument("--classes", default="fp16,dynquant")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--write-doc")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mlc-user-bench-") as work:
        prepared = []
        for name in args.classes.split(","):
            subprocess.run(["/usr/bin/python3", BUILDER, work, name, "--full"],
                           check=True, capture_output=True)
            model = os.path.join(work, name + ".onnx")
            lib = os.path.join(work, name + ".so")
            seconds, mib, _ = run_bench.compile_model(args.build, model, lib)
            npys, specs = run_bench.make_inputs(model, work, prefix=name + "-")
            estimate = run_bench.mlc_round(args.build, lib, npys, 1, 1)
            iterations = run_bench.round_iterations(estimate, 2, 3000.0, 20)
            prepared.append((name, model, lib, npys, specs, iterations,
                             seconds))
        samples = {p[0]: ([], []) for p in prepared}
        error = {}
        for _ in range(args.rounds):
            for name, model, lib, npys, specs, iterations, _ in prepared:
                mlc, ort = samples[name]
                mlc.append(run_bench.mlc_round(args.build, lib, npys,
                                               args.threads, iterations))
                ort.append(run_bench.ort_round(model, specs, args.threads,
                                               iterations,
                                               work)["median_ms"])
                error[name] = run_bench.output_difference(args.build, lib,
                                                          npys, work)
        for name, _, _, _, _, _, seconds in prepared:
            mlc, ort = (statistics.median(s) for s in samples[name])
            rows.append((name, mlc, ort, error[name], seconds))
    lines = [
        f"{args.threads} thread(s), median of {args.rounds} interleaved "
        f"rounds; {run_bench.machine()}; {datetime.date.today()}; "
        f"`python3 bench/user_models_bench.py build --classes "
        f"{args.classes}`.",
        "",
        "| model | what it is | mlc ms | ORT ms | mlc / ORT | max error "
        "vs ORT (of max abs) | compile s |",
        "|---|---|---:|---:|---:|---:|---:|"]
    for name, mlc, ort, err, seconds in rows:
        lines.append(f"| {name} | {DESCRIPTIONS.get(name, '')} | {mlc:.1f} | "
                     f"{ort:.1f} | {mlc / ort:.2f} | {err:.1e} | "
                     f"{seconds:.1f} |")
    text = "\n".join(lines)
    print(text)
    if args.write_doc:
        run_bench.replace_doc_section(args.write_doc, "user-models-bench",
                                      "Models as users bring them", text)


if __name__ == "__main__":
    main()
