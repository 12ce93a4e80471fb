#!/usr/bin/python3
# ===- gpu_variants.py - Builds of the bench models side by side on a GPU -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Compares compile flags of the GPU target (a strategy's knobs, such as
# --gpu-register-tile) on the same card in the same run:
#
#   gpu_variants.py prepare BUILD_DIR MODELS_DIR OUT NAME="FLAGS" ...
#       where mlc builds, after `bench/gpu_bench.py prepare BUILD_DIR
#       MODELS_DIR`: compiles each model prepared there again with each
#       variant's flags into OUT/NAME/MODEL/model.so, from the same redrawn
#       weights (the weight file must be the same bytes: the flags change
#       kernels, not constants).
#   gpu_variants.py run MODELS_DIR OUT [--iterations N]
#       on the GPU machine: rebuilds each model's weights once, runs ONNX
#       Runtime once for the reference, then every variant (and the
#       libraries in MODELS_DIR, as "prepared") with `mlc-run --device=cuda`:
#       checks the output and times it with CUDA events, interleaving the
#       variants round by round. Prints a Markdown table of medians.
#
# ===--------------------------------------------------------------------=== #

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import gpu_bench  # noqa: E402
import seeded_weights  # noqa: E402


def prepared_models(models_dir):
    return [n for n in gpu_bench.BENCH_MODELS
            if os.path.isfile(os.path.join(models_dir, n, "weights.json"))]


def prepare(args):
    compile_tool = os.path.join(args.build_dir, "bin", "mlc-compile")
    for spec in args.variants:
        name, _, flags = spec.partition("=")
        for model in prepared_models(args.models_dir):
            source = os.path.join(args.models_dir, model)
            dest = os.path.join(args.out, name, model)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(source, "weights.json")) as f:
                plan = json.load(f)
            with tempfile.TemporaryDirectory(prefix="mlc-variant-") as tmp:
                onnx_path = os.path.join(tmp, "model.onnx")
                stripped = onnx.load(os.path.join(source, "model.onnx"))
                seeded_weights.regenerate(stripped, seeded_weights.load_params(
                    os.path.join(source, "params.json")))
                onnx.save(stripped, onnx_path)
                subprocess.run([compile_tool, onnx_path, "--target=gpu",
                                f"--gpu-arch={args.gpu_arch}"] +
                               flags.split() +
                               ["-o", os.path.join(tmp, "model.so")],
                               check=True)
                with open(os.path.join(tmp, "model.weights"), "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                if digest != plan["sha256"]:
                    print(f"error: {name}/{model}: the flags changed the "
                          "weight file")
                    return 1
                shutil.copy(os.path.join(tmp, "model.so"), dest)
            print(f"prepared {dest} ({flags})")
    return 0


def run(args):
    mlc_run = gpu_bench.use_bundle(args.models_dir)
    variants = [("prepared", args.models_dir)] + [
        (v, os.path.join(args.out, v)) for v in sorted(os.listdir(args.out))
        if os.path.isdir(os.path.join(args.out, v))]
    rows = []
    for model in prepared_models(args.models_dir):
        folder = os.path.join(args.models_dir, model)
        onnx_model = gpu_bench.rebuild(folder)
        weights = os.path.join(folder, "model.weights")
        paths = gpu_bench.input_paths(folder)
        inputs = [np.load(p) for p in paths]
        ref = gpu_bench.ort_outputs(onnx_model, inputs)[0]
        flags = [a for p in paths for a in ("-i", p)]
        libraries = {}
        cells = {}
        for name, root in variants:
            library = os.path.join(root, model, "model.so")
            if not os.path.exists(library):
                continue
            if root != args.models_dir:
                link = os.path.join(root, model, "model.weights")
                if not os.path.exists(link):
                    os.symlink(weights, link)
            out = os.path.join(root, model, "out")
            proc = subprocess.run([mlc_run, library, "--device=cuda", "-o",
                                   out] + flags, capture_output=True,
                                  text=True)
            if proc.returncode != 0:
                cells[name] = "failed: " + proc.stderr.strip()[:120]
                continue
            got = np.load(os.path.join(out, "output_0.npy"))
            rel = float(np.abs(got - ref).max() /
                        max(np.abs(ref).max(), 1e-30))
            if rel > 1e-3:
                cells[name] = f"DIFFERS ({rel:.1e})"
                continue
            libraries[name] = library
            cells[name] = []
        for _ in range(args.rounds):
            for name, library in libraries.items():
                proc = subprocess.run([mlc_run, library, "--device=cuda",
                                       "--bench", str(args.iterations)] +
                                      flags, capture_output=True, text=True)
                found = re.search(r"median_ms: ([0-9.]+)", proc.stdout)
                if found:
                    cells[name].append(float(found.group(1)))
        row = [model]
        for name, _ in variants:
            cell = cells.get(name, "-")
            row.append(f"{np.median(cell):.3f}" if isinstance(cell, list)
                       and cell else str(cell))
        rows.append("| " + " | ".join(row) + " |")
        print(rows[-1], flush=True)
    header = ("| model | " + " | ".join(n for n, _ in variants) + " |\n|" +
              "---|" * (len(variants) + 1))
    print(f"\nmlc ms (median of {args.rounds} interleaved rounds, each the "
          f"median of {args.iterations} runs timed with CUDA events)\n")
    print(header)
    print("\n".join(rows))
    return 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("build_dir")
    p.add_argument("models_dir")
    p.add_argument("out")
    p.add_argument("variants", nargs="+", help='NAME="FLAGS"')
    p.add_argument("--gpu-arch", default="sm_90")
    r = sub.add_parser("run")
    r.add_argument("models_dir")
    r.add_argument("out")
    r.add_argument("--iterations", type=int, default=20)
    r.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
