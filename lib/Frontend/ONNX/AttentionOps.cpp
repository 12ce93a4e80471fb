//===- AttentionOps.cpp - Rotary embeddings and attention ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// RotaryEmbedding and the attention ops of ONNX Runtime's contrib domain,
// spelled with graph ops the way a plain export spells them (Gather of the
// cos/sin caches, Slice and Concat halves; MatMul, scale, mask, Softmax,
// MatMul), so that they take the kernels plain exports take. Semantics are
// ONNX Runtime's CPU kernels' (onnxruntime/contrib_ops/cpu/bert/).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// Graph ops a converter needs again and again.
struct Spell {
  NodeImporter &n;

  Value ints(ArrayRef<int64_t> values) { return n.getI64Constant(values); }
  /// x[..., begin:end] along `axis`.
  Value slice(Value x, int64_t axis, int64_t begin, int64_t end) {
    return n.make<SliceOp>(x, ints({begin}), ints({end}), ints({axis}),
                           Value());
  }
  Value unsqueeze(Value x, ArrayRef<int64_t> axes) {
    return n.make<UnsqueezeOp>(x, n.builder.getDenseI64ArrayAttr(axes),
                               Value());
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return n.make<ReshapeOp>(x, ints(shape), n.builder.getBoolAttr(false));
  }
  Value concat(ValueRange values, int64_t axis) {
    return n.make<ConcatOp>(values, n.builder.getI64IntegerAttr(axis));
  }
  /// Dim `d` of `x` as a 1-D i64 tensor of one element.
  Value dim(Value x, int64_t d) {
    return n.make<ShapeOp>(x, n.builder.getI64IntegerAttr(d),
                           n.builder.getI64IntegerAttr(d + 1));
  }
  Value squeeze(Value x, ArrayRef<int64_t> axes) {
    return n.make<SqueezeOp>(x, n.builder.getDenseI64ArrayAttr(axes), Value());
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return n.make<TransposeOp>(x, n.builder.getDenseI64ArrayAttr(perm));
  }
  /// A rank-0 i64 constant.
  Value i64(int64_t v) {
    return n.getScalarConstant(n.builder.getI64Type(), v);
  }
  /// Dim `d` of `x` as a rank-0 i64 tensor.
  Value size(Value x, int64_t d) { return squeeze(dim(x, d), {0}); }
  /// 0, 1, ..., `limit` - 1 (`limit` a rank-0 i64 tensor).
  Value range(Value limit) { return n.make<RangeOp>(i64(0), limit, i64(1)); }
  Value castTo(Value x, Type element) {
    if (NodeImporter::getElementType(x) == element)
      return x;
    if (n.buildFailed)
      return Value();
    auto type = cast<RankedTensorType>(x.getType());
    return CastOp::create(n.builder, n.loc, type.clone(element), x);
  }
};

/// The rank of `v`, or -1 when unknown.
int64_t rankOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : -1;
}

/// Rotates the first `rotaryDim` elements of the last dim of `x` (a
/// [..., S, ..., H] tensor) by the angles whose cosines and sines `cos` and
/// `sin` hold, [..., rotaryDim / 2] broadcasting against `x` without its
/// last dim. Interleaved: pairs (x[2i], x[2i+1]); else halves (x[i],
/// x[i + rotaryDim / 2]).
Value rotate(Spell &s, Value x, Value cos, Value sin, int64_t headSize,
             int64_t rotaryDim, bool interleaved) {
  NodeImporter &n = s.n;
  int64_t half = rotaryDim / 2;
  int64_t rank = rankOf(x);
  Value rotated = rotaryDim == headSize ? x : s.slice(x, -1, 0, rotaryDim);
  Value first, second;
  if (interleaved) {
    // [..., H] -> [..., H/2, 2]: the pairs' first and second elements.
    SmallVector<int64_t> pairs(rank - 1, 0);
    pairs.append({half, 2});
    Value split = s.reshape(rotated, pairs);
    first = s.squeeze(s.slice(split, -1, 0, 1), {-1});
    second = s.squeeze(s.slice(split, -1, 1, 2), {-1});
  } else {
    first = s.slice(rotated, -1, 0, half);
    second = s.slice(rotated, -1, half, rotaryDim);
  }
  Value newFirst =
      n.make<SubOp>(n.make<MulOp>(first, cos), n.make<MulOp>(second, sin));
  Value newSecond =
      n.make<AddOp>(n.make<MulOp>(second, cos), n.make<MulOp>(first, sin));
  Value out;
  if (interleaved) {
    SmallVector<int64_t> flat(rank - 1, 0);
    flat.push_back(rotaryDim);
    out = s.reshape(
        s.concat({s.unsqueeze(newFirst, {-1}), s.unsqueeze(newSecond, {-1})},
                 -1),
        flat);
  } else {
    out = s.concat({newFirst, newSecond}, -1);
  }
  if (rotaryDim == headSize)
    return out;
  return s.concat({out, s.slice(x, -1, rotaryDim, headSize)}, -1);
}

