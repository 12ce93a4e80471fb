//===- FeatureOps.cpp - TfIdfVectorizer as tensor ops ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// TfIdfVectorizer over integer tokens, decomposed into ops that lower. For
// each n-gram length n and skip s, the n-grams of every row are Slices of
// the input stacked along a new last dim ([rows, positions, n]); comparing
// them with the pool's n-grams of that length ([pool, n]) and keeping the
// positions where all n tokens match counts each pool entry. The counts of
// all lengths, in pool order, are weighted as `mode` says and gathered
// into the output columns that `ngram_indexes` names.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// Builds graph ops for one node, failing on the first shape error.
struct GraphBuilder {
  NodeImporter &n;
  bool ok = true;

  template <typename OpTy, typename... Args> Value make(Args &&...args) {
    if (!ok)
      return Value();
    FailureOr<OpTy> op = n.create<OpTy>(std::forward<Args>(args)...);
    ok = succeeded(op);
    return ok ? op->getResult() : Value();
  }
  Value i64s(ArrayRef<int64_t> values) { return n.getI64Constant(values); }
  Value slice(Value x, int64_t start, int64_t end, int64_t axis) {
    return make<SliceOp>(x, i64s({start}), i64s({end}), i64s({axis}), Value());
  }
  Value unsqueeze(Value x, int64_t axis) {
    return make<UnsqueezeOp>(x, n.builder.getDenseI64ArrayAttr({axis}),
                             Value());
  }
  Value concat(ValueRange values, int64_t axis) {
    return values.size() == 1
               ? values.front()
               : make<ConcatOp>(values, n.builder.getI64IntegerAttr(axis));
  }
  Value reduce(Value x, int64_t axis, bool isMin) {
    auto axes = n.builder.getDenseI64ArrayAttr({axis});
    BoolAttr keep = n.builder.getBoolAttr(false);
    return isMin ? make<ReduceMinOp>(x, axes, keep, BoolAttr(), Value())
                 : make<ReduceSumOp>(x, axes, keep, BoolAttr(), Value());
  }
  Value convert(Value x, Type element) {
    if (!ok)
      return Value();
    auto type = llvm::cast<TensorType>(x.getType());
    return CastOp::create(n.builder, n.loc, type.clone(element), x);
  }
};

