#!/usr/bin/python3
# ===- gpu_bench.py - The bench models on an NVIDIA GPU, against PyTorch --=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# GPU machines may have no LLVM or MLIR, so this runs in two steps:
#
#   gpu_bench.py prepare BUILD_DIR OUT [--models a,b] [--gpu-arch sm_90]
#       where mlc builds: compiles each bench model for --target=gpu into
#       OUT/NAME/ (model.so, model.weights), saves the exporter's inputs and
#       PyTorch's CPU outputs for them (seed 0, as
#       utils/check_model_numerics.py), and copies the runtime-only mlc-run
#       to OUT/mlc-run with the protobuf libraries it reads .pb files with
#       (OUT/lib).
#   gpu_bench.py run OUT [--iterations N] [--write-doc FILE]
#       on the GPU machine (numpy; PyTorch optional): runs each model with
#       `mlc-run --device=cuda`, compares with PyTorch's CPU outputs
#       (max |mlc - ref| <= 1e-3 max |ref|), times it (`--bench`, CUDA
#       events) and, when torch with CUDA and torchvision import, times
#       PyTorch eager and torch.compile on the same card in the same run.
#       Prints a Markdown table (and writes it to FILE); exits 1 when a
#       model fails or differs.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils"))

from bench_models import BENCH_MODELS, ensure_exported  # noqa: E402


def prepare(args):
    sys.path.insert(0, os.path.join(ROOT, "models"))
    import torch
    import export_torch_models
    models_dir = os.path.join(args.build_dir, "models")
    names = args.models.split(",")
    ensure_exported(models_dir, names)
    os.makedirs(os.path.join(args.out, "lib"), exist_ok=True)
    mlc_run = os.path.join(args.build_dir, "bin", "mlc-run")
    shutil.copy(mlc_run, args.out)
    # The libraries mlc-run reads .pb tensors with, which a GPU machine may
    # not have; the C and C++ runtimes it has.
    ldd = subprocess.run(["ldd", mlc_run], capture_output=True, text=True)
    for path in re.findall(r"=> (\S+)", ldd.stdout):
        if re.match(r"lib(onnx_proto|protobuf|z)\.so", os.path.basename(path)):
            shutil.copy(path, os.path.join(args.out, "lib"))
    for name in names:
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        subprocess.run([os.path.join(args.build_dir, "bin", "mlc-compile"),
                        os.path.join(models_dir, f"{name}-opset13.onnx"),
                        "--target=gpu", f"--gpu-arch={args.gpu_arch}",
                        "-o", os.path.join(folder, "model.so")], check=True)
        torch.manual_seed(0)
        make, inputs = export_torch_models.MODELS[name]
        model = make().eval()
        examples, _ = inputs()
        with torch.no_grad():
            np.save(os.path.join(folder, "reference.npy"),
                    model(*examples).numpy())
        for k, e in enumerate(examples):
            np.save(os.path.join(folder, f"input_{k}.npy"),
                    np.ascontiguousarray(e.numpy()))
        print(f"prepared {folder}")
    return 0


def torch_timings(name, folder, iterations):
    """(eager ms, torch.compile ms) on the GPU, or Nones without PyTorch's
    CUDA or torchvision."""
    try:
        import torch
        sys.path.insert(0, os.path.join(ROOT, "models"))
        import export_torch_models
        if not torch.cuda.is_available():
            return None, None
    except Exception:
        return None, None
    torch.manual_seed(0)
    make, _ = export_torch_models.MODELS[name]
    model = make().eval().cuda()
    inputs = []
    k = 0
    while os.path.exists(os.path.join(folder, f"input_{k}.npy")):
        inputs.append(torch.from_numpy(
            np.load(os.path.join(folder, f"input_{k}.npy"))).cuda())
        k += 1

    def median_ms(fn):
        with torch.no_grad():
            for _ in range(5):
                fn(*inputs)
            times = []
            for _ in range(iterations):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn(*inputs)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
        return float(np.median(times))

    eager = median_ms(model)
    try:
        compiled = median_ms(torch.compile(model))
    except Exception as e:  # no Triton or no compiler on the machine
        print(f"{name}: torch.compile failed: {e}", file=sys.stderr)
        compiled = None
    return eager, compiled


def run(args):
    mlc_run = os.path.join(args.out, "mlc-run")
    os.environ["LD_LIBRARY_PATH"] = os.path.join(args.out, "lib") + (
        ":" + os.environ["LD_LIBRARY_PATH"]
        if os.environ.get("LD_LIBRARY_PATH") else "")
    rows, failed, device = [], 0, "?"
    for name in sorted(d for d in os.listdir(args.out)
                       if os.path.isdir(os.path.join(args.out, d))):
        folder = os.path.join(args.out, name)
        inputs = []
        k = 0
        while os.path.exists(os.path.join(folder, f"input_{k}.npy")):
            inputs += ["-i", os.path.join(folder, f"input_{k}.npy")]
            k += 1
        library = os.path.join(folder, "model.so")
        out = os.path.join(folder, "out")
        proc = subprocess.run([mlc_run, library, "--device=cuda", "-o", out] +
                              inputs, capture_output=True, text=True)
        found = re.search(r"^device: (.*)$", proc.stdout, re.M)
        device = found.group(1) if found else device
        if proc.returncode != 0:
            failed += 1
            rows.append(f"| {name} | failed: {proc.stderr.strip()[:150]} |")
            continue
        got = np.load(os.path.join(out, "output_0.npy"))
        ref = np.load(os.path.join(folder, "reference.npy"))
        rel = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
        ok = rel <= 1e-3
        failed += not ok
        proc = subprocess.run([mlc_run, library, "--device=cuda", "--bench",
                               str(args.iterations)] + inputs,
                              capture_output=True, text=True)
        found = re.search(r"median_ms: ([0-9.]+)", proc.stdout)
        mlc_ms = float(found.group(1)) if found else float("nan")
        eager, compiled = torch_timings(name, folder, args.iterations)

        def fmt(ms):
            return f"{ms:.3f}" if ms else "-"

        def ratio(ms):
            return f"{mlc_ms / ms:.2f}" if ms else "-"
        rows.append(f"| {name} | {rel:.1e} {'ok' if ok else 'DIFFERS'} | "
                    f"{mlc_ms:.3f} | {fmt(eager)} | {ratio(eager)} | "
                    f"{fmt(compiled)} | {ratio(compiled)} |")
        print(rows[-1], flush=True)
    text = (f"Measured {time.strftime('%Y-%m-%d')} on {device} by "
            "`bench/gpu_bench.py run`: batch 1, f32, median of "
            f"{args.iterations} runs timed with CUDA events.\n\n"
            "| model | mlc vs PyTorch (CPU) | mlc ms | PyTorch eager ms | "
            "mlc/eager | torch.compile ms | mlc/compile |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    print(text)
    if args.write_doc:
        with open(args.write_doc, "w") as f:
            f.write(text)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("build_dir")
    p.add_argument("out")
    p.add_argument("--models", default=",".join(BENCH_MODELS))
    p.add_argument("--gpu-arch", default="sm_90")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--iterations", type=int, default=50)
    r.add_argument("--write-doc")
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