/// Scaled dot-product attention of `q` [B, N, S, H] over keys `k`
/// [B, Nkv, T, H] and values `v` [B, Nkv, T, Hv], query head h reading
/// key/value head h / (N / Nkv). Returns [B, S, N * Hv].
struct Attention {
  Value q, k, v;
  int64_t heads = 0, kvHeads = 0, valueSize = 0;
  double scale = 1.0;
  /// tanh soft-capping of the scores before the bias and the masks.
  double softcap = 0.0;
  /// Added to the scores, broadcasting to [B, N, S, T].
  Value bias;
  /// Broadcasting to [B, N, S, T]: where false, the key gets probability 0.
  Value valid;
  /// An extra softmax column per head, dropped after the softmax: [N] or a
  /// rank-0 0 (smooth softmax).
  Value sink;
  /// Return [B, N, S, Hv] instead of [B, S, N * Hv].
  bool keepHeads = false;

  Value build(Spell &s) {
    NodeImporter &n = s.n;
    Builder &b = n.builder;
    Type element = NodeImporter::getElementType(q);
    int64_t group = heads / kvHeads;
    // A group of query heads shares its key head: [B, Nkv, group * S, H]
    // against the keys, not the keys repeated per query head.
    Value grouped = group > 1 ? s.reshape(q, {0, kvHeads, -1, 0}) : q;
    Value scores = n.make<MatMulOp>(grouped, s.transpose(k, {0, 1, 3, 2}));
    if (group > 1)
      scores = s.reshape(scores, {0, heads, -1, 0});
    scores = n.make<MulOp>(scores, n.getScalarConstant(element, scale));
    if (softcap > 0) {
      Value cap = n.getScalarConstant(element, softcap);
      scores = n.make<MulOp>(n.make<TanhOp>(n.make<DivOp>(scores, cap)), cap);
    }
    if (bias)
      scores = n.make<AddOp>(scores, bias);
    if (valid)
      scores = n.make<WhereOp>(
          valid, scores,
          n.getScalarConstant(element, -std::numeric_limits<float>::max()));
    Value probs;
    if (!sink) {
      probs = n.make<SoftmaxOp>(scores, b.getI64IntegerAttr(-1));
    } else {
      // softmax over [scores, sink] with the sink's column dropped.
      Value column =
          rankOf(sink) == 0 ? sink : s.reshape(sink, {1, heads, 1, 1});
      DenseI64ArrayAttr last = b.getDenseI64ArrayAttr({-1});
      Value top =
          n.make<MaxOp>(n.make<ReduceMaxOp>(scores, last, b.getBoolAttr(true),
                                            b.getBoolAttr(false), Value()),
                        column);
      Value e = n.make<ExpOp>(n.make<SubOp>(scores, top));
      Value total =
          n.make<AddOp>(n.make<ReduceSumOp>(e, last, b.getBoolAttr(true),
                                            b.getBoolAttr(false), Value()),
                        n.make<ExpOp>(n.make<SubOp>(column, top)));
      probs = n.make<DivOp>(e, total);
    }
    if (group > 1)
      probs = s.reshape(probs, {0, kvHeads, -1, 0});
    Value out = n.make<MatMulOp>(probs, v);
    if (group > 1)
      out = s.reshape(out, {0, heads, -1, 0});
    if (keepHeads)
      return out;
    return s.reshape(s.transpose(out, {0, 2, 1, 3}), {0, 0, heads * valueSize});
  }
};

