#!/usr/bin/python3
# ===- gpu_bench.py - The bench models on an NVIDIA GPU, against ORT ------=== #
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
#       where mlc builds: redraws each bench model's large weights from a
#       seed (bench/seeded_weights.py: the weights travel as a seed and
#       statistics, not as 0.1-0.4 GB), compiles it for --target=gpu and
#       writes to OUT/NAME/ the library, the model without those weights,
#       the recipe for mlc's weight file and the exporter's inputs (seed 0,
#       as utils/check_model_numerics.py); copies the runtime-only mlc-run
#       to OUT/mlc-run with the protobuf libraries it reads .pb files with
#       (OUT/lib).
#   gpu_bench.py run OUT [--iterations N] [--torch-compile a,b]
#                        [--write-doc FILE]
#       on the GPU machine (numpy, onnx, onnxruntime; PyTorch optional):
#       rebuilds each model and its weight file (checked by SHA-256), runs
#       ONNX Runtime's CPU provider for the reference, runs the model with
#       `mlc-run --device=cuda` and compares (max |mlc - ort| <= 1e-3 max
#       |ort|), times it (`--bench`, CUDA events) and, when PyTorch has
#       CUDA and torchvision, times PyTorch eager (and torch.compile for
#       the models named) on the same card in the same run. Prints a
#       Markdown table (and writes it to FILE); exits 1 when a model fails
#       or differs.
#
# ===--------------------------------------------------------------------=== #

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import seeded_weights  # noqa: E402
from bench_models import BENCH_MODELS  # noqa: E402


def copy_runtime(build_dir, out):
    """Copies the runtime-only mlc-run to OUT/mlc-run, with the libraries it
    reads .pb tensors with (OUT/lib), which a GPU machine may not have (it
    has the C and C++ runtimes)."""
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    mlc_run = os.path.join(build_dir, "bin", "mlc-run")
    shutil.copy(mlc_run, out)
    ldd = subprocess.run(["ldd", mlc_run], capture_output=True, text=True)
    for path in re.findall(r"=> (\S+)", ldd.stdout):
        if re.match(r"lib(onnx_proto|protobuf|z)\.so", os.path.basename(path)):
            shutil.copy(path, os.path.join(out, "lib"))


def prepare(args):
    from bench_models import ensure_exported
    sys.path.insert(0, os.path.join(ROOT, "models"))
    import torch
    import export_torch_models
    models_dir = os.path.join(args.build_dir, "models")
    names = args.models.split(",")
    ensure_exported(models_dir, names)
    copy_runtime(args.build_dir, args.out)
    for name in names:
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        model = onnx.load(os.path.join(models_dir, f"{name}-opset13.onnx"))
        params = seeded_weights.reseed(model)
        arrays = {t.name: numpy_helper.to_array(t)
                  for t in model.graph.initializer if t.name in params}
        with tempfile.TemporaryDirectory(prefix="mlc-gpu-bench-") as tmp:
            onnx.save(model, os.path.join(tmp, "model.onnx"))
            subprocess.run([os.path.join(args.build_dir, "bin",
                                         "mlc-compile"),
                            os.path.join(tmp, "model.onnx"), "--target=gpu",
                            f"--gpu-arch={args.gpu_arch}", "-o",
                            os.path.join(folder, "model.so")], check=True)
            os.remove(os.path.join(folder, "model.h"))
        weights = os.path.join(folder, "model.weights")
        with open(weights, "rb") as f:
            blob = f.read()
        os.remove(weights)
        plan, literal = seeded_weights.recipe(blob, arrays)
        with open(os.path.join(folder, "weights.json"), "w") as f:
            json.dump(plan, f)
        with open(os.path.join(folder, "weights.literal"), "wb") as f:
            f.write(literal)
        seeded_weights.save_params(os.path.join(folder, "params.json"),
                                   params)
        onnx.save(seeded_weights.strip(model, params),
                  os.path.join(folder, "model.onnx"))
        torch.manual_seed(0)
        _, inputs = export_torch_models.MODELS[name]
        examples, _ = inputs()
        for k, e in enumerate(examples):
            np.save(os.path.join(folder, f"input_{k}.npy"),
                    np.ascontiguousarray(e.numpy()))
        print(f"prepared {folder}: {len(blob) >> 20} MiB of weights from "
              f"{len(literal) >> 10} KiB and a seed")
    return 0


def rebuild(folder):
    """Writes model.weights beside the library and returns the model with
    its weights."""
    model = onnx.load(os.path.join(folder, "model.onnx"))
    arrays = seeded_weights.regenerate(
        model, seeded_weights.load_params(os.path.join(folder,
                                                       "params.json")))
    with open(os.path.join(folder, "weights.json")) as f:
        plan = json.load(f)
    with open(os.path.join(folder, "weights.literal"), "rb") as f:
        literal = f.read()
    with open(os.path.join(folder, "model.weights"), "wb") as f:
        f.write(seeded_weights.rebuild(plan, literal, arrays))
    return model


