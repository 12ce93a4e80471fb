#!/usr/bin/python3
# ===- compare_builds.py - Two mlc builds on the same models, same run ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/compare_builds.py BASE_BUILD NEW_BUILD MODELS_DIR
#       [--models a,b] [--threads 1,2] [--rounds R] [--min-round-ms T]
#       [--base-flags "--mcpu=native"] [--new-flags ""] [--write-doc FILE]
#
# Whether a change to the compiler changed the speed of the code it makes:
# each model (MODELS_DIR/<name>-opset13.onnx, from
# models/export_torch_models.py) is compiled by both builds (each with its
# own flags: by default the base build is given --mcpu=native and the new
# one no CPU flag at all, so that the comparison also checks that the new
# build's default is the host's CPU), and R rounds of each build's
# `mlc-run --bench` alternate per thread count, so that both see the same
# machine noise. Reported per model: the median of the per-round medians of
# each build and the ratio new / base; per thread count their geometric
# mean. Both builds' libraries run under NEW_BUILD's mlc-run (the runtime
# only loads, feeds and times them). With --write-doc the table replaces the "Before and after" section
# of FILE.
#
# ===--------------------------------------------------------------------=== #

import argparse
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_bench import MODELS, machine, make_inputs, round_iterations  # noqa

SECTION = "## Before and after a compiler change"


def compile_with(build, model, lib, flags):
    subprocess.run([os.path.join(build, "bin", "mlc-compile"), model, "-o",
                    lib] + flags, check=True, capture_output=True)


def bench(build, lib, npys, threads, iterations):
    cmd = [os.path.join(build, "bin", "mlc-run"), lib, "--bench",
           str(iterations), "--warmup", "1", "--threads", str(threads)]
    for f in npys:
        cmd += ["-i", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return float(re.search(r"median_ms: ([\d.]+)", out.stdout).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("models_dir")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--min-round-ms", type=float, default=100.0)
    parser.add_argument("--base-flags", default="--mcpu=native")
    parser.add_argument("--new-flags", default="")
    parser.add_argument("--reuse", action="store_true",
                        help="keep libraries compiled by an earlier run")
    parser.add_argument("--write-doc")
    args = parser.parse_args()

    workdir = os.path.join(args.new, "bench", "compare")
    os.makedirs(workdir, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    prepared = []
    for name in args.models.split(","):
        model = os.path.join(args.models_dir, f"{name}-opset13.onnx")
        mdir = os.path.join(workdir, name)
        os.makedirs(os.path.join(mdir, "base"), exist_ok=True)
        os.makedirs(os.path.join(mdir, "new"), exist_ok=True)
        base_lib = os.path.join(mdir, "base", "model.so")
        new_lib = os.path.join(mdir, "new", "model.so")
        if not (args.reuse and os.path.exists(base_lib)):
            compile_with(args.base, model, base_lib, args.base_flags.split())
        if not (args.reuse and os.path.exists(new_lib)):
            compile_with(args.new, model, new_lib, args.new_flags.split())
        npys, _ = make_inputs(model, mdir)
        prepared.append((name, base_lib, new_lib, npys))
        print(f"compiled {name}", flush=True)

    rows = []
    for t in threads:
        for name, base_lib, new_lib, npys in prepared:
            # Both run under the new build's mlc-run: the runtime only times
            # and feeds the code each compiler made.
            estimate = bench(args.new, new_lib, npys, t, 1)
            iters = round_iterations(estimate, args.iterations,
                                     args.min_round_ms)
            base, new = [], []
            for _ in range(args.rounds):
                base.append(bench(args.new, base_lib, npys, t, iters))
                new.append(bench(args.new, new_lib, npys, t, iters))
            row = (t, name, statistics.median(base), statistics.median(new))
            rows.append(row)
            print(f"{t} thread(s) {name}: base {row[2]:.3f} ms, new "
                  f"{row[3]:.3f} ms, new/base {row[3] / row[2]:.3f}",
                  flush=True)

    lines = [SECTION, "",
             f"Machine: {machine()}. `bench/compare_builds.py BASE NEW "
             f"MODELS --rounds {args.rounds}`: the base build compiled with "
             f"`{args.base_flags}`, the new one with "
             f"`{args.new_flags or '(no flags)'}`; medians of {args.rounds} "
             "interleaved rounds of `mlc-run --bench`.", "",
             "| threads | model | base ms | new ms | new / base |",
             "|---|---|---|---|---|"]
    for t, name, b, n in rows:
        lines.append(f"| {t} | {name} | {b:.3f} | {n:.3f} | {n / b:.3f} |")
    for t in threads:
        ratios = [n / b for tt, _, b, n in rows if tt == t]
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"| {t} | geometric mean | | | {geo:.3f} |")
        print(f"{t} thread(s): geometric mean new/base {geo:.3f}")
    table = "\n".join(lines) + "\n"
    if args.write_doc:
        text = open(args.write_doc).read() if os.path.exists(
            args.write_doc) else ""
        if SECTION in text:
            start = text.index(SECTION)
            end = text.find("\n## ", start + len(SECTION))
            text = text[:start] + table + (text[end + 1:] if end >= 0 else "")
        else:
            text = text.rstrip("\n") + "\n\n" + table
        with open(args.write_doc, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
