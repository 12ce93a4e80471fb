# ===- max_pool_models.py - Stride-2 MaxPool models for max-pool.test ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------=== #
#
#   max_pool_models.py DIR          writes NAME.onnx and NAME.npy per case
#   max_pool_models.py DIR --check  compares DIR/NAME.out/output_0.npy with
#                                   numpy's windows, NaNs included
#
# ===----------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

# name: (input shape, MaxPool attributes)
CASES = {
    # ResNet's stem pool: -inf padding on every side.
    "pad1": ([1, 16, 56, 56], dict(kernel_shape=[3, 3], strides=[2, 2],
                                   pads=[1, 1, 1, 1])),
    # SqueezeNet's pools: odd maps, ceil mode (windows past the last row).
    "ceil": ([1, 8, 55, 55], dict(kernel_shape=[3, 3], strides=[2, 2],
                                  ceil_mode=1)),
    "ceil_even": ([1, 8, 26, 26], dict(kernel_shape=[3, 3], strides=[2, 2],
                                       ceil_mode=1)),
    # 2x2 windows, two images, odd widths.
    "k2": ([2, 8, 31, 33], dict(kernel_shape=[2, 2], strides=[2, 2])),
    # Rows at stride 1, uneven pads, a 3x2 window.
    "rows1": ([1, 4, 20, 40], dict(kernel_shape=[3, 3], strides=[1, 2],
                                   pads=[1, 1, 1, 1])),
    "uneven": ([1, 4, 20, 40], dict(kernel_shape=[3, 2], strides=[2, 2],
                                    pads=[0, 1, 2, 0])),
}


def reference(x, attrs):
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs["strides"]
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    _, _, h, w = x.shape
    rnd = np.ceil if attrs.get("ceil_mode") else np.floor
    oh = int(rnd((h + top + bottom - kh) / sh)) + 1
    ow = int(rnd((w + left + right - kw) / sw)) + 1
    # Room for windows that ceil mode lets run past the padding.
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom + sh), (left, right + sw)),
                    constant_values=-np.inf)
    out = np.full(x.shape[:2] + (oh, ow), -np.inf, dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            tap = padded[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
            # np.maximum propagates NaN, as ONNX Runtime and PyTorch do.
            out = np.maximum(out, tap)
    return out


def main():
    out = sys.argv[1]
    if "--check" not in sys.argv:
        os.makedirs(out, exist_ok=True)
        rng = np.random.default_rng(0)
        for name, (shape, attrs) in CASES.items():
            x = rng.standard_normal(shape).astype(np.float32)
            x.flat[::97] = np.nan
            x.flat[5::89] = -np.inf
            y = reference(x, attrs)
            node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
            graph = helper.make_graph(
                [node], name,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                               list(y.shape))])
            onnx.save(helper.make_model(
                graph, opset_imports=[helper.make_opsetid("", 13)]),
                os.path.join(out, name + ".onnx"))
            np.save(os.path.join(out, name + ".npy"), x)
        return
    for name, (shape, attrs) in CASES.items():
        x = np.load(os.path.join(out, name + ".npy"))
        got = np.load(os.path.join(out, name + ".out", "output_0.npy"))
        np.testing.assert_array_equal(got, reference(x, attrs), err_msg=name)


if __name__ == "__main__":
    main()