LogicalResult convertTfIdfVectorizer(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Value x = n.getInput(0);
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || (type.getRank() != 1 && type.getRank() != 2) ||
      !type.hasStaticShape())
    return n.fail("input must be a static [C] or [N, C] tensor");
  Type token = type.getElementType();
  if (!token.isInteger(32) && !token.isInteger(64))
    return n.fail("only int32 and int64 tokens are supported (pool_strings "
                  "needs string tensors)");
  std::string mode = n.getString("mode").value_or("");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return n.fail("mode must be TF, IDF or TFIDF, got '" + mode + "'");
  int64_t minN = n.getInt("min_gram_length", 0);
  int64_t maxN = n.getInt("max_gram_length", 0);
  int64_t maxSkip = n.getInt("max_skip_count", 0);
  auto pool = n.getInts("pool_int64s");
  auto starts = n.getInts("ngram_counts");
  auto indexes = n.getInts("ngram_indexes");
  if (minN < 1 || maxN < minN || maxSkip < 0)
    return n.fail("needs 1 <= min_gram_length <= max_gram_length and "
                  "max_skip_count >= 0");
  if (!pool || !starts || !indexes)
    return n.fail("needs pool_int64s, ngram_counts and ngram_indexes");
  if (static_cast<int64_t>(starts->size()) != maxN)
    return n.fail("ngram_counts needs one start per n-gram length");
  // Pool entries of length k + 1 are pool[starts[k], starts[k + 1]).
  int64_t total = 0;
  SmallVector<int64_t> entries(maxN);
  for (int64_t k = 0; k < maxN; ++k) {
    int64_t begin = (*starts)[k];
    int64_t end = k + 1 < maxN ? (*starts)[k + 1] : int64_t(pool->size());
    if (begin < 0 || end < begin || end > int64_t(pool->size()) ||
        (end - begin) % (k + 1))
      return n.fail("ngram_counts does not split the pool into n-grams");
    entries[k] = (end - begin) / (k + 1);
    total += entries[k];
  }
  if (static_cast<int64_t>(indexes->size()) != total)
    return n.fail("ngram_indexes needs " + llvm::Twine(total) +
                  " entries, one per pool n-gram");
  SmallVector<float> weights(total, 1.0f);
  if (const onnx::AttributeProto *w = n.getAttr("weights")) {
    if (w->floats_size() != total)
      return n.fail("weights needs one value per pool n-gram");
    weights.assign(w->floats().begin(), w->floats().end());
  }
  int64_t width = 0;
  for (int64_t j : *indexes) {
    if (j < 0 || j > 1 << 24)
      return n.fail("ngram_indexes holds an out-of-range column " +
                    llvm::Twine(j));
    width = std::max(width, j + 1);
  }

  GraphBuilder b{n};
  Type f32 = n.builder.getF32Type();
  int64_t rank = type.getRank(), axis = rank - 1;
  int64_t length = type.getDimSize(axis);
  SmallVector<int64_t> rows(type.getShape().drop_back());
  // Counts of every pool entry, in pool order, one group per length.
  SmallVector<Value> groups;
  for (int64_t k = 0; k < maxN; ++k) {
    int64_t gram = k + 1;
    if (entries[k] == 0)
      continue;
    SmallVector<int64_t> shape(rows);
    shape.push_back(entries[k]);
    Value counts;
    for (int64_t skip = 0; gram >= minN && skip <= maxSkip; ++skip) {
      if (gram == 1 && skip > 0)
        break;
      int64_t step = skip + 1, positions = length - (gram - 1) * step;
      if (positions <= 0)
        break;
      SmallVector<Value> tokens;
      for (int64_t t = 0; t < gram; ++t)
        tokens.push_back(b.unsqueeze(
            b.slice(x, t * step, t * step + positions, axis), rank));
      // [rows, positions, 1, n] against [pool, n].
      Value grams = b.unsqueeze(b.concat(tokens, rank), rank);
      auto poolType = RankedTensorType::get({entries[k], gram}, token);
      SmallVector<int64_t> values(pool->begin() + (*starts)[k],
                                  pool->begin() + (*starts)[k] +
                                      entries[k] * gram);
      Attribute poolAttr =
          token.isInteger(64)
              ? DenseElementsAttr::get(poolType, ArrayRef<int64_t>(values))
              : DenseElementsAttr::get(
                    poolType,
                    ArrayRef<int32_t>(llvm::to_vector(llvm::map_range(
                        values, [](int64_t v) { return int32_t(v); }))));
      Value poolValue = ConstantOp::create(n.builder, n.loc, poolType,
                                           cast<ElementsAttr>(poolAttr));
      Value same = b.convert(b.make<EqualOp>(grams, poolValue), f32);
      Value found = b.reduce(b.reduce(same, rank + 1, /*isMin=*/true), axis,
                             /*isMin=*/false);
      counts = counts ? b.make<AddOp>(counts, found) : found;
    }
    if (!counts) {
      // No n-gram of this length is counted (below min_gram_length or
      // longer than the input).
      auto zeros = RankedTensorType::get(shape, f32);
      counts = ConstantOp::create(
          n.builder, n.loc, zeros,
          cast<ElementsAttr>(DenseElementsAttr::get(zeros, 0.0f)));
    }
    groups.push_back(counts);
  }
  Value values = b.concat(groups, axis);
  auto weightType = RankedTensorType::get({total}, f32);
  Value weightValue =
      ConstantOp::create(n.builder, n.loc, weightType,
                         cast<ElementsAttr>(DenseElementsAttr::get(
                             weightType, ArrayRef<float>(weights))));
  if (mode == "IDF")
    values =
        b.convert(b.make<GreaterOp>(values, n.getScalarConstant(f32, 0)), f32);
  if (mode != "TF")
    values = b.make<MulOp>(values, weightValue);
  // Column j of the output is pool entry k with ngram_indexes[k] == j, or
  // the appended zero column.
  SmallVector<int64_t> zeroShape(rows);
  zeroShape.push_back(1);
  auto zeroType = RankedTensorType::get(zeroShape, f32);
  Value zero = ConstantOp::create(
      n.builder, n.loc, zeroType,
      cast<ElementsAttr>(DenseElementsAttr::get(zeroType, 0.0f)));
  values = b.concat({values, zero}, axis);
  SmallVector<int64_t> column(width, total);
  for (auto [k, j] : llvm::enumerate(*indexes))
    column[j] = k;
  Value result = b.make<GatherOp>(values, b.i64s(column),
                                  n.builder.getI64IntegerAttr(axis));
  if (!b.ok)
    return failure();
  n.results.push_back(result);
  return success();
}
} // namespace

void mlc::onnx_import::addFeatureConverters(ConverterTable &t) {
  t.add("TfIdfVectorizer", 9, convertTfIdfVectorizer);
}