/// RotaryEmbedding of com.microsoft (input, position_ids, cos_cache,
/// sin_cache) and of ai.onnx opset 23 (X, cos_cache, sin_cache,
/// position_ids?). The input is [B, S, hidden] or [B, N, S, H]; positions
/// [B, S] index caches of [max positions, rotary_dim / 2]. The contrib op
/// also takes one position [1] that the sequence counts on from; opset 23
/// without positions takes caches of [B, S, rotary_dim / 2].
template <bool Contrib> LogicalResult convertRotaryEmbedding(NodeImporter &n) {
  if (failed(n.expectInputs(Contrib ? 4 : 3, 4)))
    return failure();
  if (n.getInt("is_packed_batching", 0))
    return n.fail("is_packed_batching is not supported");
  Spell s{n};
  Value x = n.getInput(0);
  Value positions = n.getInput(Contrib ? 1 : 3);
  Value cosCache = n.getInput(Contrib ? 2 : 1);
  Value sinCache = n.getInput(Contrib ? 3 : 2);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto cacheType = dyn_cast<RankedTensorType>(cosCache.getType());
  if (!xType || (xType.getRank() != 3 && xType.getRank() != 4))
    return n.fail("input must be 3-D [batch, sequence, hidden] or 4-D "
                  "[batch, heads, sequence, head size]");
  int64_t cacheRank = positions ? 2 : 3;
  if (!cacheType || cacheType.getRank() != cacheRank ||
      cacheType.isDynamicDim(cacheRank - 1) || rankOf(sinCache) != cacheRank)
    return n.fail(llvm::Twine("cos_cache and sin_cache must be ") +
                  (positions ? "2-D" : "3-D [batch, sequence, angles]") +
                  " with a static last dim");
  int64_t angles = cacheType.getShape().back();
  int64_t positionsRank = positions ? rankOf(positions) : 2;
  if (positionsRank != 2 && (!Contrib || positionsRank != 1))
    return n.fail(Contrib ? "position_ids must be [batch, sequence] or [1]"
                          : "position_ids must be [batch, sequence]");
  bool threeD = xType.getRank() == 3;
  int64_t last = xType.getShape().back();
  if (ShapedType::isDynamic(last))
    return n.fail("the input's last dim must be static");
  int64_t numHeads = n.getInt("num_heads", 0);
  int64_t rotaryDim = n.getInt("rotary_embedding_dim", 0);
  int64_t headSize = last;
  if (threeD) {
    if (numHeads > 0)
      headSize = last / numHeads;
    else if (Contrib)
      headSize = rotaryDim > 0 ? rotaryDim : 2 * angles;
    else
      return n.fail("num_heads is required for a 3-D input");
    if (headSize <= 0 || last % headSize)
      return n.fail("hidden size " + llvm::Twine(last) +
                    " is not a whole number of heads");
  }
  if (rotaryDim == 0)
    rotaryDim = headSize;
  if (rotaryDim > headSize || rotaryDim % 2 || angles != rotaryDim / 2)
    return n.fail("rotary_embedding_dim " + llvm::Twine(rotaryDim) +
                  " does not fit head size " + llvm::Twine(headSize) +
                  " and caches of " + llvm::Twine(angles) + " angles");
  // Positions: [B, S] as given, or [S] counted from the one given.
  int64_t seqAxis = threeD ? 1 : 2;
  if (positionsRank == 1) {
    Type i64 = n.builder.getI64Type();
    Value start = s.squeeze(s.castTo(positions, i64), {0});
    Value length = n.make<AddOp>(start, s.squeeze(s.dim(x, seqAxis), {0}));
    positions = n.make<RangeOp>(start, length, n.getScalarConstant(i64, 1));
  }
  Value cos = cosCache, sin = sinCache;
  if (positions) {
    cos = n.make<GatherOp>(cosCache, positions, n.builder.getI64IntegerAttr(0));
    sin = n.make<GatherOp>(sinCache, positions, n.builder.getI64IntegerAttr(0));
  }
  // [B, S, R/2] (or [S, R/2]) against [B, S, N, H] or [B, N, S, H].
  if (threeD) {
    cos = s.unsqueeze(cos, {-2});
    sin = s.unsqueeze(sin, {-2});
  } else if (positionsRank == 2) {
    cos = s.unsqueeze(cos, {1});
    sin = s.unsqueeze(sin, {1});
  }
  Value heads = threeD ? s.reshape(x, {0, 0, last / headSize, headSize}) : x;
  Value out = rotate(s, heads, s.castTo(cos, xType.getElementType()),
                     s.castTo(sin, xType.getElementType()), headSize, rotaryDim,
                     n.getInt("interleaved", 0) != 0);
  if (threeD)
    out = s.reshape(out, {0, 0, last});
  return n.finish({out});
}

/// The heads of a [B, S, heads * size] tensor: [B, S, heads, size].
Value splitHeads(Spell &s, Value x, int64_t heads, int64_t size) {
  return s.reshape(x, {0, 0, heads, size});
}

