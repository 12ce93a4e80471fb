# ===- user_models.py - Models of the kinds users bring to mlc ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   user_models.py OUTDIR CLASS [--full]
#
# writes OUTDIR/CLASS.onnx and a seeded random input OUTDIR/CLASS_x.npy
# (float32). Without --full the model is small enough for `make check`;
# with --full it has the size users run it at.
#
# ===--------------------------------------------------------------------=== #
"""Builds regression models for four classes of models users bring:

bn2d
    BatchNormalization at every rank from 2 to 5, as face-embedding and
    landmark heads have it: BatchNormalization (rank 4) -> Flatten -> Gemm
    -> BatchNormalization (rank 2) -> PRelu -> Gemm -> BatchNormalization
    (rank 2); and two side outputs, Reshape to (N, C, L) ->
    BatchNormalization -> Relu, and Reshape to (N, C/2, 2, H, W) ->
    BatchNormalization. Means, variances, scales and biases are random and
    far from (0, 1, 1, 0). Opset 11. Input 2x8x4x4; --full 1x512x7x7 (an
    ArcFace head: Gemm 25088 -> 512).

shufflenet
    torchvision's ShuffleNetV2 x0.5 with random weights and BatchNorm
    statistics, in eval mode, exported by torch.onnx.export at opset 11
    (Split with its `split` attribute, the channel shuffle as a 5-D
    Reshape -> Transpose -> Reshape, stride-2 depthwise 3x3 convolutions,
    BatchNorm folded into the convolutions). Input 1x3x64x64; --full
    1x3x224x224.

fp16
    A mixed-precision U-Net-like segmentation network as float16 converters
    write it (keep_io_types, Resize kept in float32): float32 input -> Cast
    to float16; an encoder of 3x3 convolutions (stride 2 from the second
    one on) with BatchNormalization folded into some and left as a node
    after others, and Relu; a decoder that reduces channels with a 1x1
    convolution, casts to float32, upsamples 2x with Resize (linear,
    pytorch_half_pixel), casts back to float16 and concatenates the skip
    connection; a final 1x1 convolution, Sigmoid and Cast to float32, so
    the output lies in [0, 1]. Widths 16-32-64-128. Opset 13. Input
    1x3x64x64; --full 1x3x1024x1024 (about 42 GFLOPs).

dynquant
    A convolutional network quantized as ONNX Runtime's quantize_dynamic
    writes it (uint8 weights and activations, per-tensor asymmetric): for
    each Conv, DynamicQuantizeLinear on its input, ConvInteger with the
    uint8 weight and both zero points, Cast to float, Mul of the input's
    scale by the weight's scale, Mul of the result by it, and Add of the
    bias Reshaped to [1, -1, 1, 1]; Relu between the layers. Layers (output
    channels): 3x3 stride 2 (32), 3x3 (64), 1x1 (64), 3x3 stride 2 (128),
    3x3 (128), 1x1 (64). The weights are those of a random float network,
    quantized. Opset 11. Input 1x3x64x64; --full 1x3x1024x1024 (about 42
    giga integer operations).
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

CLASSES = ("bn2d", "shufflenet", "fp16", "dynquant")


class Graph:
    """Nodes and initializers of a graph under construction, with names made
    unique by a counter."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, base, array):
        name = self.name(base)
        self.inits.append(nh.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, base=None, output=None, **attrs):
        """A node named `base`_<k> (its result too, unless `output` names
        it)."""
        name = self.name(base or op_type.lower())
        self.nodes.append(h.make_node(op_type, inputs, [output or name],
                                      name=name, **attrs))
        return output or name


def batch_norm_params(rng, channels, dtype=np.float32):
    """Scale, bias, mean and variance far from the identity's."""
    scale = rng.uniform(0.5, 1.5, channels) * rng.choice([-1, 1], channels)
    bias = rng.standard_normal(channels) * 0.3
    mean = rng.standard_normal(channels) * 0.5
    var = rng.uniform(0.3, 2.0, channels)
    return [a.astype(dtype) for a in (scale, bias, mean, var)]


