#!/usr/bin/python3
# ===- export_decoder.py - A Llama-style decoder with a KV cache ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Exports a Llama-style decoder (RMSNorm, rotary position embeddings,
# grouped-query attention, SwiGLU) with PyTorch's exporter, in the layout
# Hugging Face Optimum's exports use:
#
#   inputs   input_ids [batch, seq] int64, attention_mask [batch, past + seq]
#            int64, position_ids [batch, seq] int64,
#            past_key_values.{i}.{key,value} [batch, kv_heads, past, head_dim]
#   outputs  logits [batch, seq, vocab],
#            present.{i}.{key,value} [batch, kv_heads, past + seq, head_dim]
#
# with symbolic `batch`, `seq`, `past` and `total` (= past + seq). The causal
# mask is built as the Llama code builds it (a triangle of the full mask,
# Trilu, expanded over the batch), and the key and value heads are repeated
# for the query heads with Expand: the ops such exports are made of. Random
# weights from a fixed seed (nothing is downloaded).
#
#   /usr/bin/python3 models/export_decoder.py OUT.onnx [--size tiny|small]
#       [--arch llama|gpt2]
#
# `--arch gpt2` exports a GPT-2-style decoder instead (LayerNorm, learned
# positions, one biased QKV projection, full multi-head attention, GELU,
# the output projection tied to the token embeddings), same layout.
#
# `tiny` (2 layers, 64 wide) is for tests; `small` (8 layers, 512 wide,
# 32000-token vocabulary, 55M parameters) is for benchmarks.
#
# ===--------------------------------------------------------------------=== #

import argparse
import math

import torch
import torch.nn as nn

SIZES = {
    # layers, hidden, heads, kv heads, ffn, vocab
    "tiny": (2, 64, 4, 2, 160, 256),
    "small": (8, 512, 8, 2, 1376, 32000),
}


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * \
            self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, d // heads
        self.q = nn.Linear(d, heads * self.dim, bias=False)
        self.k = nn.Linear(d, kv_heads * self.dim, bias=False)
        self.v = nn.Linear(d, kv_heads * self.dim, bias=False)
        self.o = nn.Linear(heads * self.dim, d, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.dim).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv_heads, self.dim).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv_heads, self.dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        present = (k, v)
        # Grouped-query attention: each key/value head serves
        # heads / kv_heads query heads (Llama's repeat_kv).
        groups = self.heads // self.kv_heads
        t = k.shape[2]
        k = k[:, :, None].expand(b, self.kv_heads, groups, t, self.dim) \
            .reshape(b, self.heads, t, self.dim)
        v = v[:, :, None].expand(b, self.kv_heads, groups, t, self.dim) \
            .reshape(b, self.heads, t, self.dim)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dim) + mask
        ctx = scores.softmax(-1) @ v
        return self.o(ctx.transpose(1, 2).reshape(b, s, -1)), present


class Layer(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn):
        super().__init__()
        self.norm1 = RMSNorm(d)
        self.attention = Attention(d, heads, kv_heads)
        self.norm2 = RMSNorm(d)
        self.gate = nn.Linear(d, ffn, bias=False)
        self.up = nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        h, present = self.attention(self.norm1(x), cos, sin, mask, past_k,
                                    past_v)
        x = x + h
        y = self.norm2(x)
        y = self.down(nn.functional.silu(self.gate(y)) * self.up(y))
        return x + y, present


class Decoder(nn.Module):
    def __init__(self, layers, d, heads, kv_heads, ffn, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(
            [Layer(d, heads, kv_heads, ffn) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        dim = d // heads
        self.register_buffer(
            "inv_freq",
            1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    def forward(self, input_ids, attention_mask, position_ids, *past):
        b, s = input_ids.shape
        total = attention_mask.shape[1]
        x = self.embed(input_ids)
        freqs = position_ids[..., None].float() * self.inv_freq
        angles = torch.cat([freqs, freqs], dim=-1)[:, None]
        cos, sin = angles.cos(), angles.sin()
        # The causal mask: a new token sees the past and the tokens up to
        # itself, and no padded position of attention_mask.
        minimum = torch.finfo(torch.float32).min
        causal = torch.full((s, total), minimum).triu(total - s + 1)
        mask = causal[None, None].expand(b, 1, s, total)
        padding = (1.0 - attention_mask[:, None, None, :].float()) * minimum
        mask = mask + padding
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.head(self.norm(x)), *presents)


class GPT2Layer(nn.Module):
    """GPT-2's block: LayerNorm before a multi-head attention whose Q, K
    and V come from one biased projection, and before a GELU MLP."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads, self.dim = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x, mask, past_k, past_v):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.dim).transpose(1, 2)
                   for t in (q, k, v))
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dim) + mask
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(ctx)
        y = self.out(nn.functional.gelu(self.fc(self.ln2(x)),
                                        approximate="tanh"))
        return x + y, (k, v)


class GPT2Decoder(nn.Module):
    """GPT-2: learned position embeddings, the output projection tied to
    the token embeddings."""

    def __init__(self, layers, d, heads, ffn, vocab, positions=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(positions, d)
        self.layers = nn.ModuleList(
            [GPT2Layer(d, heads, ffn) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        b, s = input_ids.shape
        total = attention_mask.shape[1]
        x = self.wte(input_ids) + self.wpe(position_ids)
        minimum = torch.finfo(torch.float32).min
        causal = torch.full((s, total), minimum).triu(total - s + 1)
        mask = causal[None, None] + \
            (1.0 - attention_mask[:, None, None, :].float()) * minimum
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, mask, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.ln(x) @ self.wte.weight.t(), *presents)


def export(path, size, opset=14, arch="llama"):
    torch.manual_seed(0)
    layers, d, heads, kv_heads, ffn, vocab = SIZES[size]
    if arch == "gpt2":
        kv_heads, ffn = heads, 4 * d
        model = GPT2Decoder(layers, d, heads, ffn, vocab).eval()
    else:
        model = Decoder(layers, d, heads, kv_heads, ffn, vocab).eval()
    b, s, past, dim = 1, 3, 2, d // heads
    example = (torch.randint(0, vocab, (b, s)),
               torch.ones(b, past + s, dtype=torch.int64),
               torch.arange(past, past + s)[None])
    cache = []
    names_in = ["input_ids", "attention_mask", "position_ids"]
    names_out = ["logits"]
    axes = {"input_ids": {0: "batch", 1: "seq"},
            "attention_mask": {0: "batch", 1: "total"},
            "position_ids": {0: "batch", 1: "seq"},
            "logits": {0: "batch", 1: "seq"}}
    for i in range(layers):
        for kind in ("key", "value"):
            cache.append(torch.randn(b, kv_heads, past, dim))
            names_in.append(f"past_key_values.{i}.{kind}")
            names_out.append(f"present.{i}.{kind}")
            axes[names_in[-1]] = {0: "batch", 2: "past"}
            axes[names_out[-1]] = {0: "batch", 2: "total"}
    with torch.no_grad():
        torch.onnx.export(model, (*example, *cache), path,
                          input_names=names_in, output_names=names_out,
                          dynamic_axes=axes, opset_version=opset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--opset", type=int, default=14)
    parser.add_argument("--arch", choices=["llama", "gpt2"], default="llama")
    args = parser.parse_args()
    export(args.output, args.size, args.opset, args.arch)


if __name__ == "__main__":
    main()