/// GroupQueryAttention: attention of N query heads over Nkv key/value heads
/// with a KV cache of ONNX Runtime GenAI's layout. Per sequence b, the
/// cache holds seqlens_k[b] + 1 - S past rows (none for a first prompt, S
/// = total_sequence_length); the new keys and values go after them in
/// present, which is max(total_sequence_length, past length) long and
/// zero past the sequence, and query i attends keys up to past + i.
LogicalResult convertGroupQueryAttention(NodeImporter &n) {
  if (failed(n.expectInputs(1, 12)))
    return failure();
  for (size_t i : {5, 6})
    if (!n.hasInput(i))
      return n.fail("input " + llvm::Twine(i) +
                    (i == 5 ? " (seqlens_k)" : " (total_sequence_length)") +
                    " is required");
  Spell s{n};
  Builder &b = n.builder;
  int64_t heads = n.getInt("num_heads", 0),
          kvHeads = n.getInt("kv_num_heads", 0);
  if (heads <= 0 || kvHeads <= 0 || heads % kvHeads)
    return n.fail("num_heads (" + llvm::Twine(heads) +
                  ") must be a positive multiple of kv_num_heads (" +
                  llvm::Twine(kvHeads) + ")");
  if (n.getInt("qk_output", 0))
    return n.fail("qk_output is not supported");
  Value query = n.getInput(0), key = n.getInput(1), value = n.getInput(2);
  auto queryType = dyn_cast<RankedTensorType>(query.getType());
  if (!queryType || queryType.getRank() != 3 || queryType.isDynamicDim(2))
    return n.fail("query must be 3-D with a static hidden size");
  Type element = queryType.getElementType();
  int64_t hidden = queryType.getDimSize(2);
  bool packed = !key;
  int64_t headSize = hidden / (packed ? heads + 2 * kvHeads : heads);
  if (headSize * (packed ? heads + 2 * kvHeads : heads) != hidden)
    return n.fail("hidden size " + llvm::Twine(hidden) +
                  " is not a whole number of heads");
  if (packed != !value)
    return n.fail("key and value must both be given or both be absent");
  if (packed) {
    key = s.slice(query, 2, heads * headSize, (heads + kvHeads) * headSize);
    value = s.slice(query, 2, (heads + kvHeads) * headSize, hidden);
    query = s.slice(query, 2, 0, heads * headSize);
  }
  Value pastKey = n.getInput(3), pastValue = n.getInput(4);
  if (bool(pastKey) != bool(pastValue))
    return n.fail("past_key and past_value must both be given or both be "
                  "absent");
  Type i64 = b.getI64Type();
  Value seqLen = s.size(query, 1);
  Value total = s.reshape(s.castTo(n.getInput(6), i64), {});
  Value lengths = n.make<AddOp>(s.castTo(n.getInput(5), i64), s.i64(1));
  // A first prompt fills the cache from row 0, whatever the past holds.
  Value first = n.make<EqualOp>(seqLen, total);
  Value past =
      n.make<WhereOp>(first, s.i64(0), n.make<SubOp>(lengths, seqLen)); // [B]
  Value q = splitHeads(s, query, heads, headSize);
  Value k = splitHeads(s, key, kvHeads, headSize);
  Value v = splitHeads(s, value, kvHeads, headSize);
  Value steps = s.range(seqLen); // [S]
  if (n.getInt("do_rotary", 0)) {
    Value cosCache = n.getInput(7), sinCache = n.getInput(8);
    auto cacheType = cosCache ? dyn_cast<RankedTensorType>(cosCache.getType())
                              : RankedTensorType();
    if (!cacheType || !sinCache || cacheType.getRank() != 2 ||
        cacheType.isDynamicDim(1))
      return n.fail("do_rotary needs cos_cache and sin_cache, 2-D with a "
                    "static last dim");
    int64_t rotaryDim = 2 * cacheType.getDimSize(1);
    if (rotaryDim > headSize)
      return n.fail("the rotary caches cover more than the head size");
    // A first prompt counts from position_ids[0, 0] (or 0) in every
    // sequence; later steps from the given positions, or the past length.
    Value given = n.getInput(9);
    Value start =
        given
            ? s.reshape(
                  s.slice(s.slice(s.castTo(given, i64), 0, 0, 1), 1, 0, 1), {})
            : s.i64(0);
    Value firstPositions = s.unsqueeze(n.make<AddOp>(steps, start), {0});
    Value laterPositions = given ? s.castTo(given, i64)
                                 : n.make<AddOp>(s.unsqueeze(past, {1}), steps);
    Value positions = n.make<WhereOp>(first, firstPositions, laterPositions);
    Value cos = s.unsqueeze(
        s.castTo(n.make<GatherOp>(cosCache, positions, b.getI64IntegerAttr(0)),
                 element),
        {-2});
    Value sin = s.unsqueeze(
        s.castTo(n.make<GatherOp>(sinCache, positions, b.getI64IntegerAttr(0)),
                 element),
        {-2});
    bool interleaved = n.getInt("rotary_interleaved", 0) != 0;
    q = rotate(s, q, cos, sin, headSize, rotaryDim, interleaved);
    k = rotate(s, k, cos, sin, headSize, rotaryDim, interleaved);
  }
  // present[b, h, t] = past[b, h, t] below the sequence's past length,
  // the new row t - past after it, zero past the sequence: one Gather of
  // rows from [past rows; new rows; a zero row], so the cache is read once.
  Value pastRows = pastKey ? s.size(pastKey, 2) : s.i64(0);
  Value presentLength = pastKey ? n.make<MaxOp>(total, pastRows) : total;
  Value rows = s.range(presentLength);         // [T]
  Value pastCol = s.unsqueeze(past, {1});      // [B, 1]
  Value offset = n.make<SubOp>(rows, pastCol); // [B, T]
  Value isNew = n.make<AndOp>(n.make<GreaterOrEqualOp>(offset, s.i64(0)),
                              n.make<LessOp>(offset, seqLen));
  // A past length beyond the past buffer takes no rows from outside it.
  Value isPast = n.make<AndOp>(n.make<LessOp>(offset, s.i64(0)),
                               n.make<LessOp>(rows, pastRows));
  Value batch = s.size(query, 0);
  // b * Nkv + h, [B, Nkv, 1].
  Value heads2 = n.make<AddOp>(
      s.unsqueeze(n.make<MulOp>(s.range(batch), s.i64(kvHeads)), {1, 2}),
      s.unsqueeze(s.range(s.i64(kvHeads)), {1}));
  Value pastIndex =
      n.make<AddOp>(n.make<MulOp>(heads2, pastRows), s.unsqueeze(rows, {0, 1}));
  Value pastTotal =
      n.make<MulOp>(n.make<MulOp>(batch, s.i64(kvHeads)), pastRows);
  Value newIndex =
      n.make<AddOp>(n.make<AddOp>(pastTotal, n.make<MulOp>(heads2, seqLen)),
                    s.unsqueeze(n.make<MinOp>(n.make<MaxOp>(offset, s.i64(0)),
                                              n.make<SubOp>(seqLen, s.i64(1))),
                                {1}));
  Value zeroIndex = n.make<AddOp>(
      pastTotal, n.make<MulOp>(n.make<MulOp>(batch, s.i64(kvHeads)), seqLen));
  Value index = n.make<WhereOp>(
      s.unsqueeze(isPast, {1}), pastIndex,
      n.make<WhereOp>(s.unsqueeze(isNew, {1}), newIndex, zeroIndex));
  Value zeroRow = n.make<ConstantOp>(
      DenseElementsAttr::get(RankedTensorType::get({1, headSize}, element),
                             b.getFloatAttr(element, 0.0)));
  auto present = [&](Value fresh, Value cache) {
    SmallVector<Value> sources;
    if (cache)
      sources.push_back(s.reshape(cache, {-1, headSize}));
    sources.push_back(
        s.reshape(s.transpose(fresh, {0, 2, 1, 3}), {-1, headSize}));
    sources.push_back(zeroRow);
    return n.make<GatherOp>(s.concat(sources, 0), index,
                            b.getI64IntegerAttr(0));
  };
  Value presentKey = present(k, pastKey);
  Value presentValue = present(v, pastValue);
  // Query i of sequence b sees keys below min(past + i + 1, length).
  Value seen =
      n.make<MinOp>(n.make<AddOp>(n.make<AddOp>(pastCol, steps), s.i64(1)),
                    s.unsqueeze(lengths, {1})); // [B, S]
  Value seenCol = s.unsqueeze(seen, {2});       // [B, S, 1]
  Value valid = n.make<LessOp>(rows, seenCol);  // [B, S, T]
  int64_t window = n.getInt("local_window_size", -1);
  if (window > 0)
    valid = n.make<AndOp>(
        valid,
        n.make<GreaterOrEqualOp>(rows, n.make<SubOp>(seenCol, s.i64(window))));
  Attention attention;
  attention.q = s.transpose(q, {0, 2, 1, 3});
  attention.k = presentKey;
  attention.v = presentValue;
  attention.heads = heads;
  attention.kvHeads = kvHeads;
  attention.valueSize = headSize;
  float scale = n.getFloat("scale", 0.0f);
  attention.scale = scale != 0.0f ? scale : 1.0 / std::sqrt(double(headSize));
  attention.softcap = n.getFloat("softcap", 0.0f);
  attention.bias = n.getInput(10);
  attention.valid = s.unsqueeze(valid, {1});
  if (Value sink = n.getInput(11))
    attention.sink = s.castTo(sink, element);
  else if (n.getInt("smooth_softmax", -1) == 1)
    attention.sink = n.getScalarConstant(element, 0.0);
  Value out = attention.build(s);
  return n.finish({out, presentKey, presentValue});
}

