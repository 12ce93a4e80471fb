#!/usr/bin/python3
# ===- torch_loop.py - TorchScript loops exported by PyTorch ------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   torch_loop.py export MODEL OUT_DIR  model.onnx, input_<k>.npy and
#                                       PyTorch's ref_<k>.npy
#   torch_loop.py check OUT_DIR         compares mlc-run's OUT_DIR/out
#
# MODEL is `recurrence` (a for loop over x.shape[0]: an ONNX Loop whose trip
# count is constant once shapes fold) or `while` (a while loop on a
# computed condition: a Loop with a run-time condition and no trip count).
#
# ===--------------------------------------------------------------------=== #

import glob
import os
import sys

import numpy as np
import torch


class Recurrence(torch.nn.Module):
    def forward(self, x, w):
        h = torch.zeros(x.shape[1], w.shape[1])
        for i in range(x.shape[0]):
            h = torch.tanh(x[i] @ w + h)
        return h


class DoubleUntilLarge(torch.nn.Module):
    def forward(self, x):
        steps = torch.zeros(1)
        while bool(x.abs().sum() < 100.0):
            x = x * 2.0 + 0.5
            steps = steps + 1.0
        return x, steps


def export(name, out):
    torch.manual_seed(0)
    if name == "recurrence":
        module, inputs = Recurrence(), (torch.randn(6, 3, 4), torch.randn(4, 5))
    else:
        module, inputs = DoubleUntilLarge(), (torch.randn(2, 3),)
    scripted = torch.jit.script(module)
    torch.onnx.export(scripted, inputs, os.path.join(out, "model.onnx"),
                      opset_version=13)
    refs = scripted(*inputs)
    refs = refs if isinstance(refs, tuple) else (refs,)
    for k, x in enumerate(inputs):
        np.save(os.path.join(out, f"input_{k}.npy"), x.numpy())
    for k, r in enumerate(refs):
        np.save(os.path.join(out, f"ref_{k}.npy"), r.detach().numpy())


def check(out):
    refs = sorted(glob.glob(os.path.join(out, "ref_*.npy")))
    for k, path in enumerate(refs):
        ref = np.load(path)
        got = np.load(os.path.join(out, "out", f"output_{k}.npy"))
        err = float(np.abs(got - ref).max())
        assert got.shape == ref.shape, (got.shape, ref.shape)
        assert err <= 1e-5 * max(float(np.abs(ref).max()), 1.0), err
    print("ok", len(refs), "outputs")


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2])
