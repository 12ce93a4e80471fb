#!/usr/bin/python3
# ===- export_torch_models.py - Export real models from PyTorch -----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Exports torchvision and transformer models to ONNX with PyTorch's exporter,
# random weights from a fixed seed (nothing is downloaded):
#
#   /usr/bin/python3 models/export_torch_models.py OUTDIR --opset 13 [NAME...]
#       [--dynamic]
#
# writes OUTDIR/NAME-opsetN.onnx, or with --dynamic OUTDIR/NAME-opsetN-dynamic.onnx
# with a symbolic batch dim `batch` on every input and output (and a
# symbolic `seq` on the transformers' inputs). Needs Debian's python3-torch
# and python3-torchvision.
#
# ===--------------------------------------------------------------------=== #

import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torchvision


class BertLayer(nn.Module):
    """One post-norm BERT encoder layer, spelled out as exporters see it."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x, mask):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, s, h, d // h).transpose(1, 2)
        k = k.reshape(b, s, h, d // h).transpose(1, 2)
        v = v.reshape(b, s, h, d // h).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h) + mask
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.out(ctx))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    def __init__(self, layers, d, heads, ff, vocab=30522, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList(BertLayer(d, heads, ff)
                                    for _ in range(layers))

    def forward(self, ids, attention_mask):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos))
        mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(),
                                 nn.Linear(256, 10))

    def forward(self, x):
        return self.net(x)


def vit_b_16():
    """ViT-B/16 with a random classifier: torchvision initializes the head
    to zeros, which would make every output 0 and any comparison vacuous."""
    model = torchvision.models.vit_b_16()
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    torch.nn.init.normal_(model.heads.head.bias, std=0.02)
    return model


def with_batch_statistics(model):
    """`model` with batch-norm statistics taken from random batches. With
    torchvision's initial statistics (mean 0, variance 1) the signal of the
    mobile networks decays through their depthwise blocks to outputs near
    1e-9 (MobileNetV2, MobileNetV3-small) or 1e-14 (EfficientNet-B0), where
    intermediates lose float32 resolution or become denormal, which makes
    comparisons weak and timings unrepresentative."""
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, 224, 224))
    return model


def image(size=224):
    return (torch.randn(1, 3, size, size),), ["input"]


def bert_inputs(seq=128):
    ids = torch.randint(0, 30522, (1, seq))
    return (ids, torch.ones(1, seq, dtype=torch.int64)), ["input_ids",
                                                          "attention_mask"]


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), image),
    "resnet50": (lambda: torchvision.models.resnet50(), image),
    "mobilenet_v2": (lambda: with_batch_statistics(
        torchvision.models.mobilenet_v2()), image),
    "mobilenet_v3_small": (lambda: with_batch_statistics(
        torchvision.models.mobilenet_v3_small()), image),
    "efficientnet_b0": (lambda: with_batch_statistics(
        torchvision.models.efficientnet_b0()), image),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), image),
    "vit_b_16": (vit_b_16, image),
    "bert_base": (lambda: BertEncoder(12, 768, 12, 3072), bert_inputs),
    "bert_small": (lambda: BertEncoder(4, 256, 4, 1024), bert_inputs),
    "mlp": (MLP, lambda: ((torch.randn(1, 1, 28, 28),), ["input"])),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("names", nargs="*", default=list(MODELS))
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--dynamic", action="store_true",
                        help="symbolic batch (and sequence) dims")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.names:
        if name not in MODELS:
            print(f"unknown model '{name}'; known: {', '.join(MODELS)}")
            return 1
        torch.manual_seed(0)
        make, inputs = MODELS[name]
        model = make().eval()
        example, input_names = inputs()
        suffix = "-dynamic" if args.dynamic else ""
        path = os.path.join(args.outdir,
                            f"{name}-opset{args.opset}{suffix}.onnx")
        axes = None
        if args.dynamic:
            sequence = name.startswith("bert")
            axes = {n: {0: "batch", 1: "seq"} if sequence else {0: "batch"}
                    for n in input_names}
            axes["output"] = {0: "batch", 1: "seq"} if sequence else {0: "batch"}
        # Not under no_grad: with gradients off, nn.MultiheadAttention takes
        # a fused fast path that the exporter cannot express (ViT).
        torch.onnx.export(model, example, path, opset_version=args.opset,
                          input_names=input_names, output_names=["output"],
                          dynamic_axes=axes, do_constant_folding=True)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