/// [B, L, heads * size] as [B, heads, L, size].
Value toHeads(Spell &s, Value x, int64_t heads, int64_t size) {
  return s.transpose(splitHeads(s, x, heads, size), {0, 2, 1, 3});
}

/// The additive masks of ONNX Runtime's MultiHeadAttention and Attention:
/// `filter` (mask_filter_value) where a key is masked out, summed over the
/// key mask (`mask`: [B] key counts, [2B] ends then starts, [B, T] or
/// [B, S, T] of 0 = masked), the causal mask of `unidirectional` (query i
/// sees keys up to T - S + i) and the given `bias`.
FailureOr<Value> attentionMask(Spell &s, Value mask, Value bias,
                               bool unidirectional, float filter, Value queries,
                               Value keys, Type element) {
  NodeImporter &n = s.n;
  Type i64 = n.builder.getI64Type();
  Value total = Value(), seqLen = Value(), rows = Value();
  Value masked = n.getScalarConstant(element, filter);
  Value zero = n.getScalarConstant(element, 0.0);
  auto keyRows = [&] {
    if (!rows)
      rows = s.range(s.size(keys, 2)); // [T]
    return rows;
  };
  Value sum = bias;
  auto add = [&](Value term) { sum = sum ? n.make<AddOp>(sum, term) : term; };
  if (mask) {
    int64_t rank = rankOf(mask);
    if (rank == 1) {
      // [B] ends, or [2B] ends then starts.
      auto type = cast<RankedTensorType>(mask.getType());
      Value batch = s.size(queries, 0);
      Value m = s.castTo(mask, i64);
      Value ends = m, starts;
      if (!type.isDynamicDim(0) &&
          !cast<RankedTensorType>(queries.getType()).isDynamicDim(0)) {
        int64_t b = cast<RankedTensorType>(queries.getType()).getDimSize(0);
        if (type.getDimSize(0) != b && type.getDimSize(0) != 2 * b)
          return n.fail("a 1-D mask must hold B or 2B values");
        if (type.getDimSize(0) == 2 * b) {
          ends = s.slice(m, 0, 0, b);
          starts = s.slice(m, 0, b, 2 * b);
        }
      } else {
        // Which form is known only at run time: ends are the first B.
        Value twice =
            n.make<EqualOp>(s.size(mask, 0), n.make<MulOp>(batch, s.i64(2)));
        ends = n.make<SliceOp>(m, s.ints({0}), s.reshape(batch, {1}),
                               s.ints({0}), Value());
        Value startsOrNone = n.make<SliceOp>(
            n.make<ConcatOp>(ValueRange{m, m}, n.builder.getI64IntegerAttr(0)),
            s.reshape(batch, {1}),
            s.reshape(n.make<MulOp>(batch, s.i64(2)), {1}), s.ints({0}),
            Value());
        starts = n.make<WhereOp>(twice, startsOrNone, s.i64(0));
      }
      Value t = keyRows();
      Value ok = n.make<LessOp>(t, s.unsqueeze(ends, {1}));
      if (starts)
        ok = n.make<AndOp>(
            ok, n.make<GreaterOrEqualOp>(t, s.unsqueeze(starts, {1})));
      add(s.unsqueeze(n.make<WhereOp>(ok, zero, masked), {1, 2}));
    } else if (rank == 2 || rank == 3) {
      Value off = n.make<EqualOp>(s.castTo(mask, i64), s.i64(0));
      Value term = n.make<WhereOp>(off, masked, zero);
      add(rank == 2 ? s.unsqueeze(term, {1, 2}) : s.unsqueeze(term, {1}));
    } else {
      return n.fail("the key mask must be 1-D, 2-D or 3-D");
    }
  }
  if (unidirectional) {
    total = s.size(keys, 2);
    seqLen = s.size(queries, 2);
    Value last = n.make<AddOp>(
        s.unsqueeze(s.range(seqLen), {1}),
        n.make<SubOp>(total, seqLen)); // [S, 1]: the last key each sees
    Value later = n.make<GreaterOp>(keyRows(), last);
    add(n.make<WhereOp>(later, masked, zero));
  }
  return sum;
}

