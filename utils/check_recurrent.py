#!/usr/bin/python3
# ===- check_recurrent.py - Recurrent layers against PyTorch ---------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_recurrent.py BUILD_DIR
#
# Exports PyTorch LSTM, GRU (linear_before_reset = 1, as PyTorch defines it)
# and tanh/relu RNN stacks (2 layers, bidirectional, 7 steps, batch 3, one
# batch_first) with random weights, compiles each with mlc, runs it on
# random inputs and compares every output with PyTorch's:
# max |got - ref| <= 1e-4 * max |ref|. ONNX's node tests cover the ops with
# single steps only; this covers multi-step, multi-layer, both directions.
#
# ===--------------------------------------------------------------------=== #

import os
import subprocess
import sys
import tempfile

import numpy as np
import torch


class Stack(torch.nn.Module):
    def __init__(self, kind, batch_first):
        super().__init__()
        cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU,
               "rnn_tanh": torch.nn.RNN, "rnn_relu": torch.nn.RNN}[kind]
        extra = {"nonlinearity": "relu"} if kind == "rnn_relu" else {}
        self.layer = cls(6, 5, num_layers=2, bidirectional=True,
                         batch_first=batch_first, **extra)

    def forward(self, x):
        out = self.layer(x)
        return (out[0],) + (tuple(out[1]) if isinstance(out[1], tuple)
                            else (out[1],))


def main():
    build = sys.argv[1]
    run = os.path.join(build, "bin", "mlc-run")
    failures = 0
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        for kind, batch_first in [("lstm", False), ("gru", True),
                                  ("rnn_tanh", False), ("rnn_relu", True)]:
            model = Stack(kind, batch_first).eval()
            x = torch.randn(3, 7, 6) if batch_first else torch.randn(7, 3, 6)
            path = os.path.join(tmp, f"{kind}.onnx")
            torch.onnx.export(model, x, path, opset_version=14,
                              input_names=["x"])
            np.save(os.path.join(tmp, "x.npy"), x.numpy())
            out = os.path.join(tmp, kind)
            proc = subprocess.run([run, path, "-i", os.path.join(tmp, "x.npy"),
                                   "-o", out], capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{kind}: mlc-run failed:\n{proc.stderr}")
                failures += 1
                continue
            with torch.no_grad():
                refs = model(x)
            for k, ref in enumerate(refs):
                ref = ref.numpy()
                got = np.load(os.path.join(out, f"output_{k}.npy"))
                scale = float(np.abs(ref).max())
                err = float(np.abs(got - ref).max()) if got.shape == ref.shape \
                    else float("inf")
                ok = err <= 1e-4 * scale
                failures += not ok
                print(f"{kind} output {k} {list(ref.shape)}: "
                      f"max|got-ref| = {err:.3e}, max|ref| = {scale:.3e} -> "
                      f"{'ok' if ok else 'FAIL'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