def ort_outputs(model, inputs):
    import onnxruntime
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


def torch_timings(name, inputs, iterations, compile_too):
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
    inputs = [torch.from_numpy(i).cuda() for i in inputs]

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
    compiled = None
    if compile_too:
        try:
            compiled = median_ms(torch.compile(model))
        except Exception as e:  # no Triton or no compiler on the machine
            print(f"{name}: torch.compile failed: {e}", file=sys.stderr)
    return eager, compiled


def use_bundle(out):
    """The bundle's runtime-only mlc-run, with the libraries it loads from
    OUT/lib found."""
    os.environ["LD_LIBRARY_PATH"] = os.path.join(out, "lib") + (
        ":" + os.environ["LD_LIBRARY_PATH"]
        if os.environ.get("LD_LIBRARY_PATH") else "")
    return os.path.join(out, "mlc-run")


def input_paths(folder):
    """A prepared model's inputs, input_0.npy, input_1.npy, ..."""
    paths = []
    while os.path.exists(os.path.join(folder, f"input_{len(paths)}.npy")):
        paths.append(os.path.join(folder, f"input_{len(paths)}.npy"))
    return paths


def run_library(mlc_run, library, flags, out):
    """Runs `library` once on the GPU, outputs to `out`: (the finished
    process, the device mlc-run names or None)."""
    proc = subprocess.run([mlc_run, library, "--device=cuda", "-o", out] +
                          flags, capture_output=True, text=True)
    found = re.search(r"^device: (.*)$", proc.stdout, re.M)
    return proc, found.group(1) if found else None


def bench_library(mlc_run, library, flags, iterations):
    """mlc-run --bench's median ms for `library` on the GPU (NaN when it
    failed)."""
    proc = subprocess.run([mlc_run, library, "--device=cuda", "--bench",
                           str(iterations)] + flags,
                          capture_output=True, text=True)
    found = re.search(r"median_ms: ([0-9.]+)", proc.stdout)
    return float(found.group(1)) if found else float("nan")


def write_table(text, path):
    """Prints a measurement's Markdown and writes it to `path` if given."""
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text)


def run(args):
    mlc_run = use_bundle(args.out)
    compile_models = set(args.torch_compile.split(","))
    rows, failed, device = [], 0, "?"
    names = [n for n in BENCH_MODELS
             if os.path.isdir(os.path.join(args.out, n)) and
             (not args.models or n in args.models.split(","))]
    for name in names:
        folder = os.path.join(args.out, name)
        try:
            model = rebuild(folder)
        except Exception as e:
            failed += 1
            rows.append(f"| {name} | rebuild failed: {e} |")
            print(rows[-1], flush=True)
            continue
        paths = input_paths(folder)
        inputs = [np.load(p) for p in paths]
        flags = [a for p in paths for a in ("-i", p)]
        library = os.path.join(folder, "model.so")
        out = os.path.join(folder, "out")
        proc, named = run_library(mlc_run, library, flags, out)
        device = named or device
        if proc.returncode != 0:
            failed += 1
            rows.append(f"| {name} | failed: {proc.stderr.strip()[:300]} |")
            print(rows[-1], flush=True)
            continue
        ref = ort_outputs(model, inputs)[0]
        print(f"{name}: ONNX Runtime's output {ref.shape}, max |ort| "
              f"{np.abs(ref).max():.3g}, std {ref.std():.3g}", flush=True)
        got = np.load(os.path.join(out, "output_0.npy"))
        rel = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
        ok = rel <= 1e-3 and got.shape == ref.shape
        failed += not ok
        mlc_ms = bench_library(mlc_run, library, flags, args.iterations)
        try:
            eager, compiled = (None, None) if args.no_torch else \
                torch_timings(name, inputs, args.iterations,
                              name in compile_models)
        except Exception as e:
            print(f"{name}: PyTorch failed: {e}", file=sys.stderr)
            eager = compiled = None

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
            "| model | mlc vs ONNX Runtime (CPU) | mlc ms | PyTorch eager ms "
            "| mlc/eager | torch.compile ms | mlc/compile |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    write_table(text, args.write_doc)
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
    r.add_argument("--models", default="",
                   help="only these models (default: all in OUT)")
    r.add_argument("--iterations", type=int, default=50)
    r.add_argument("--torch-compile", default="",
                   help="also time torch.compile for these models")
    r.add_argument("--no-torch", action="store_true",
                   help="time mlc alone")
    r.add_argument("--write-doc")
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