/// The shared tail of MultiHeadAttention and Attention: keys and values
/// appended to the past, masks, attention.
struct MultiHead {
  Value q, k, v, pastKey, pastValue, mask, bias;
  int64_t heads = 0, headSize = 0, valueSize = 0;

  MultiHead(Value mask, Value bias, int64_t heads, int64_t headSize,
            int64_t valueSize)
      : mask(mask), bias(bias), heads(heads), headSize(headSize),
        valueSize(valueSize) {}

  /// Returns the output, and sets the present keys and values.
  Value build(Spell &s, Value &presentKey, Value &presentValue) {
    NodeImporter &n = s.n;
    Type element = NodeImporter::getElementType(q);
    presentKey = pastKey ? s.concat({pastKey, k}, 2) : k;
    presentValue = pastValue ? s.concat({pastValue, v}, 2) : v;
    FailureOr<Value> additive = attentionMask(
        s, mask, bias, n.getInt("unidirectional", 0) != 0,
        n.getFloat("mask_filter_value", -10000.0f), q, presentKey, element);
    if (failed(additive)) {
      n.buildFailed = true;
      return Value();
    }
    Attention attention;
    attention.q = q;
    attention.k = presentKey;
    attention.v = presentValue;
    attention.heads = attention.kvHeads = heads;
    attention.valueSize = valueSize;
    float scale = n.getFloat("scale", 0.0f);
    attention.scale = scale != 0.0f ? scale : 1.0 / std::sqrt(double(headSize));
    attention.bias = *additive;
    return attention.build(s);
  }
};

/// The static last dim of `v`, or -1.
int64_t lastDim(Value v) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  if (!type || type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1))
    return -1;
  return type.getShape().back();
}

