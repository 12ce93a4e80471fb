#!/usr/bin/python3
# ===- check_resize18.py - Opset-18 Resize modes against their references -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_resize18.py antialias OUT_DIR X.npy IMG.npy
#   check_resize18.py keep_aspect OUT_DIR X.npy
#
# Compares mlc-run's outputs for onnx_models.py's resize18_antialias and
# resize18_keep_aspect models with ONNX's published Resize examples (the
# expected outputs of its backend tests, for x = 1..16 as 4x4) and with
# PyTorch's interpolation. Exits non-zero on any mismatch.
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import torch

F = torch.nn.functional

# ONNX's backend tests test_resize_downsample_{scales,sizes}_{linear,cubic}_
# antialias: expected outputs for x = arange(1, 17) as 1x1x4x4.
ONNX_EXAMPLES = {
    "lin_s": [2.875, 4.5, 9.375, 11.0],
    "cub_s": [2.5180721, 4.2858863, 9.589329, 11.357142],
    "lin_z": [2.3636363, 3.590909, 4.818182, 7.2727275, 8.5, 9.727273,
              12.181818, 13.409091, 14.636364],
    "cub_z": [1.7750092, 3.1200073, 4.4650054, 7.1550016, 8.5, 9.844998,
              12.534994, 13.8799925, 15.224991],
}


def output(out, k):
    return np.load(os.path.join(out, f"output_{k}.npy"))


def compare(name, got, ref, tolerance):
    ref = np.asarray(ref, np.float32)
    if got.shape != ref.shape:
        print(f"{name}: shape {got.shape}, expected {ref.shape}")
        return False
    err = float(np.abs(got - ref).max())
    ok = err <= tolerance * max(1.0, float(np.abs(ref).max()))
    print(f"{name}: max|got-ref| = {err:.3e} -> {'ok' if ok else 'FAIL'}")
    return ok


def main():
    kind, out = sys.argv[1], sys.argv[2]
    ok = True
    if kind == "antialias":
        x = np.load(sys.argv[3])
        assert np.array_equal(x.ravel(), np.arange(1, 17, dtype=np.float32))
        img = torch.from_numpy(np.load(sys.argv[4]))
        for k, name in enumerate(["lin_s", "cub_s", "lin_z", "cub_z"]):
            got = output(out, k)
            ok &= compare(name, got.ravel(), ONNX_EXAMPLES[name], 1e-5)
        # PyTorch's antialiased interpolation leaves out the taps beyond
        # the image (exclude_outside = 1) and its bicubic uses A = -0.5.
        ok &= compare("lin_ex", output(out, 4), F.interpolate(
            img, size=(5, 4), mode="bilinear", antialias=True,
            align_corners=False).numpy(), 1e-5)
        ok &= compare("cub_ex", output(out, 5), F.interpolate(
            img, size=(30, 9), mode="bicubic", antialias=True,
            align_corners=False).numpy(), 1e-5)
    else:
        x = torch.from_numpy(np.load(sys.argv[3]))
        for k, scale in enumerate([0.25, 0.75]):
            ok &= compare(f"keep_aspect {scale}", output(out, k), F.interpolate(
                x, scale_factor=scale, mode="bilinear", align_corners=False,
                recompute_scale_factor=False).numpy(), 1e-5)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
