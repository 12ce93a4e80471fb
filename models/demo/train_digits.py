#!/usr/bin/python3
# ===- train_digits.py - Train and export the demo model -----------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Trains a small MLP on scikit-learn's bundled 8x8 handwritten digits (no
# download) and writes, next to this script:
#   digits_mlp.onnx      the model as ONNX (opset 13): Gemm-Relu-Gemm-Softmax
#   digits_mlp.mlir      the same model in mlc's graph dialect, weights as
#                        dense_resource blobs (what the importer produces)
#   digits_samples.json  held-out test images with labels and scikit-learn's
#                        probabilities, the reference for the demo
#
# Run with Debian's interpreter: /usr/bin/python3 models/demo/train_digits.py
# (needs python3-sklearn, python3-onnx, python3-numpy).
#
# ===--------------------------------------------------------------------=== #

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN = 32


def train():
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.25, random_state=0, stratify=y)
    clf = MLPClassifier(hidden_layer_sizes=(HIDDEN,), activation="relu",
                        max_iter=600, random_state=0)
    clf.fit(x_train, y_train)
    accuracy = clf.score(x_test, y_test)
    return clf, x_test, y_test, accuracy


def export_onnx(clf, path):
    w1 = clf.coefs_[0].T.astype(np.float32)        # [32, 64]
    b1 = clf.intercepts_[0].astype(np.float32)     # [32]
    w2 = clf.coefs_[1].T.astype(np.float32)        # [10, 32]
    b2 = clf.intercepts_[1].astype(np.float32)     # [10]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "fc1.weight"), (b1, "fc1.bias"),
              (w2, "fc2.weight"), (b2, "fc2.bias")]]
    nodes = [
        helper.make_node("Gemm", ["image", "fc1.weight", "fc1.bias"],
                         ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu1"], name="relu1"),
        helper.make_node("Gemm", ["relu1", "fc2.weight", "fc2.bias"],
                         ["logits"], name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"],
                         name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "digits_mlp",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                       ["batch", 64])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                       ["batch", 10])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="mlc-demo",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w1, b1, w2, b2


def blob(array):
    """A dense_resource blob: 4-byte alignment header, then the raw data."""
    return "0x04000000" + array.astype("<f4").tobytes().hex().upper()


def export_mlir(weights, path):
    w1, b1, w2, b2 = weights
    text = f"""// The demo model in mlc's graph dialect, written by train_digits.py.
// An 8x8 digit image (64 floats in [0, 1]) -> probabilities of 0..9.
func.func @digits_mlp(%image: tensor<1x64xf32>) -> tensor<1x10xf32> {{
  %w1 = mlc_graph.constant dense_resource<fc1_weight> : tensor<{HIDDEN}x64xf32>
  %b1 = mlc_graph.constant dense_resource<fc1_bias> : tensor<{HIDDEN}xf32>
  %w2 = mlc_graph.constant dense_resource<fc2_weight> : tensor<10x{HIDDEN}xf32>
  %b2 = mlc_graph.constant dense_resource<fc2_bias> : tensor<10xf32>
  %fc1 = mlc_graph.gemm %image, %w1, %b1 {{trans_b = true}} : (tensor<1x64xf32>, tensor<{HIDDEN}x64xf32>, tensor<{HIDDEN}xf32>) -> tensor<*xf32>
  %relu1 = mlc_graph.relu %fc1 : (tensor<*xf32>) -> tensor<*xf32>
  %logits = mlc_graph.gemm %relu1, %w2, %b2 {{trans_b = true}} : (tensor<*xf32>, tensor<10x{HIDDEN}xf32>, tensor<10xf32>) -> tensor<*xf32>
  %probabilities = mlc_graph.softmax %logits : (tensor<*xf32>) -> tensor<*xf32>
  %result = tensor.cast %probabilities : tensor<*xf32> to tensor<1x10xf32>
  return %result : tensor<1x10xf32>
}}

{{-#
  dialect_resources: {{
    builtin: {{
      fc1_weight: "{blob(w1)}",
      fc1_bias: "{blob(b1)}",
      fc2_weight: "{blob(w2)}",
      fc2_bias: "{blob(b2)}"
    }}
  }}
#-}}
"""
    with open(path, "w") as f:
        f.write(text)


def main():
    clf, x_test, y_test, accuracy = train()
    weights = export_onnx(clf, os.path.join(HERE, "digits_mlp.onnx"))
    export_mlir(weights, os.path.join(HERE, "digits_mlp.mlir"))
    probabilities = clf.predict_proba(x_test[:8])
    samples = {
        "accuracy": accuracy,
        "images": x_test[:8].tolist(),
        "labels": y_test[:8].tolist(),
        "probabilities": probabilities.tolist(),
    }
    with open(os.path.join(HERE, "digits_samples.json"), "w") as f:
        json.dump(samples, f)
    print(f"test accuracy {accuracy:.4f}; wrote digits_mlp.onnx, "
          f"digits_mlp.mlir, digits_samples.json")


if __name__ == "__main__":
    main()
