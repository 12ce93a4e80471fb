#!/usr/bin/python3
# ===- kernel_profile.py - Where mlc and ONNX Runtime spend a model's time -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/kernel_profile.py BUILD_DIR MODEL.onnx [--threads N] [--runs N]
#                           [--top N]
#
# Compiles MODEL with mlc-compile --mcpu=native, samples `mlc-run --bench`
# with `perf record`, and runs ONNX Runtime (bench/ort_bench.js with its
# profiler on) on the same random inputs. Prints each side's most expensive
# kernels in ms per run: mlc's kernels (named after their ONNX node) scaled
# from perf's samples to mlc-run's median, ORT's nodes from its profiler
# (fused nodes are named after their last output). mlc's share counts the
# model's own code and libomp only: mlc-run's loading of the library and
# zeroing of the arena happen once, outside the timed runs, and perf cannot
# tell them from the kernels' row copies in libc, whose samples are printed
# apart.
#
# ===--------------------------------------------------------------------=== #

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlc_kernels(build, lib, npys, threads, runs, workdir):
    """ms per run of each kernel of `lib`, and mlc-run's median ms."""
    data = os.path.join(workdir, "perf.data")
    cmd = ["perf", "record", "-q", "-F", "5000", "-o", data, "--"] + \
        run_bench.mlc_bench_command(build, lib, npys, threads, runs)
    out = run(cmd, capture_output=True, text=True)
    median = run_bench.bench_median(out.stdout)
    report = run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym",
         "-n", "--stdio"], capture_output=True, text=True).stdout
    samples = collections.Counter()
    libc = 0
    stem = os.path.basename(lib)
    for line in report.splitlines():
        fields = line.split()
        if line.startswith("#") or len(fields) < 5:
            continue
        count, dso, symbol = int(fields[1]), fields[2], fields[-1]
        # The model's kernels and libomp (threads waiting at barriers);
        # libc's copies come from both the kernels (row copies) and
        # mlc-run's setup, so they are counted apart.
        if dso == stem or dso.startswith("libomp"):
            name = re.sub(r"^model_k\d+_+", "", symbol)
            samples[re.sub(r"\.\.omp_par$", "", name)] += count
        elif dso.startswith("libc"):
            libc += count
    total = sum(samples.values()) or 1
    print(f"mlc: {libc} samples in libc (kernels' copies and mlc-run's "
          f"setup) against {total} in the model and libomp, left out")
    return collections.Counter(
        {k: v / total * median for k, v in samples.items()}), median


def ort_nodes(model, specs, threads, runs, workdir):
    """ms per run of each node ONNX Runtime ran, and its median ms."""
    env = dict(os.environ, ORT_PROFILE=os.path.join(workdir, "ort"))
    out = run(
        ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model,
         str(threads), str(runs), "1", workdir] + specs,
        capture_output=True, text=True, env=env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    profiles = glob.glob(os.path.join(workdir, "ort_*.json"))
    if len(profiles) != 1:
        sys.exit(f"kernel_profile: expected one ONNX Runtime profile in "
                 f"{workdir}, found {len(profiles)}")
    with open(profiles[0]) as f:
        events = json.load(f)
    nodes = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = e["name"][:-len("_kernel_time")]
            op = e.get("args", {}).get("op_name", "")
            nodes[f"{op} {name}"] += e["dur"] / 1000.0 / (runs + 1)
    return nodes, result["median_ms"]


def run(cmd, **kwargs):
    """subprocess.run that exits with the command's own error, not a
    traceback, when it fails."""
    try:
        return subprocess.run(cmd, check=True, **kwargs)
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", None) or ""
        sys.exit(f"kernel_profile: {' '.join(cmd[:2])} ... failed: "
                 f"{detail.strip() or e}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        lib = os.path.join(workdir, "model.so")
        run([os.path.join(args.build, "bin", "mlc-compile"), args.model,
             "-o", lib, "--mcpu=native"], capture_output=True, text=True)
        npys, specs = run_bench.make_inputs(args.model, workdir)
        mlc, mlc_ms = mlc_kernels(args.build, lib, npys, args.threads,
                                  args.runs, workdir)
        ort, ort_ms = ort_nodes(args.model, specs, args.threads, args.runs,
                                workdir)
    print(f"mlc median {mlc_ms:.3f} ms, ONNX Runtime median {ort_ms:.3f} ms "
          f"({args.threads} thread(s))")
    for title, table in (("mlc kernels", mlc), ("ONNX Runtime nodes", ort)):
        print(f"\n{title} (ms per run, sum {sum(table.values()):.3f}):")
        for name, ms in table.most_common(args.top):
            print(f"  {ms:8.3f}  {name}")


if __name__ == "__main__":
    main()
