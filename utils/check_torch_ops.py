#!/usr/bin/python3
# ===- check_torch_ops.py - Ops with many modes against PyTorch ------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_torch_ops.py BUILD_DIR
#
# Exports small PyTorch modules whose ONNX ops have many modes, compiles
# each with mlc, runs it on random inputs and compares every output with
# PyTorch's: max |got - ref| <= 1e-4 * max |ref|.
#   - LSTM, GRU (linear_before_reset = 1, as PyTorch defines it) and
#     tanh/relu RNN stacks: 2 layers, bidirectional, 7 steps, batch 3, some
#     batch_first (ONNX's node tests have single steps only);
#   - grid_sample in every mode x padding mode x align_corners (18 cases;
#     the node tests have 8), with grid points outside [-1, 1];
#   - grouped and depthwise 3-D convolutions with strides, dilations,
#     padding and bias (the node tests have ungrouped ones only).
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


class GridSample(torch.nn.Module):
    def __init__(self, mode, padding, align):
        super().__init__()
        self.mode, self.padding, self.align = mode, padding, align

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(
            x, grid, mode=self.mode, padding_mode=self.padding,
            align_corners=self.align)


def check(run, tmp, name, model, inputs, opset):
    """Exports, compiles and runs `model`; returns the number of outputs
    that differ from PyTorch's."""
    path = os.path.join(tmp, f"{name}.onnx")
    torch.onnx.export(model, inputs, path, opset_version=opset)
    cmd = [run, path, "-o", os.path.join(tmp, name)]
    for k, x in enumerate(inputs):
        np.save(os.path.join(tmp, f"in{k}.npy"), x.numpy())
        cmd += ["-i", os.path.join(tmp, f"in{k}.npy")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{name}: mlc-run failed:\n{proc.stderr}")
        return 1
    with torch.no_grad():
        refs = model(*inputs)
    if isinstance(refs, torch.Tensor):
        refs = (refs,)
    failures = 0
    for k, ref in enumerate(refs):
        ref = ref.numpy()
        got = np.load(os.path.join(tmp, name, f"output_{k}.npy"))
        scale = float(np.abs(ref).max())
        err = float(np.abs(got - ref).max()) if got.shape == ref.shape \
            else float("inf")
        ok = err <= 1e-4 * scale
        failures += not ok
        print(f"{name} output {k} {list(ref.shape)}: max|got-ref| = "
              f"{err:.3e}, max|ref| = {scale:.3e} -> {'ok' if ok else 'FAIL'}")
    return failures


def main():
    build = sys.argv[1]
    run = os.path.join(build, "bin", "mlc-run")
    failures = 0
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        x = torch.randn(2, 3, 5, 7)
        grid = torch.rand(2, 4, 6, 2) * 3 - 1.5
        for mode in ["bilinear", "nearest", "bicubic"]:
            for padding in ["zeros", "border", "reflection"]:
                for align in [False, True]:
                    failures += check(
                        run, tmp, f"grid_sample_{mode}_{padding}_{int(align)}",
                        GridSample(mode, padding, align), (x, grid), 16)
        x = torch.randn(2, 4, 6, 7, 5)
        for name, conv in [
                ("conv3d_groups2", torch.nn.Conv3d(
                    4, 6, (3, 2, 3), groups=2, stride=(1, 2, 1),
                    padding=(1, 0, 1), dilation=(2, 1, 1))),
                ("conv3d_depthwise", torch.nn.Conv3d(
                    4, 8, 3, groups=4, padding=1, bias=False))]:
            failures += check(run, tmp, name, conv.eval(), (x,), 13)
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