def batch_norm(g, rng, x, channels, epsilon=1e-5, dtype=np.float32,
               output=None):
    params = batch_norm_params(rng, channels, dtype)
    names = [g.const(n, a) for n, a in zip(("scale", "bias", "mean", "var"),
                                          params)]
    return g.op("BatchNormalization", [x] + names, output=output,
                epsilon=epsilon)


def build_bn2d(full, rng):
    n, c, hw = (1, 512, 7) if full else (2, 8, 4)
    hidden, embed = (512, 512) if full else (64, 32)
    features = c * hw * hw
    g = Graph()
    x = batch_norm(g, rng, "x", c, epsilon=1e-3)
    flat = g.op("Flatten", [x], axis=1)
    w1 = (rng.standard_normal((hidden, features))
          / np.sqrt(features)).astype(np.float32)
    b1 = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
    fc1 = g.op("Gemm", [flat, g.const("fc1_w", w1), g.const("fc1_b", b1)],
               transB=1)
    bn1 = batch_norm(g, rng, fc1, hidden)
    slope = g.const("prelu_slope",
                    rng.uniform(0.05, 0.4, hidden).astype(np.float32))
    act = g.op("PRelu", [bn1, slope])
    w2 = (rng.standard_normal((embed, hidden))
          / np.sqrt(hidden)).astype(np.float32)
    b2 = (rng.standard_normal(embed) * 0.1).astype(np.float32)
    fc2 = g.op("Gemm", [act, g.const("fc2_w", w2), g.const("fc2_b", b2)],
               transB=1)
    batch_norm(g, rng, fc2, embed, epsilon=2e-5, output="emb")

    seq = g.op("Reshape", ["x", g.const("seq_shape",
                                        np.array([n, c, hw * hw], np.int64))])
    g.op("Relu", [batch_norm(g, rng, seq, c)], output="seq")

    vol = g.op("Reshape", ["x", g.const(
        "vol_shape", np.array([n, c // 2, 2, hw, hw], np.int64))])
    batch_norm(g, rng, vol, c // 2, epsilon=1e-4, output="vol")

    graph = h.make_graph(
        g.nodes, "bn2d",
        [h.make_tensor_value_info("x", T.FLOAT, [n, c, hw, hw])],
        [h.make_tensor_value_info("emb", T.FLOAT, [n, embed]),
         h.make_tensor_value_info("seq", T.FLOAT, [n, c, hw * hw]),
         h.make_tensor_value_info("vol", T.FLOAT, [n, c // 2, 2, hw, hw])],
        g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 11)])
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    return model, x


def build_shufflenet(full, rng):
    import io

    import torch
    import torchvision
    from torchvision.models import shufflenetv2

    def forward(self, x):
        # torchvision's InvertedResidual.forward with x.chunk(2, dim=1)
        # written as a split of static sizes: PyTorch 1.13 exports chunk as
        # Shape/Gather/Slice arithmetic; older exporters, whose models users
        # still bring, wrote Split with `split` (what this test is for).
        if self.stride == 1:
            half = self.branch2[0].in_channels
            x1, x2 = x.split([half, half], dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return shufflenetv2.channel_shuffle(out, 2)

    torch.manual_seed(0)
    net = torchvision.models.shufflenet_v2_x0_5(weights=None)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 2.0)
            if isinstance(m, shufflenetv2.InvertedResidual):
                m.forward = forward.__get__(m)
        # Logits of size 1 rather than 0.1, so that errors show against
        # max(1, |reference|).
        net.fc.weight.mul_(10.0)
    net.eval()
    size = 224 if full else 64
    x = rng.standard_normal((1, 3, size, size)).astype(np.float32)
    buffer = io.BytesIO()
    torch.onnx.export(net, torch.from_numpy(x), buffer, opset_version=11,
                      input_names=["x"], output_names=["logits"],
                      do_constant_folding=True)
    model = onnx.load_from_string(buffer.getvalue())
    nodes = model.graph.node
    consts = {n.output[0]: nh.to_array(n.attribute[0].t)
              for n in nodes if n.op_type == "Constant"}
    attr = lambda n, name: next((h.get_attribute_value(a) for a in n.attribute
                                 if a.name == name), None)
    splits = [n for n in nodes if n.op_type == "Split"]
    assert splits and all(attr(n, "split") for n in splits), "no Split"
    assert any(n.op_type == "Reshape" and consts.get(n.input[1]) is not None
               and consts[n.input[1]].size == 5 for n in nodes), "no shuffle"
    assert any(n.op_type == "Transpose" for n in nodes), "no shuffle"
    assert any(n.op_type == "Conv" and (attr(n, "group") or 1) > 1
               and attr(n, "strides") == [2, 2]
               and attr(n, "kernel_shape") == [3, 3]
               for n in nodes), "no stride-2 depthwise convolution"
    return model, x


def build_fp16(full, rng):
    size = 1024 if full else 64
    widths = (16, 32, 64, 128)
    g = Graph()
    f16 = np.float16

    def conv(x, cin, cout, k, stride=1, bias=True):
        fan_in = cin * k * k
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / fan_in)
        inputs = [x, g.const("w", w.astype(f16))]
        if bias:
            inputs.append(g.const("b", (rng.standard_normal(cout)
                                        * 0.1).astype(f16)))
        return g.op("Conv", inputs, kernel_shape=[k, k],
                    strides=[stride, stride], pads=[k // 2] * 4)

    def conv_bn_relu(x, cin, cout, k, stride=1, folded=True):
        y = conv(x, cin, cout, k, stride, bias=folded)
        if not folded:
            y = batch_norm(g, rng, y, cout, dtype=f16)
        return g.op("Relu", [y])

    def upsample(x):
        up = g.op("Cast", [x], base="to_f32", to=T.FLOAT)
        up = g.op("Resize", [up, "", g.const(
            "scales", np.array([1, 1, 2, 2], np.float32))],
            mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
        return g.op("Cast", [up], base="to_f16", to=T.FLOAT16)

    x16 = g.op("Cast", ["x"], base="x_f16", to=T.FLOAT16)
    e1 = conv_bn_relu(x16, 3, widths[0], 3)
    e2 = conv_bn_relu(e1, widths[0], widths[1], 3, 2, folded=False)
    e3 = conv_bn_relu(e2, widths[1], widths[2], 3, 2)
    e4 = conv_bn_relu(e3, widths[2], widths[3], 3, 2)
    b = conv_bn_relu(e4, widths[3], widths[3], 3, folded=False)

    d = b
    for level, skip in ((2, e3), (1, e2), (0, e1)):
        wide, narrow = widths[level + 1], widths[level]
        d = conv_bn_relu(d, wide, narrow, 1)
        d = g.op("Concat", [upsample(d), skip], axis=1)
        d = conv_bn_relu(d, 2 * narrow, narrow, 3, folded=(level == 1))
    logits = conv(d, widths[0], 1, 1)
    prob = g.op("Sigmoid", [logits])
    g.op("Cast", [prob], output="mask", to=T.FLOAT)

    graph = h.make_graph(
        g.nodes, "fp16_segmentation",
        [h.make_tensor_value_info("x", T.FLOAT, [1, 3, size, size])],
        [h.make_tensor_value_info("mask", T.FLOAT, [1, 1, size, size])],
        g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    x = rng.standard_normal((1, 3, size, size)).astype(np.float32)
    return model, x


def quantize_weight(w):
    """uint8 per-tensor asymmetric, as quantize_dynamic does: the range
    extended to hold 0, scale = range / 255, zero point round(-min / scale)."""
    lo, hi = min(0.0, float(w.min())), max(0.0, float(w.max()))
    scale = np.float32((hi - lo) / 255.0)
    zero = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
    q = np.clip(np.rint(w / scale) + zero, 0, 255).astype(np.uint8)
    return q, scale, zero


def build_dynquant(full, rng):
    side = 1024 if full else 64
    size = side  # of the current layer's output
    layers = [  # (cin, cout, kernel, stride)
        (3, 32, 3, 2), (32, 64, 3, 1), (64, 64, 1, 1),
        (64, 128, 3, 2), (128, 128, 3, 1), (128, 64, 1, 1)]
    g = Graph()
    x = "x"
    for i, (cin, cout, k, stride) in enumerate(layers):
        fan_in = cin * k * k
        w = (rng.standard_normal((cout, cin, k, k))
             * np.sqrt(2.0 / fan_in)).astype(np.float32)
        bias = (rng.standard_normal(cout) * 0.1).astype(np.float32)
        wq, ws, wz = quantize_weight(w)
        conv = f"conv{i}"
        out = f"{conv}_out" if i + 1 < len(layers) else "y"
        wq_name, ws_name, wz_name = (f"{conv}.weight_quantized",
                                     f"{conv}.weight_scale",
                                     f"{conv}.weight_zero_point")
        g.inits += [nh.from_array(wq, wq_name),
                    nh.from_array(np.array(ws), ws_name),
                    nh.from_array(np.array(wz), wz_name),
                    nh.from_array(bias, f"{conv}.bias"),
                    nh.from_array(np.array([1, -1, 1, 1], np.int64),
                                  f"{out}_bias_reshape_shape")]
        xq, xs, xz = f"{x}_quantized", f"{x}_scale", f"{x}_zero_point"
        g.nodes += [
            h.make_node("DynamicQuantizeLinear", [x], [xq, xs, xz],
                        name=f"{x}_QuantizeLinear"),
            h.make_node("ConvInteger", [xq, wq_name, xz, wz_name],
                        [f"{out}_output_quantized"], name=f"{conv}_quant",
                        kernel_shape=[k, k], strides=[stride, stride],
                        pads=[k // 2] * 4),
            h.make_node("Cast", [f"{out}_output_quantized"],
                        [f"{out}_output_quantized_cast_output"],
                        name=f"{out}_output_quantized_cast", to=T.FLOAT),
            h.make_node("Mul", [xs, ws_name],
                        [f"{conv}_quant_scales_mul:0"],
                        name=f"{conv}_quant_scales_mul"),
            h.make_node("Mul", [f"{out}_output_quantized_cast_output",
                                f"{conv}_quant_scales_mul:0"],
                        [f"{out}quant_scaled_output"],
                        name=f"{conv}_quant_output_scale_mul"),
            h.make_node("Reshape", [f"{conv}.bias",
                                    f"{out}_bias_reshape_shape"],
                        [f"{out}_bias_reshape_output"]),
            h.make_node("Add", [f"{out}quant_scaled_output",
                                f"{out}_bias_reshape_output"], [out],
                        name=f"{out}_bias_add")]
        if out != "y":
            x = f"relu{i}_out"
            g.nodes.append(h.make_node("Relu", [out], [x], name=f"relu{i}"))
        size = (size + stride - 1) // stride
    graph = h.make_graph(
        g.nodes, "dynquant",
        [h.make_tensor_value_info("x", T.FLOAT, [1, 3, side, side])],
        [h.make_tensor_value_info("y", T.FLOAT,
                                  [1, layers[-1][1], size, size])], g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 11)])
    x = rng.standard_normal((1, 3, side, side)).astype(np.float32)
    return model, x


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("cls", choices=CLASSES, metavar="CLASS")
    parser.add_argument("--full", action="store_true",
                        help="the size users run the model at")
    args = parser.parse_args()
    rng = np.random.default_rng(
        {c: k for k, c in enumerate(CLASSES)}[args.cls])
    model, x = globals()["build_" + args.cls](args.full, rng)
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(args.outdir, exist_ok=True)
    onnx.save(model, os.path.join(args.outdir, args.cls + ".onnx"))
    np.save(os.path.join(args.outdir, args.cls + "_x.npy"), x)


if __name__ == "__main__":
    main()
