#!/usr/bin/python3
# ===- gpu_node_tests.py - ONNX's node tests on an NVIDIA GPU --------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# GPU machines may have no LLVM or MLIR, so this runs in two steps:
#
#   gpu_node_tests.py prepare BUILD_DIR OUT [--gpu-arch sm_90] [--filter S]
#       where mlc builds: runs each node test on the CPU as
#       utils/onnx_conformance.py does and, for each one that passes,
#       compiles it for --target=gpu into OUT/TEST/model.so and copies its
#       test_data_set_* folders beside it (bfloat16 inputs as .npy, as the
#       CPU run passes them); OUT/tests.txt lists them.
#   gpu_node_tests.py run OUT MLC_RUN [--jobs N] [--write FILE] [--first F]
#       on the GPU machine (numpy and onnx): runs every data set of every
#       listed test (those named in F first) with `MLC_RUN --device=cuda`
#       and compares the outputs with the stored ones by
#       onnx_conformance.py's rule. Prints each failure and the count,
#       writes each outcome to FILE as it is known; exits 1 when a test
#       fails or crashes.
#
# ===--------------------------------------------------------------------=== #

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnx_conformance as conf  # noqa: E402


def prepare(args):
    tests = sorted(t for t in os.listdir(conf.NODE_DIR)
                   if args.filter in t and
                   os.path.isfile(os.path.join(conf.NODE_DIR, t,
                                               "model.onnx")))
    os.makedirs(args.out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: prepare_one(args, t), tests))
    prepared = [t for t, kind in results if kind == "prepared"]
    for test, kind in results:
        if kind.startswith("gpu-"):
            print(f"GPU compile   {test}: {kind}")
    with open(os.path.join(args.out, "tests.txt"), "w") as f:
        f.write("\n".join(prepared) + "\n")
    passed = sum(1 for _, k in results
                 if k == "prepared" or k.startswith("gpu-"))
    print(f"{passed} of {len(tests)} node tests pass on the CPU; "
          f"{len(prepared)} compiled for --target=gpu "
          f"--gpu-arch={args.gpu_arch} into {args.out}")
    return 0 if len(prepared) == passed else 1


def prepare_one(args, test):
    """The test's CPU outcome (as onnx_conformance.py runs it, without its
    GPU check); when it passes, "prepared" and its GPU library and data in
    OUT/TEST, or why the GPU compile failed."""
    bin_dir = os.path.join(args.build_dir, "bin")
    result = conf.run_test(os.path.join(bin_dir, "mlc-compile"),
                           os.path.join(bin_dir, "mlc-run"), test)
    if result[1] != "passed":
        return test, result[1]
    return compile_for_gpu(args, test)


def compile_for_gpu(args, test):
    source = os.path.join(conf.NODE_DIR, test)
    dest = os.path.join(args.out, test)
    os.makedirs(dest, exist_ok=True)
    kind, msg = conf.step([os.path.join(args.build_dir, "bin", "mlc-compile"),
                           os.path.join(source, "model.onnx"), "--target=gpu",
                           f"--gpu-arch={args.gpu_arch}", "-o",
                           os.path.join(dest, "model.so")])
    if kind != "ok":
        shutil.rmtree(dest)
        return test, f"gpu-{kind}: {msg}"
    os.remove(os.path.join(dest, "model.h"))
    bf16 = conf.bfloat16_inputs(os.path.join(source, "model.onnx"))
    for s in sorted(glob.glob(os.path.join(source, "test_data_set_*"))):
        target = os.path.join(dest, os.path.basename(s))
        shutil.copytree(s, target)
        for k in bf16:
            pb = os.path.join(target, f"input_{k}.pb")
            npy = conf.bfloat16_npy(pb, os.path.join(target,
                                                     f"input_{k}.npy"))
            if npy != pb:
                os.remove(pb)
    return test, "prepared"


def numbered(paths):
    return sorted(paths, key=lambda p: int(re.findall(r"\d+", p)[-1]))


def run_test(out, mlc_run, test):
    """(test, None) when every data set matches on the GPU, else (test,
    what went wrong)."""
    folder = os.path.join(out, test)
    with tempfile.TemporaryDirectory(prefix="mlc-gpu-") as tmp:
        for s in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
            inputs = numbered(glob.glob(os.path.join(s, "input_*.pb")) +
                              glob.glob(os.path.join(s, "input_*.npy")))
            outdir = os.path.join(tmp, os.path.basename(s))
            cmd = [mlc_run, os.path.join(folder, "model.so"),
                   "--device=cuda", "-o", outdir]
            for i in inputs:
                cmd += ["-i", i]
            kind, msg = conf.step(cmd, timeout=120)
            if kind != "ok":
                return test, f"run {kind}: {msg}"
            for k, ref_path in enumerate(numbered(
                    glob.glob(os.path.join(s, "output_*.pb")))):
                got = os.path.join(outdir, f"output_{k}.npy")
                if not os.path.exists(got):
                    return test, f"no output {k}"
                why = conf.compare(test, conf.np.load(got),
                                   conf.load_pb(ref_path))
                if why:
                    return test, f"{os.path.basename(s)} output {k}: {why}"
    return test, None


def run(args):
    with open(os.path.join(args.out, "tests.txt")) as f:
        tests = [t for t in f.read().split() if args.filter in t]
    if args.first:
        # Some tests first (those a change is about), then the rest.
        with open(args.first) as f:
            first = set(f.read().split())
        tests = [t for t in tests if t in first] + \
            [t for t in tests if t not in first]
    # Each outcome is written when it is known: a run cut short still says
    # how far it got.
    out = open(args.write, "w") if args.write else None
    failed = []
    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_test, args.out, args.mlc_run, t)
                   for t in tests]
        for future in futures:
            test, why = future.result()
            done += 1
            line = f"FAILED {test}: {why}" if why else f"ok {test}"
            if why:
                failed.append(test)
                print(line, flush=True)
            if out:
                out.write(line + "\n")
                out.flush()
    summary = (f"node tests on the GPU: {done - len(failed)} of "
               f"{len(tests)} match ONNX's stored outputs")
    print(summary)
    if out:
        out.write(summary + "\n")
        out.close()
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("build_dir")
    p.add_argument("out")
    p.add_argument("--gpu-arch", default="sm_90")
    p.add_argument("--filter", default="")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("mlc_run")
    r.add_argument("--filter", default="")
    r.add_argument("--jobs", type=int, default=8)
    r.add_argument("--write", help="write each test's outcome here")
    r.add_argument("--first", help="a file of test names to run first")
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
