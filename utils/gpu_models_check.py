#!/usr/bin/python3
# ===- gpu_models_check.py - The bench models through the GPU target ------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   gpu_models_check.py BUILD_DIR [--models a,b] [--ptxas PATH] [--emulate]
#
# For each bench model in BUILD_DIR/models (NAME-opset13.onnx, exported by
# models/export_torch_models.py when missing): compiles it for the CPU (-o
# NAME.so) and for the GPU (--target=gpu -o NAME.so, sm_80), times both,
# writes the PTX for sm_80 and sm_90 (-o NAME.s) and has ptxas accept each.
# With --emulate, also compiles the GPU's launches for this CPU
# (--gpu-host-emulation) and compares the outputs with PyTorch
# (utils/check_model_numerics.py). Prints a Markdown table; exits 1 when a
# compile, ptxas or a comparison fails. Nothing runs on a GPU.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_models import BENCH_MODELS, ensure_exported  # noqa: E402


def timed(cmd):
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--models", default=",".join(BENCH_MODELS))
    parser.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    parser.add_argument("--emulate", action="store_true",
                        help="also run the emulated launches against PyTorch")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ensure_exported(os.path.join(args.build_dir, "models"),
                    args.models.split(","))
    compiler = os.path.join(args.build_dir, "bin", "mlc-compile")
    ptxas = args.ptxas if os.access(args.ptxas, os.X_OK) else None
    failed = 0
    emulated = " emulated vs PyTorch |" if args.emulate else ""
    print("| model | CPU compile s | GPU compile s | GPU/CPU | kernels | "
          "PTX KiB | ptxas sm_80 | ptxas sm_90 |" + emulated)
    print("|---|---|---|---|---|---|---|---|" + ("---|" if emulated else ""))
    with tempfile.TemporaryDirectory(prefix="mlc-gpu-models-") as tmp:
        for name in args.models.split(","):
            model = os.path.join(args.build_dir, "models",
                                 f"{name}-opset13.onnx")
            cpu, cpu_s = timed([compiler, model, "-o",
                                os.path.join(tmp, f"{name}-cpu.so")])
            gpu, gpu_s = timed([compiler, model, "--target=gpu", "-o",
                                os.path.join(tmp, f"{name}.so")])
            row = [name, f"{cpu_s:.1f}", f"{gpu_s:.1f}",
                   f"{gpu_s / cpu_s:.2f}" if cpu.returncode == 0 else "-"]
            if gpu.returncode != 0:
                failed += 1
                print(f"| {name} | GPU compile failed: "
                      f"{gpu.stderr.strip().splitlines()[-1][:120]} |")
                continue
            with open(os.path.join(tmp, f"{name}.h")) as header:
                kernels = next((line.split()[-1] for line in header
                                if "_GPU_NUM_KERNELS" in line), "?")
            row.append(kernels)
            verdicts = []
            for arch in ("sm_80", "sm_90"):
                ptx = os.path.join(tmp, f"{name}.{arch}.s")
                proc, _ = timed([compiler, model, "--target=gpu",
                                 f"--gpu-arch={arch}", "-o", ptx])
                if proc.returncode != 0:
                    verdicts.append("compile failed")
                    failed += 1
                    continue
                if arch == "sm_80":
                    row.append(f"{os.path.getsize(ptx) / 1024:.0f}")
                if not ptxas:
                    verdicts.append("skipped (no ptxas)")
                    continue
                proc, _ = timed([ptxas, f"-arch={arch}", ptx, "-o",
                                 os.path.join(tmp, f"{name}.{arch}.cubin")])
                verdicts.append("accepted" if proc.returncode == 0 else
                                "rejected")
                failed += proc.returncode != 0
            if args.emulate:
                proc = subprocess.run(
                    ["/usr/bin/python3",
                     os.path.join(root, "utils", "check_model_numerics.py"),
                     args.build_dir, name, "--compile-flag=--target=gpu",
                     "--compile-flag=--gpu-host-emulation"],
                    capture_output=True, text=True)
                line = (proc.stdout.strip().splitlines() or ["?"])[-1]
                relative = line.split("relative ")[-1] if proc.returncode == 0 \
                    else "failed"
                verdicts.append(f"relative error {relative}")
                failed += proc.returncode != 0
            print("| " + " | ".join(row + verdicts) + " |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
