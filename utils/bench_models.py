# ===- bench_models.py - The ten bench models, exported when missing ------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# The models the checks and benchmarks share (models/export_torch_models.py
# writes them), and their export on first use.
#
# ===--------------------------------------------------------------------=== #

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BENCH_MODELS = ["mlp", "resnet18", "resnet50", "mobilenet_v2",
                "mobilenet_v3_small", "efficientnet_b0", "squeezenet1_1",
                "vit_b_16", "bert_small", "bert_base"]


def model_path(models_dir, name, opset=13):
    return os.path.join(models_dir, f"{name}-opset{opset}.onnx")


def ensure_exported(models_dir, names, opset=13):
    """Exports those of `names` that `models_dir` lacks at `opset`."""
    os.makedirs(models_dir, exist_ok=True)
    missing = [m for m in names
               if not os.path.exists(model_path(models_dir, m, opset))]
    if missing:
        subprocess.run(["/usr/bin/python3",
                        os.path.join(ROOT, "models", "export_torch_models.py"),
                        "--opset", str(opset), models_dir] + missing,
                       check=True, stdout=subprocess.DEVNULL)