/// MultiHeadAttention: query [B, S, D]; key and value [B, L, D] (with the
/// past appended) or already split [B, N, L, H]; bias added to the 3-D
/// ones; masks as attentionMask.
LogicalResult convertMultiHeadAttention(NodeImporter &n) {
  if (failed(n.expectInputs(3, 8)))
    return failure();
  Spell s{n};
  int64_t heads = n.getInt("num_heads", 0);
  Value query = n.getInput(0), key = n.getInput(1), value = n.getInput(2);
  int64_t hidden = lastDim(query);
  if (rankOf(query) != 3 || hidden <= 0 || heads <= 0 || hidden % heads)
    return n.fail("query must be [batch, sequence, num_heads * head size] "
                  "with a static hidden size (packed QKV is not supported)");
  int64_t keyRank = rankOf(key);
  if ((keyRank != 3 && keyRank != 4) || rankOf(value) != keyRank)
    return n.fail("key and value must both be 3-D or both 4-D");
  int64_t headSize = hidden / heads;
  int64_t valueHidden = lastDim(value);
  if (valueHidden <= 0 || (keyRank == 3 && valueHidden % heads))
    return n.fail("value needs a static last dim of whole heads");
  int64_t valueSize = keyRank == 3 ? valueHidden / heads : valueHidden;
  if (Value bias = n.getInput(3)) {
    query = n.make<AddOp>(query, s.slice(bias, 0, 0, hidden));
    if (keyRank == 3) {
      key = n.make<AddOp>(key, s.slice(bias, 0, hidden, 2 * hidden));
      value = n.make<AddOp>(
          value, s.slice(bias, 0, 2 * hidden, 2 * hidden + valueHidden));
    }
  }
  MultiHead mh(n.getInput(4), n.getInput(5), heads, headSize, valueSize);
  mh.q = toHeads(s, query, heads, headSize);
  mh.k = keyRank == 3 ? toHeads(s, key, heads, headSize) : key;
  mh.v = keyRank == 3 ? toHeads(s, value, heads, valueSize) : value;
  mh.pastKey = n.getInput(6);
  mh.pastValue = n.getInput(7);
  if (bool(mh.pastKey) != bool(mh.pastValue))
    return n.fail("past_key and past_value must both be given or both be "
                  "absent");
  Value presentKey, presentValue;
  Value out = mh.build(s, presentKey, presentValue);
  return n.finish({out, presentKey, presentValue});
}

/// Attention (the BERT/GPT-2 op): Q, K and V from one input x weights (+
/// bias), the past [2, B, N, P, H] in one tensor, masks as attentionMask.
LogicalResult convertAttention(NodeImporter &n) {
  if (failed(n.expectInputs(2, 6)))
    return failure();
  if (n.getInt("do_rotary", 0) || n.getInt("past_present_share_buffer", 0))
    return n.fail("do_rotary and past_present_share_buffer are not "
                  "supported (ONNX Runtime's CPU kernel has neither)");
  Spell s{n};
  int64_t heads = n.getInt("num_heads", 0);
  int64_t width = lastDim(n.getInput(1));
  if (heads <= 0 || width <= 0 || rankOf(n.getInput(0)) != 3)
    return n.fail("needs num_heads, a 3-D input and weights with a static "
                  "last dim");
  SmallVector<int64_t> sizes =
      n.getInts("qkv_hidden_sizes")
          .value_or(SmallVector<int64_t>(3, width / 3));
  if (sizes.size() != 3 || sizes[0] != sizes[1] ||
      sizes[0] + sizes[1] + sizes[2] != width || sizes[0] % heads ||
      sizes[2] % heads || sizes[0] <= 0)
    return n.fail("qkv_hidden_sizes must be three sizes of whole heads, the "
                  "first two equal, summing to the weights' width " +
                  llvm::Twine(width));
  Value qkv = n.make<MatMulOp>(n.getInput(0), n.getInput(1));
  if (Value bias = n.getInput(2))
    qkv = n.make<AddOp>(qkv, bias);
  int64_t headSize = sizes[0] / heads, valueSize = sizes[2] / heads;
  MultiHead mh(n.getInput(3), n.getInput(5), heads, headSize, valueSize);
  mh.q = toHeads(s, s.slice(qkv, 2, 0, sizes[0]), heads, headSize);
  mh.k = toHeads(s, s.slice(qkv, 2, sizes[0], 2 * sizes[0]), heads, headSize);
  mh.v = toHeads(s, s.slice(qkv, 2, 2 * sizes[0], width), heads, valueSize);
  if (Value past = n.getInput(4)) {
    mh.pastKey = s.squeeze(s.slice(past, 0, 0, 1), {0});
    mh.pastValue = s.squeeze(s.slice(past, 0, 1, 2), {0});
  }
  Value presentKey, presentValue;
  Value out = mh.build(s, presentKey, presentValue);
  Value present = Value();
  if (n.node.output_size() > 1 && !n.buildFailed)
    present = s.concat(
        {s.unsqueeze(presentKey, {0}), s.unsqueeze(presentValue, {0})}, 0);
  return n.finish({out, present});
}

