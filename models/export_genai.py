#!/usr/bin/python3
# ===- export_genai.py - A decoder in ONNX Runtime GenAI's layout ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Writes, with onnx.helper, a Llama-style decoder built from the contrib ops
# ONNX Runtime GenAI's model builder emits:
#
#   SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization (RMSNorm
#   with the residual add fused), MatMulNBits (4-bit block-quantized
#   weights, or plain MatMul with --bits 0), GroupQueryAttention with
#   rotary embeddings (do_rotary, cos/sin caches), SiLU-gated MLP.
#
#   inputs   input_ids [batch, seq] int64, attention_mask [batch, total]
#            int64, past_key_values.{i}.{key,value} [batch, kv_heads, past,
#            head_dim]
#   outputs  logits [batch, seq, vocab],
#            present.{i}.{key,value} [batch, kv_heads, total, head_dim]
#
# seqlens_k and total_sequence_length are computed from the attention mask
# inside the graph, as the model builder does. Random weights from a fixed
# seed (nothing is downloaded); ONNX Runtime runs the file as the reference.
#
#   /usr/bin/python3 models/export_genai.py OUT.onnx [--size tiny|small]
#       [--bits 4|8|0] [--block 32]
#
# ===--------------------------------------------------------------------=== #

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = {
    # layers, hidden, heads, kv heads, ffn, vocab, max positions
    "tiny": (2, 64, 4, 2, 160, 256, 512),
    "small": (8, 512, 8, 2, 1376, 32000, 4096),
}
MS = "com.microsoft"


class Builder:
    def __init__(self, bits, block, seed):
        self.nodes, self.inits = [], []
        self.bits, self.block = bits, block
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def init(self, base, array):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs=1, domain="", **attrs):
        names = [self.name(op.lower()) for _ in range(outputs)] \
            if isinstance(outputs, int) else outputs
        if op == "SkipSimplifiedLayerNormalization":
            names[1:3] = ["", ""]  # mean and inv_std_var, unread
        self.nodes.append(helper.make_node(op, inputs, names,
                                           name=self.name(op), domain=domain,
                                           **attrs))
        return names[0] if len(names) == 1 else names

    def linear(self, x, k, n):
        """x [.., k] times a [k, n] weight of scale 1/sqrt(k)."""
        w = (self.rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        if not self.bits:
            return self.node("MatMul", [x, self.init("w", w)])
        # Blockwise asymmetric quantization of each output column along k.
        bits, block = self.bits, self.block
        blocks = -(-k // block)
        padded = np.zeros((n, blocks * block), np.float32)
        padded[:, :k] = w.T
        padded = padded.reshape(n, blocks, block)
        lo, hi = padded.min(-1), padded.max(-1)
        top = (1 << bits) - 1
        scale = np.maximum(hi - lo, 1e-6) / top
        zero = np.clip(np.round(-lo / scale), 0, top)
        q = np.clip(np.round(padded / scale[..., None] + zero[..., None]),
                    0, top).astype(np.uint8)
        per = 8 // bits
        packed = np.zeros((n, blocks, block // per), np.uint8)
        for i in range(per):
            packed |= q[..., i::per] << (i * bits)
        zpad = np.zeros((n, -(-blocks // per) * per), np.uint8)
        zpad[:, :blocks] = zero
        zpacked = np.zeros((n, zpad.shape[1] // per), np.uint8)
        for i in range(per):
            zpacked |= zpad[:, i::per] << (i * bits)
        return self.node(
            "MatMulNBits",
            [x, self.init("qweight", packed),
             self.init("scales", scale.astype(np.float32).reshape(-1)),
             self.init("zeros", zpacked.reshape(-1))],
            domain=MS, K=k, N=n, bits=bits, block_size=block)

    def norm_weight(self, d):
        return self.init("norm", (1 + 0.1 * self.rng.standard_normal(d))
                         .astype(np.float32))


def build(size="tiny", bits=4, block=32, seed=0):
    layers, d, heads, kv_heads, ffn, vocab, max_pos = SIZES[size]
    head = d // heads
    b = Builder(bits, block, seed)
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                      ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                      ["batch", "total"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch", "seq", vocab])]
    # The model builder's seqlens_k (tokens so far - 1) and total length.
    summed = b.node("ReduceSum", ["attention_mask", b.init(
        "axes", np.array([1], np.int64))], keepdims=0)
    seqlens = b.node("Cast", [b.node("Sub", [summed, b.init(
        "one", np.array(1, np.int64))])], to=TensorProto.INT32)
    total = b.node("Cast", [b.node("Gather", [
        b.node("Shape", ["attention_mask"]),
        b.init("index", np.array(1, np.int64))])], to=TensorProto.INT32)
    angles = np.arange(max_pos)[:, None] / \
        (10000.0 ** (np.arange(0, head, 2) / head))
    cos = b.init("cos_cache", np.cos(angles).astype(np.float32))
    sin = b.init("sin_cache", np.sin(angles).astype(np.float32))
    x = b.node("Gather", [b.init("embed", (0.5 * b.rng.standard_normal(
        (vocab, d))).astype(np.float32)), "input_ids"])
    residual, hidden = None, x
    for i in range(layers):
        past_k, past_v = (f"past_key_values.{i}.key",
                          f"past_key_values.{i}.value")
        present_k, present_v = f"present.{i}.key", f"present.{i}.value"
        for name in (past_k, past_v):
            inputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, ["batch", kv_heads, "past", head]))
        for name in (present_k, present_v):
            outputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, ["batch", kv_heads, "total", head]))
        if residual is None:
            normed = b.node("SimplifiedLayerNormalization",
                            [hidden, b.norm_weight(d)], epsilon=1e-6)
            residual = hidden
        else:
            normed, _, _, residual = b.node(
                "SkipSimplifiedLayerNormalization",
                [hidden, residual, b.norm_weight(d)], outputs=4, domain=MS,
                epsilon=1e-6)
        q = b.linear(normed, d, heads * head)
        k = b.linear(normed, d, kv_heads * head)
        v = b.linear(normed, d, kv_heads * head)
        attn = b.node("GroupQueryAttention",
                      [q, k, v, past_k, past_v, seqlens, total, cos, sin],
                      outputs=[b.name("attn"), present_k, present_v],
                      domain=MS, num_heads=heads, kv_num_heads=kv_heads,
                      do_rotary=1)[0]
        out = b.linear(attn, heads * head, d)
        normed, _, _, residual = b.node(
            "SkipSimplifiedLayerNormalization",
            [out, residual, b.norm_weight(d)], outputs=4, domain=MS,
            epsilon=1e-6)
        gate = b.linear(normed, d, ffn)
        up = b.linear(normed, d, ffn)
        silu = b.node("Mul", [gate, b.node("Sigmoid", [gate])])
        hidden = b.linear(b.node("Mul", [silu, up]), ffn, d)
    normed = b.node("SkipSimplifiedLayerNormalization",
                    [hidden, residual, b.norm_weight(d)], outputs=4,
                    domain=MS, epsilon=1e-6)[0]
    logits = b.linear(normed, d, vocab)
    b.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    graph = helper.make_graph(b.nodes, "decoder", inputs, outputs, b.inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
        producer_name="mlc export_genai.py")
    model.ir_version = 8
    return model


def export(path, size="tiny", bits=4, block=32):
    model = build(size, bits, block)
    onnx.save(model, path)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output")
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--bits", type=int, choices=[0, 4, 8], default=4)
    parser.add_argument("--block", type=int, default=32)
    args = parser.parse_args()
    export(args.output, args.size, args.bits, args.block)


if __name__ == "__main__":
    main()
