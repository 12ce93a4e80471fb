#!/usr/bin/python3
# ===- gpu_matmul_bench.py - One MatMul on the GPU against cuBLAS ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# The square matrix product of the GPU target's performance targets, in two
# steps (GPU machines may have no LLVM):
#
#   gpu_matmul_bench.py prepare BUILD_DIR OUT [--sizes 1024,4096]
#                       [--dtypes float32,float16] [--gpu-arch sm_90]
#       where mlc builds: an ONNX MatMul of two N x N inputs per dtype and
#       size, compiled with --target=gpu into OUT/matmul_<dtype>_<N>/, and
#       the runtime-only mlc-run (bench/gpu_bench.py's copy_runtime).
#   gpu_matmul_bench.py run OUT [--iterations 20] [--write-doc FILE]
#       on the GPU machine (numpy, PyTorch with CUDA): draws the inputs,
#       checks mlc's product against torch.matmul on the same card (cuBLAS;
#       TF32 off, PyTorch's default) by max |mlc - torch| / max |torch|, and
#       times both with CUDA events: median ms, TFLOP/s and mlc's share of
#       cuBLAS's speed.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_bench  # noqa: E402


def prepare(args):
    import onnx
    from onnx import TensorProto, helper
    gpu_bench.copy_runtime(args.build_dir, args.out)
    types = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16}
    for dtype in args.dtypes.split(","):
        for n in map(int, args.sizes.split(",")):
            folder = os.path.join(args.out, f"matmul_{dtype}_{n}")
            os.makedirs(folder, exist_ok=True)
            graph = helper.make_graph(
                [helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul",
                [helper.make_tensor_value_info(x, types[dtype], [n, n])
                 for x in ("a", "b")],
                [helper.make_tensor_value_info("c", types[dtype], [n, n])])
            model = helper.make_model(
                graph, opset_imports=[helper.make_opsetid("", 13)])
            with tempfile.TemporaryDirectory(prefix="mlc-matmul-") as tmp:
                path = os.path.join(tmp, "matmul.onnx")
                onnx.save(model, path)
                start = time.perf_counter()
                subprocess.run([os.path.join(args.build_dir, "bin",
                                             "mlc-compile"), path,
                                "--target=gpu", f"--gpu-arch={args.gpu_arch}",
                                "-o", os.path.join(folder, "model.so")],
                               check=True)
            print(f"prepared {folder} in "
                  f"{time.perf_counter() - start:.1f} s")
    return 0


def cublas_ms(a, b, iterations):
    import torch
    x, y = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for _ in range(5):
        torch.matmul(x, y)
    times = []
    for _ in range(iterations):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(x, y)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return torch.matmul(x, y).float().cpu().numpy(), float(np.median(times))


def run(args):
    mlc_run = gpu_bench.use_bundle(args.out)
    rows, failed, device = [], 0, "?"
    rng = np.random.default_rng(0)
    for name in sorted(os.listdir(args.out)):
        found = re.fullmatch(r"matmul_(float\d+)_(\d+)", name)
        if not found:
            continue
        dtype, n = found.group(1), int(found.group(2))
        folder = os.path.join(args.out, name)
        paths = []
        inputs = []
        for k in range(2):
            x = rng.standard_normal((n, n), dtype=np.float32).astype(dtype)
            paths.append(os.path.join(folder, f"input_{k}.npy"))
            np.save(paths[-1], x)
            inputs.append(x)
        flags = [a for p in paths for a in ("-i", p)]
        library = os.path.join(folder, "model.so")
        out = os.path.join(folder, "out")
        proc, named = gpu_bench.run_library(mlc_run, library, flags, out)
        device = named or device
        if proc.returncode != 0:
            failed += 1
            rows.append(f"| {dtype} | {n} | failed: "
                        f"{proc.stderr.strip()[:300]} |")
            print(rows[-1], flush=True)
            continue
        ref, torch_ms = cublas_ms(*inputs, args.iterations)
        got = np.load(os.path.join(out, "output_0.npy")).astype(np.float32)
        rel = float(np.abs(got - ref).max() / np.abs(ref).max())
        mlc_ms = gpu_bench.bench_library(mlc_run, library, flags,
                                         args.iterations)
        flops = 2.0 * n ** 3
        rows.append(f"| {dtype} | {n} | {rel:.1e} | {mlc_ms:.3f} | "
                    f"{flops / mlc_ms / 1e9:.2f} | {torch_ms:.3f} | "
                    f"{flops / torch_ms / 1e9:.2f} | "
                    f"{100 * torch_ms / mlc_ms:.1f}% |")
        print(rows[-1], flush=True)
    text = (f"Measured {time.strftime('%Y-%m-%d')} on {device} by "
            "`bench/gpu_matmul_bench.py run`: C = A B of two N x N inputs, "
            f"median of {args.iterations} runs timed with CUDA events; "
            "PyTorch's torch.matmul (cuBLAS, TF32 off) on the same card.\n\n"
            "| dtype | N | max \\|mlc - cuBLAS\\| / max \\|cuBLAS\\| | mlc ms | "
            "mlc TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | mlc / cuBLAS speed |\n"
            "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    gpu_bench.write_table(text, args.write_doc)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("build_dir")
    p.add_argument("out")
    p.add_argument("--sizes", default="1024,4096")
    p.add_argument("--dtypes", default="float32,float16")
    p.add_argument("--gpu-arch", default="sm_90")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--iterations", type=int, default=20)
    r.add_argument("--write-doc")
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
