#!/usr/bin/python3
# ===- models_check.py - Import real exported models ----------------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   models_check.py BUILD_DIR [--opsets 13 17] [--models NAME...]
#
# Exports each model with models/export_torch_models.py (once; the files
# stay in BUILD_DIR/models), imports it with `mlc-compile --emit=graph`, and
# checks that the graph IR verifies and every result shape is static. Prints
# a Markdown table with import time and peak memory. Then compiles the models
# the CPU lowering covers to objects and compares them with PyTorch
# (utils/check_model_numerics.py). Exits 1 on any failure.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Models the graph-to-loop lowering covers today, checked numerically.
COMPILED = ["mlp", "resnet18", "resnet50", "mobilenet_v2",
            "mobilenet_v3_small", "efficientnet_b0", "squeezenet1_1",
            "vit_b_16", "bert_base", "bert_small"]
EXTERNAL_WEIGHTS = "resnet18"
MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
          "efficientnet_b0", "squeezenet1_1", "vit_b_16", "bert_base",
          "bert_small", "mlp"]


def run_measured(cmd):
    """Runs cmd; returns (exit code, stderr, seconds, peak RSS in MiB)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, err, time.monotonic() - start,
            usage.ru_maxrss / 1024.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--opsets", type=int, nargs="+", default=[13, 17])
    parser.add_argument("--models", nargs="+", default=MODELS)
    args = parser.parse_args()
    tool = os.path.join(args.build_dir, "bin", "mlc-compile")
    outdir = os.path.join(args.build_dir, "models")
    os.makedirs(outdir, exist_ok=True)
    rows, failures = [], 0
    for opset in args.opsets:
        missing = [m for m in args.models if not os.path.exists(
            os.path.join(outdir, f"{m}-opset{opset}.onnx"))]
        if missing:
            subprocess.run(["/usr/bin/python3",
                            os.path.join(ROOT, "models",
                                         "export_torch_models.py"),
                            "--opset", str(opset), outdir] + missing,
                           check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        for m in args.models:
            model = os.path.join(outdir, f"{m}-opset{opset}.onnx")
            out = os.path.join(outdir, f"{m}-opset{opset}.graph.mlir")
            rc, err, secs, rss = run_measured(
                [tool, model, "--emit=graph", "-o", out])
            status = "ok"
            if rc != 0:
                status = "FAIL: " + (err.strip().splitlines() or ["?"])[0]
            else:
                with open(out) as f:
                    head = f.read(1 << 20)
                sig = re.search(
                    r"func\.func @[\w.$-]+\((.*?)\) -> \((.*?)\) attr",
                    head, re.S)
                if not sig or "?" in sig.group(2) or "*" in sig.group(2):
                    status = "FAIL: result shapes are not static"
                ops = head.count("mlc_graph.")
                os.remove(out)
            if status != "ok":
                failures += 1
            size = os.path.getsize(model) / 2**20
            rows.append(f"| {m} | {opset} | {size:.0f} | {status} | "
                        f"{secs:.2f} | {rss:.0f} |")
    print("| model | opset | ONNX MiB | import | seconds | peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    checks = [[m] for m in COMPILED if m in args.models]
    # One model again with its weights in a file beside the library.
    if EXTERNAL_WEIGHTS in args.models:
        checks.append([EXTERNAL_WEIGHTS, "--weights", "external"])
    for check in checks:
        proc = subprocess.run(
            ["/usr/bin/python3",
             os.path.join(ROOT, "utils", "check_model_numerics.py"),
             args.build_dir, "--opset", str(args.opsets[0])] + check,
            capture_output=True, text=True)
        lines = (proc.stdout.strip() or proc.stderr.strip() or "?").splitlines()
        print(lines[-1])
        failures += proc.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
