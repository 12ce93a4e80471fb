# ===- contrib_ops.py - com.microsoft contrib ops against ONNX Runtime ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   contrib_ops.py WORKDIR [CASE...]
#
# Writes one small model per case with onnx.helper, each using one contrib
# op the way ONNX Runtime's exporters write it (GenAI's model builder, the
# transformer optimizer, the MatMulNBits quantizer), compiles it with mlc
# (symbolic batch and sequence where the op allows them), runs it on seeded
# random inputs and compares every output with ONNX Runtime's own kernel on
# the same inputs. Prints "CASE: ok (max error E)" or what differs, then
# the errors mlc gives for malformed nodes.
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import mlc  # noqa: E402
from mlc import comparison  # noqa: E402

F32 = TensorProto.FLOAT
MS = "com.microsoft"
RNG = np.random.default_rng(11)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def tensor(name, dims, elem=F32):
    return helper.make_tensor_value_info(name, elem, dims)


def make_model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              [numpy_helper.from_array(v, k)
                               for k, v in dict(inits).items()])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# --- normalization, activations, bias ------------------------------------


@case
def simplified_layer_norm():
    # GenAI's model builder writes it in the ai.onnx domain, where ONNX
    # Runtime registers it.
    node = helper.make_node("SimplifiedLayerNormalization", ["x", "g"],
                            ["y"], epsilon=1e-6, axis=-1)
    m = make_model([node], [tensor("x", ["B", "S", 64])],
                   [tensor("y", ["B", "S", 64])], {"g": randn(64)})
    return m, {"x": randn(2, 7, 64)}


@case
def skip_simplified_layer_norm():
    node = helper.make_node(
        "SkipSimplifiedLayerNormalization", ["x", "skip", "g", "bias"],
        ["y", "", "", "sum"], domain=MS, epsilon=1e-5)
    m = make_model([node], [tensor("x", ["B", "S", 48]),
                            tensor("skip", ["B", "S", 48])],
                   [tensor("y", ["B", "S", 48]), tensor("sum", ["B", "S", 48])],
                   {"g": randn(48), "bias": randn(48)})
    return m, {"x": randn(2, 5, 48), "skip": randn(2, 5, 48)}


@case
def skip_layer_norm():
    node = helper.make_node(
        "SkipLayerNormalization", ["x", "skip", "g", "b", "bias"],
        ["y", "", "", "sum"], domain=MS, epsilon=1e-12)
    m = make_model([node], [tensor("x", ["B", "S", 32]),
                            tensor("skip", ["B", "S", 32])],
                   [tensor("y", ["B", "S", 32]), tensor("sum", ["B", "S", 32])],
                   {"g": randn(32), "b": randn(32), "bias": randn(32)})
    return m, {"x": randn(3, 4, 32), "skip": randn(3, 4, 32)}


@case
def skip_layer_norm_no_bias():
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "g"],
                            ["y"], domain=MS)
    m = make_model([node], [tensor("x", ["B", "S", 32]),
                            tensor("skip", ["B", "S", 32])],
                   [tensor("y", ["B", "S", 32])], {"g": randn(32)})
    return m, {"x": randn(1, 9, 32), "skip": randn(1, 9, 32)}


def activation(op, extra_inputs=(), **attrs):
    names = ["x"] + [n for n, _ in extra_inputs]
    node = helper.make_node(op, names, ["y"], domain=MS, **attrs)
    return (make_model([node], [tensor("x", ["B", 16])],
                       [tensor("y", ["B", 16])], dict(extra_inputs)),
            {"x": 3 * randn(6, 16)})


@case
def gelu():
    return activation("Gelu")


@case
def bias_gelu():
    return activation("BiasGelu", [("b", randn(16))])


@case
def fast_gelu():
    return activation("FastGelu", [("b", randn(16))])


@case
def fast_gelu_no_bias():
    return activation("FastGelu")


@case
def quick_gelu():
    return activation("QuickGelu", alpha=1.5)


