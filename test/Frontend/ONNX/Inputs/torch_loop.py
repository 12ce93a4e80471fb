#!/usr/bin/python3
# ===- torch_loop.py - A TorchScript loop exported by PyTorch ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   torch_loop.py export OUT_DIR   model.onnx, x.npy, w.npy, h.npy (PyTorch)
#   torch_loop.py check OUT_DIR    compares mlc-run's OUT_DIR/out/output_0
#
# A scripted recurrence over the first dim of its input: PyTorch exports it
# as an ONNX Loop whose trip count is a Shape computation, constant once the
# input's shape is known.
#
# ===--------------------------------------------------------------------=== #

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


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "export":
        torch.manual_seed(0)
        m = torch.jit.script(Recurrence())
        x, w = torch.randn(6, 3, 4), torch.randn(4, 5)
        torch.onnx.export(m, (x, w), os.path.join(out, "model.onnx"),
                          opset_version=13, input_names=["x", "w"],
                          output_names=["h"])
        np.save(os.path.join(out, "x.npy"), x.numpy())
        np.save(os.path.join(out, "w.npy"), w.numpy())
        np.save(os.path.join(out, "h.npy"), m(x, w).detach().numpy())
        return
    got = np.load(os.path.join(out, "out", "output_0.npy"))
    ref = np.load(os.path.join(out, "h.npy"))
    err = float(np.abs(got - ref).max())
    assert err <= 1e-5 * float(np.abs(ref).max()), err
    print("ok", err)


if __name__ == "__main__":
    main()