/// Attention of ai.onnx opset 23: Q [B, Nq, S, H], K [B, Nkv, L, H] and V
/// [B, Nkv, L, Hv] (or 3-D [B, S, heads * size] with q_num_heads and
/// kv_num_heads), the past appended to K and V; attn_mask boolean (false:
/// the lowest float) or added; is_causal lets query i see keys up to the
/// past length + i, as ONNX Runtime does.
LogicalResult convertOnnxAttention(NodeImporter &n) {
  if (failed(n.expectInputs(3, 6)))
    return failure();
  if (n.getInt("qk_matmul_output_mode", 0))
    return n.fail("qk_matmul_output_mode is not supported");
  Spell s{n};
  Value q = n.getInput(0), k = n.getInput(1), v = n.getInput(2);
  int64_t rank = rankOf(q);
  if ((rank != 3 && rank != 4) || rankOf(k) != rank || rankOf(v) != rank)
    return n.fail("Q, K and V must all be 3-D or all 4-D");
  auto dimOf = [](Value x, int64_t d) {
    return cast<RankedTensorType>(x.getType()).getDimSize(d);
  };
  int64_t heads, kvHeads, headSize, valueSize;
  if (rank == 4) {
    heads = dimOf(q, 1);
    kvHeads = dimOf(k, 1);
    headSize = dimOf(q, 3);
    valueSize = dimOf(v, 3);
  } else {
    heads = n.getInt("q_num_heads", 0);
    kvHeads = n.getInt("kv_num_heads", 0);
    if (heads <= 0 || kvHeads <= 0)
      return n.fail("3-D inputs need q_num_heads and kv_num_heads");
    headSize = dimOf(q, 2) / heads;
    valueSize = dimOf(v, 2) / kvHeads;
    if (ShapedType::isDynamic(dimOf(q, 2)) ||
        ShapedType::isDynamic(dimOf(v, 2)) || headSize * heads != dimOf(q, 2) ||
        valueSize * kvHeads != dimOf(v, 2))
      return n.fail("3-D inputs need static hidden sizes of whole heads");
    q = toHeads(s, q, heads, headSize);
    k = toHeads(s, k, kvHeads, headSize);
    v = toHeads(s, v, kvHeads, valueSize);
  }
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
      ShapedType::isDynamic(headSize) || ShapedType::isDynamic(valueSize) ||
      kvHeads <= 0 || heads % kvHeads)
    return n.fail("the head counts and sizes must be static, the query "
                  "heads a multiple of the key heads");
  Value pastKey = n.getInput(4), pastValue = n.getInput(5);
  if (bool(pastKey) != bool(pastValue))
    return n.fail("past_key and past_value must both be given or both be "
                  "absent");
  Value presentKey = pastKey ? s.concat({pastKey, k}, 2) : k;
  Value presentValue = pastValue ? s.concat({pastValue, v}, 2) : v;
  Attention attention;
  attention.q = q;
  attention.k = presentKey;
  attention.v = presentValue;
  attention.heads = heads;
  attention.kvHeads = kvHeads;
  attention.valueSize = valueSize;
  attention.keepHeads = rank == 4;
  float scale = n.getFloat("scale", 0.0f);
  attention.scale = scale != 0.0f ? scale : 1.0 / std::sqrt(double(headSize));
  attention.softcap = n.getFloat("softcap", 0.0f);
  if (Value mask = n.getInput(3)) {
    if (NodeImporter::getElementType(mask).isInteger(1))
      attention.valid = mask;
    else
      attention.bias = mask;
  }
  if (n.getInt("is_causal", 0)) {
    Value past = pastKey ? s.size(pastKey, 2) : s.i64(0);
    Value last = n.make<AddOp>(s.unsqueeze(s.range(s.size(q, 2)), {1}),
                               past); // [S, 1]
    Value causal = n.make<LessOrEqualOp>(s.range(s.size(presentKey, 2)), last);
    attention.valid =
        attention.valid ? n.make<AndOp>(attention.valid, causal) : causal;
  }
  Value out = attention.build(s);
  return n.finish({out, presentKey, presentValue});
}
} // namespace

void mlc::onnx_import::addAttentionConverters(ConverterTable &t) {
  t.add("com.microsoft.RotaryEmbedding", 1, convertRotaryEmbedding<true>);
  t.add("RotaryEmbedding", 23, convertRotaryEmbedding<false>);
  t.add("com.microsoft.GroupQueryAttention", 1, convertGroupQueryAttention);
  t.add("com.microsoft.MultiHeadAttention", 1, convertMultiHeadAttention);
  t.add("com.microsoft.Attention", 1, convertAttention);
  t.add("Attention", 23, convertOnnxAttention);
}