@case
def bias_add():
    # ONNX Runtime implements BiasAdd for CUDA only: numpy is the reference.
    bias = randn(8)
    node = helper.make_node("BiasAdd", ["x", "b", "skip"], ["y"], domain=MS)
    m = make_model([node], [tensor("x", ["B", "S", 8]),
                            tensor("skip", ["B", "S", 8])],
                   [tensor("y", ["B", "S", 8])], {"b": bias})
    x, skip = randn(2, 3, 8), randn(2, 3, 8)
    return m, {"x": x, "skip": skip}, {"y": x + bias + skip}


# --- rotary embeddings ---------------------------------------------------


def rotary(shape, heads=0, rotary_dim=0, interleaved=0, offset=False):
    """RotaryEmbedding of an input of `shape` (3-D [B, S, hidden] or 4-D
    [B, N, S, H]); positions [B, S], or one [1] offset."""
    head = shape[-1] if len(shape) == 4 else shape[-1] // heads
    half = (rotary_dim or head) // 2
    batch, seq = shape[0], shape[1 if len(shape) == 3 else 2]
    angles = np.arange(32)[:, None] / (10000 ** (np.arange(half) / half))
    inits = {"cos": np.cos(angles).astype(np.float32),
             "sin": np.sin(angles).astype(np.float32)}
    dims = ["B", "S", shape[2]] if len(shape) == 3 else \
        ["B", shape[1], "S", shape[3]]
    attrs = dict(interleaved=interleaved)
    if heads:
        attrs["num_heads"] = heads
    if rotary_dim:
        attrs["rotary_embedding_dim"] = rotary_dim
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"],
                            ["y"], domain=MS, **attrs)
    pos_dims = [1] if offset else ["B", "S"]
    m = make_model([node], [tensor("x", dims),
                            tensor("pos", pos_dims, TensorProto.INT64)],
                   [tensor("y", dims)], inits)
    pos = (np.array([5]) if offset else
           RNG.integers(0, 32 - seq, (batch, 1)) + np.arange(seq))
    return m, {"x": randn(*shape), "pos": pos.astype(np.int64)}


@case
def rotary_3d():
    return rotary((2, 5, 64), heads=4)


@case
def rotary_3d_interleaved():
    return rotary((2, 3, 32), heads=2, interleaved=1)


@case
def rotary_4d():
    return rotary((1, 3, 6, 16))


@case
def rotary_partial_dim():
    return rotary((2, 4, 64), heads=2, rotary_dim=16)


@case
def rotary_position_offset():
    return rotary((1, 7, 32), heads=4, offset=True)


# --- attention -------------------------------------------------------------


def gqa(heads=4, kv_heads=2, head=16, packed=False, rotary=False,
        positions=False, **attrs):
    """GroupQueryAttention compiled once (symbolic batch, sequence and past
    length), run as GenAI runs it: a first prompt, then decode steps whose
    past is a cache buffer longer than the sequence, and a batch whose
    sequences have different lengths."""
    names = ["q", "" if packed else "k", "" if packed else "v", "pk", "pv",
             "seqlens_k", "total"]
    hidden = (heads + 2 * kv_heads) * head if packed else heads * head
    inputs = [tensor("q", ["B", "S", hidden])]
    if not packed:
        inputs += [tensor("k", ["B", "S", kv_heads * head]),
                   tensor("v", ["B", "S", kv_heads * head])]
    inputs += [tensor("pk", ["B", kv_heads, "P", head]),
               tensor("pv", ["B", kv_heads, "P", head]),
               tensor("seqlens_k", ["B"], TensorProto.INT32),
               tensor("total", [], TensorProto.INT32)]
    inits = {}
    if rotary:
        angles = np.arange(64)[:, None] / (10000 ** (np.arange(head // 2)
                                                     / (head // 2)))
        inits = {"cos": np.cos(angles).astype(np.float32),
                 "sin": np.sin(angles).astype(np.float32)}
        names += ["cos", "sin"]
        attrs["do_rotary"] = 1
        if positions:
            names.append("pos")
            inputs.append(tensor("pos", ["B", "S"], TensorProto.INT64))
    node = helper.make_node("GroupQueryAttention", names,
                            ["y", "present_k", "present_v"], domain=MS,
                            num_heads=heads, kv_num_heads=kv_heads, **attrs)
    m = make_model([node], inputs,
                   [tensor("y", ["B", "S", heads * head]),
                    tensor("present_k", ["B", kv_heads, "T", head]),
                    tensor("present_v", ["B", kv_heads, "T", head])], inits)

    def step(batch, seq, past, lengths):
        lengths = np.array(lengths, np.int32)
        feed = {"q": randn(batch, seq, hidden),
                "pk": randn(batch, kv_heads, past, head),
                "pv": randn(batch, kv_heads, past, head),
                "seqlens_k": lengths - 1,
                "total": np.array(lengths.max(), np.int32)}
        if not packed:
            feed["k"] = randn(batch, seq, kv_heads * head)
            feed["v"] = randn(batch, seq, kv_heads * head)
        if positions:
            feed["pos"] = (lengths[:, None] - seq +
                           np.arange(seq)).astype(np.int64)
        return feed
    # A first prompt (empty past) of one sequence and of two; one token
    # after 6 (a past as long as the cache so far); one token into a cache
    # buffer of 16 rows; a batch of two with 7 and 4 tokens so far; three
    # more tokens of a prompt after 4.
    return m, [step(1, 5, 0, [5]), step(2, 4, 0, [4, 4]),
               step(1, 1, 6, [7]), step(1, 1, 16, [10]),
               step(2, 1, 6, [7, 4]), step(1, 3, 4, [7])]


@case
def group_query_attention():
    return gqa()


@case
def group_query_attention_rotary():
    return gqa(rotary=True)


@case
def group_query_attention_rotary_positions():
    return gqa(rotary=True, positions=True, rotary_interleaved=1)


@case
def group_query_attention_packed():
    return gqa(heads=2, kv_heads=1, packed=True)


@case
def group_query_attention_window_softcap():
    return gqa(heads=4, kv_heads=4, local_window_size=3, softcap=2.0,
               smooth_softmax=1)


def past_cache(batch, heads, length, head):
    """Random past keys and values [B, heads, past, head size]."""
    return {"pk": randn(batch, heads, length, head),
            "pv": randn(batch, heads, length, head)}


def key_mask(kind, batch, total):
    """A key mask of ONNX Runtime's formats: key counts [B] ('lengths') or
    0/1 [B, T] ('raw'), every sequence seeing its first key."""
    if kind == "lengths":
        return {"mask": RNG.integers(1, total + 1, batch).astype(np.int32)}
    if kind == "raw":
        mask = (RNG.random((batch, total)) > 0.3).astype(np.int32)
        mask[:, 0] = 1
        return {"mask": mask}
    return {}


def mha(cross=False, mask=None, past=False, bias=False, **attrs):
    """MultiHeadAttention, N = 2 heads of 8: self-attention over 3-D keys
    (with a past appended) or cross-attention over keys already split in
    heads; a key mask of lengths [B] or 0/1 [B, T]."""
    heads, head = 2, 8
    d = heads * head
    names = ["q", "k", "v", "bias" if bias else "",
             "mask" if mask else "", "", "pk" if past else "",
             "pv" if past else ""]
    kv_dims = ["B", heads, "L", head] if cross else ["B", "L", d]
    inputs = [tensor("q", ["B", "S", d]), tensor("k", kv_dims),
              tensor("v", kv_dims)]
    if mask == "lengths":
        inputs.append(tensor("mask", ["B"], TensorProto.INT32))
    elif mask == "raw":
        inputs.append(tensor("mask", ["B", "T"], TensorProto.INT32))
    if past:
        inputs += [tensor("pk", ["B", heads, "P", head]),
                   tensor("pv", ["B", heads, "P", head])]
    outputs = [tensor("y", ["B", "S", d])]
    if past:
        outputs += [tensor("present_k", ["B", heads, "T", head]),
                    tensor("present_v", ["B", heads, "T", head])]
    node = helper.make_node("MultiHeadAttention", names,
                            [o.name for o in outputs], domain=MS,
                            num_heads=heads, **attrs)
    m = make_model([node], inputs, outputs,
                   {"bias": randn(3 * d)} if bias else {})

    def step(batch, seq, keys, past_len):
        feed = {"q": randn(batch, seq, d)}
        shape = (batch, heads, keys, head) if cross else (batch, keys, d)
        feed["k"], feed["v"] = randn(*shape), randn(*shape)
        feed.update(key_mask(mask, batch, keys + past_len))
        if past:
            feed.update(past_cache(batch, heads, past_len, head))
        return feed
    if past:
        return m, [step(2, 4, 4, 0), step(2, 1, 1, 4), step(1, 3, 3, 5)]
    return m, [step(2, 4, 6, 0), step(1, 1, 3, 0)]


@case
def multi_head_attention_past_causal():
    return mha(past=True, mask="raw", unidirectional=1)


@case
def multi_head_attention_bias_lengths():
    return mha(bias=True, mask="lengths", scale=0.3)


@case
def multi_head_attention_cross():
    return mha(cross=True)


def bert_attention(mask=None, past=False, **attrs):
    """Attention (the BERT/GPT-2 op): Q, K, V from one projection."""
    heads, din, d = 2, 12, 16
    names = ["x", "w", "b", "mask" if mask else "", "past" if past else ""]
    inputs = [tensor("x", ["B", "S", din])]
    if mask == "lengths":
        inputs.append(tensor("mask", ["B"], TensorProto.INT32))
    elif mask == "raw":
        inputs.append(tensor("mask", ["B", "T"], TensorProto.INT32))
    if past:
        inputs.append(tensor("past", [2, "B", heads, "P", d // heads]))
    outputs = [tensor("y", ["B", "S", d])]
    if past:
        outputs.append(tensor("present", [2, "B", heads, "T", d // heads]))
    node = helper.make_node("Attention", names, [o.name for o in outputs],
                            domain=MS, num_heads=heads, **attrs)
    m = make_model([node], inputs, outputs,
                   {"w": randn(din, 3 * d) * 0.3, "b": randn(3 * d)})

    def step(batch, seq, past_len):
        feed = {"x": randn(batch, seq, din)}
        feed.update(key_mask(mask, batch, seq + past_len))
        if past:
            feed["past"] = randn(2, batch, heads, past_len, d // heads)
        return feed
    if past:
        return m, [step(2, 3, 0), step(2, 1, 3), step(1, 2, 6)]
    return m, [step(2, 5, 0), step(3, 2, 0)]


@case
def attention_bert_mask():
    return bert_attention(mask="raw")


@case
def attention_bert_lengths():
    return bert_attention(mask="lengths")


@case
def attention_gpt2_past():
    return bert_attention(past=True, unidirectional=1)


# --- ai.onnx opset 23 -----------------------------------------------------


def onnx23(nodes, inputs, outputs, inits=()):
    return make_model(nodes, inputs, outputs, inits, opset=23)


@case
def rms_normalization_23():
    node = helper.make_node("RMSNormalization", ["x", "g"], ["y"],
                            epsilon=1e-6, axis=-1)
    return (onnx23([node], [tensor("x", ["B", "S", 32])],
                   [tensor("y", ["B", "S", 32])], {"g": randn(32)}),
            {"x": randn(2, 3, 32)})


@case
def rotary_embedding_23():
    # 4-D [B, N, S, H], positions [B, S] into caches of [positions, H/2].
    half = 8
    angles = np.arange(16)[:, None] / (10000 ** (np.arange(half) / half))
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"],
                            ["y"], interleaved=1)
    m = onnx23([node], [tensor("x", ["B", 2, "S", 16]),
                        tensor("pos", ["B", "S"], TensorProto.INT64)],
               [tensor("y", ["B", 2, "S", 16])],
               {"cos": np.cos(angles).astype(np.float32),
                "sin": np.sin(angles).astype(np.float32)})
    pos = RNG.integers(0, 10, (2, 1)) + np.arange(4)
    return m, {"x": randn(2, 2, 4, 16), "pos": pos.astype(np.int64)}


@case
def rotary_embedding_23_caches_per_token():
    # 3-D input and no positions: caches of [B, S, rotary_dim / 2].
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"],
                            num_heads=2, rotary_embedding_dim=8)
    m = onnx23([node], [tensor("x", ["B", "S", 32]),
                        tensor("cos", ["B", "S", 4]),
                        tensor("sin", ["B", "S", 4])],
               [tensor("y", ["B", "S", 32])])
    angle = RNG.random((2, 3, 4)).astype(np.float32) * 6
    return m, {"x": randn(2, 3, 32), "cos": np.cos(angle),
               "sin": np.sin(angle)}


def attention23(three_d=False, mask=None, past=False, heads=4, kv_heads=2,
                **attrs):
    head = 8
    if three_d:
        qd, kd = ["B", "S", heads * head], ["B", "L", kv_heads * head]
        attrs.update(q_num_heads=heads, kv_num_heads=kv_heads)
    else:
        qd, kd = ["B", heads, "S", head], ["B", kv_heads, "L", head]
    names = ["q", "k", "v", "mask" if mask else "", "pk" if past else "",
             "pv" if past else ""]
    inputs = [tensor("q", qd), tensor("k", kd), tensor("v", kd)]
    if mask:
        inputs.append(tensor("mask", ["S", "T"], TensorProto.BOOL
                             if mask == "bool" else F32))
    if past:
        inputs += [tensor("pk", ["B", kv_heads, "P", head]),
                   tensor("pv", ["B", kv_heads, "P", head])]
    outputs = [tensor("y", qd[:2] + [None] * (len(qd) - 2))]
    if past:
        outputs += [tensor("present_k", ["B", kv_heads, "T", head]),
                    tensor("present_v", ["B", kv_heads, "T", head])]
    node = helper.make_node("Attention", names, [o.name for o in outputs],
                            **attrs)
    m = onnx23([node], inputs, outputs)

    def step(batch, seq, keys, past_len):
        def shaped(n, length):
            return randn(batch, length, n * head) if three_d else \
                randn(batch, n, length, head)
        feed = {"q": shaped(heads, seq), "k": shaped(kv_heads, keys),
                "v": shaped(kv_heads, keys)}
        total = keys + past_len
        if mask == "bool":
            feed["mask"] = RNG.random((seq, total)) > 0.3
            feed["mask"][:, 0] = True
        elif mask == "float":
            feed["mask"] = randn(seq, total)
        if past:
            feed.update(past_cache(batch, kv_heads, past_len, head))
        return feed
    if past:
        return m, [step(2, 3, 3, 0), step(2, 1, 1, 3), step(1, 2, 2, 5)]
    return m, [step(2, 4, 4, 0), step(1, 2, 5, 0)]


@case
def attention_23_grouped_causal_past():
    return attention23(past=True, is_causal=1)


@case
def attention_23_3d_bool_mask():
    return attention23(three_d=True, mask="bool", heads=2, kv_heads=2)


@case
def attention_23_float_mask_softcap():
    return attention23(mask="float", softcap=1.5, scale=0.5)


# --- block-quantized weights ---------------------------------------------


def pack(values, bits):
    """Packs unsigned `bits`-bit values along the last axis, low bits
    first, as ONNX Runtime's quantizers do."""
    per = 8 // bits
    pad = (-values.shape[-1]) % per
    values = np.concatenate(
        [values, np.zeros(values.shape[:-1] + (pad,), values.dtype)], -1)
    values = values.reshape(values.shape[:-1] + (-1, per)).astype(np.uint8)
    out = np.zeros(values.shape[:-1], np.uint8)
    for i in range(per):
        out |= values[..., i] << (i * bits)
    return out


def matmul_nbits(k, n, bits, block, zeros="packed", bias=False):
    blocks = -(-k // block)
    q = RNG.integers(0, 1 << bits, (n, blocks, block))
    inits = {"B": pack(q, bits),
             "scales": (RNG.random((n, blocks)) * 0.1 + 0.01)
             .astype(np.float32).reshape(-1)}
    names = ["a", "B", "scales"]
    if zeros == "packed":
        inits["zp"] = pack(RNG.integers(0, 1 << bits, (n, blocks)),
                           bits).reshape(-1)
        names.append("zp")
    elif zeros == "float":
        inits["zp"] = (RNG.random(n * blocks) * (1 << bits)).astype(np.float32)
        names.append("zp")
    if bias:
        names += ["", ""] if len(names) == 3 else [""]
        names.append("bias")
        inits["bias"] = randn(n)
    node = helper.make_node("MatMulNBits", names, ["y"], domain=MS, K=k, N=n,
                            bits=bits, block_size=block, accuracy_level=0)
    m = make_model([node], [tensor("a", ["B", "S", k])],
                   [tensor("y", ["B", "S", n])], inits)
    return m, {"a": randn(2, 3, k)}


@case
def matmul_4bits_block32():
    return matmul_nbits(64, 24, 4, 32)


@case
def matmul_4bits_no_zero_points():
    return matmul_nbits(128, 16, 4, 128, zeros=None)


@case
def matmul_4bits_block16_ragged_k():
    # K = 40 is not a multiple of the block: the last block is padded.
    return matmul_nbits(40, 8, 4, 16)


@case
def matmul_4bits_float_zero_points_bias():
    return matmul_nbits(64, 12, 4, 64, zeros="float", bias=True)


@case
def matmul_8bits():
    return matmul_nbits(96, 10, 8, 32)


@case
def matmul_2bits():
    return matmul_nbits(64, 10, 2, 32)


def gather_block_quantized(bits, block, zeros=True, hidden=64):
    """An embedding table [32, hidden] of `bits`-bit values in blocks along
    the hidden dim, gathered by token ids [B, S]."""
    vocab = 32
    blocks = -(-hidden // block)
    inits = {"data": pack(RNG.integers(0, 1 << bits, (vocab, hidden)), bits),
             "scales": (RNG.random((vocab, blocks)) * 0.1 + 0.01)
             .astype(np.float32)}
    names = ["data", "ids", "scales"]
    if zeros:
        inits["zp"] = pack(RNG.integers(0, 1 << bits, (vocab, blocks)), bits)
        names.append("zp")
    node = helper.make_node("GatherBlockQuantized", names, ["y"], domain=MS,
                            bits=bits, block_size=block, gather_axis=0,
                            quantize_axis=1)
    m = make_model([node], [tensor("ids", ["B", "S"], TensorProto.INT64)],
                   [tensor("y", ["B", "S", hidden])], inits)
    return m, {"ids": RNG.integers(0, vocab, (2, 5)).astype(np.int64)}


@case
def gather_block_quantized_4bits():
    return gather_block_quantized(4, 16)


@case
def gather_block_quantized_4bits_odd_blocks():
    # 3 blocks per row: each row's packed zero points end in a pad nibble.
    return gather_block_quantized(4, 16, hidden=48)


@case
def gather_block_quantized_4bits_no_zero_points():
    return gather_block_quantized(4, 32, zeros=False)


@case
def gather_block_quantized_8bits():
    return gather_block_quantized(8, 32)


# --- half precision ----------------------------------------------------------


def to_f16(model, feeds):
    """The case with every float input, output and float initializer (the
    scales, norm weights) in float16, as fp16 exports have them."""
    half = TensorProto.FLOAT16
    for value in list(model.graph.input) + list(model.graph.output):
        if value.type.tensor_type.elem_type == F32:
            value.type.tensor_type.elem_type = half
    for i, init in enumerate(model.graph.initializer):
        if init.data_type == F32:
            array = numpy_helper.to_array(init).astype(np.float16)
            model.graph.initializer[i].CopyFrom(
                numpy_helper.from_array(array, init.name))
    feeds = feeds if isinstance(feeds, list) else [feeds]
    return model, [{k: v.astype(np.float16) if v.dtype == np.float32 else v
                    for k, v in f.items()} for f in feeds]


@case
def skip_simplified_layer_norm_f16():
    return to_f16(*skip_simplified_layer_norm())


@case
def matmul_4bits_f16():
    return to_f16(*matmul_nbits(64, 24, 4, 32))


@case
def group_query_attention_f16():
    model, feeds = to_f16(*gqa(rotary=True))
    return model, feeds[:4]


# --- what is refused -------------------------------------------------------


def refused():
    """Malformed or unsupported contrib nodes and the errors they get."""
    cases = {
        "unknown contrib op": (helper.make_node(
            "DecoderMaskedSelfAttention", ["x"], ["y"], domain=MS), {}),
        "unknown domain": (helper.make_node(
            "Custom", ["x"], ["y"], domain="org.example"), {}),
        "MatMulNBits block_size 24": (helper.make_node(
            "MatMulNBits", ["x", "B", "s"], ["y"], domain=MS, K=16, N=2,
            bits=4, block_size=24, name="q"),
            {"B": np.zeros((2, 1, 12), np.uint8),
             "s": np.ones(2, np.float32)}),
        "MatMulNBits B too short": (helper.make_node(
            "MatMulNBits", ["x", "B", "s"], ["y"], domain=MS, K=16, N=2,
            bits=4, block_size=16, name="q"),
            {"B": np.zeros((2, 1, 4), np.uint8),
             "s": np.ones(2, np.float32)}),
    }
    for what, (node, inits) in cases.items():
        m = make_model([node], [tensor("x", [1, 16])], [tensor("y", None)],
                       inits)
        path = os.path.join(WORK, "refused.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        try:
            mlc.compile(path, output=os.path.join(WORK, "refused.so"))
            print(f"{what}: compiled")
        except mlc.MLCError as error:
            print(f"{what}: error: {' '.join(str(error).split())}")


def main():
    global WORK
    WORK = sys.argv[1]
    wanted = sys.argv[2:] or list(CASES)
    failed = 0
    for name in wanted:
        model, feeds, *reference = CASES[name]()
        feeds = feeds if isinstance(feeds, list) else [feeds]
        path = os.path.join(WORK, name + ".onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        # One compile serves every set of inputs (sizes) of the case.
        try:
            library = mlc.load(mlc.compile(
                path, output=os.path.join(WORK, name + ".so")))
        except mlc.MLCError as error:
            failed += 1
            print(f"{name}: error: {' '.join(str(error).split())}")
            continue
        problems, worst = [], 0.0
        for i, inputs in enumerate(feeds):
            try:
                got = library.run(inputs)
            except mlc.MLCError as error:
                problems.append(f"run {i}: {' '.join(str(error).split())}")
                continue
            ref = (reference[0] if reference else
                   comparison.run_ort(path, inputs))
            for k, v in ref.items():
                # float16 results: within a few of its units in the last
                # place (2^-11 relative), as intermediate roundings differ.
                tolerance = 2e-3 if v.dtype == np.float16 else 1e-4
                d = comparison.Difference(k, got[k], v, tolerance)
                worst = max(worst, d.error)
                if not d.ok:
                    problems.append(f"run {i}: {d}")
        if problems:
            failed += 1
            print(f"{name}: " + "; ".join(problems))
        else:
            runs = f", {len(feeds)} runs" if len(feeds) > 1 else ""
            print(f"{name}: ok (max error {worst:.1e}{runs})")
    if not sys.argv[2:]:
        refused()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
