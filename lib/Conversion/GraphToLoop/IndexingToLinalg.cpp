//===- IndexingToLinalg.cpp - Index-driven graph ops to linalg.generic ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops whose result element depends on its position: Trilu (a mask from the
// row and column index), GatherElements (a data-dependent read with
// tensor.extract inside the generic's body), Expand (a broadcast read),
// DepthToSpace/SpaceToDepth (index arithmetic), CumSum (a masked reduction
// over the axis), OneHot (a compare with the index) and ScatterElements
// (a sequential loop of inserts, as ONNX specifies).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"


using namespace mlir;
using namespace mlc::graph;
using mlc::detail::buildGatherByIndex;
using mlc::detail::getStaticType;

namespace {
/// The zero of a float, integer or bool element type.
Value createZero(OpBuilder &b, Location loc, Type element) {
  if (isa<FloatType>(element))
    return arith::ConstantOp::create(b, loc, element,
                                     b.getFloatAttr(element, 0.0));
  return arith::ConstantOp::create(b, loc, element,
                                   b.getIntegerAttr(element, 0));
}

struct TriluLowering : OpConversionPattern<TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs rank >= 2");
    Location loc = op.getLoc();
    // k is a one-element tensor, often a graph input: read it at run time.
    Value kIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
    if (Value k = adaptor.getK()) {
      auto kType = getStaticType(k);
      if (!kType || kType.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "k must have one element");
      SmallVector<Value> zeros(
          kType.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
      Value kValue = tensor::ExtractOp::create(rewriter, loc, k, zeros);
      kIndex = arith::IndexCastOp::create(rewriter, loc,
                                          rewriter.getIndexType(), kValue);
    }
    int64_t rank = type.getRank();
    bool upper = op.getUpper();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, adaptor.getInput()),
        type.getElementType());
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, adaptor.getInput(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value keep = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, kIndex);
          linalg::YieldOp::create(
              b, l,
              Value(arith::SelectOp::create(
                  b, l, keep, a[0], createZero(b, l, type.getElementType()))));
        });
    rewriter.replaceOp(op, mlc::detail::castTo(rewriter, loc,
                                               generic.getResult(0),
                                               op.getType()));
    return success();
  }
};

struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = getStaticType(adaptor.getData());
    auto indices = getStaticType(adaptor.getIndices());
    auto result = getStaticType(op.getResult());
    if (!data || !indices || !result)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = data.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         result.getElementType());
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value source = adaptor.getData();
    int64_t axisSize = data.getDimSize(axis);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, adaptor.getIndices(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          // Negative indices count from the end of the axis; the rest is
          // clamped.
          Value at = mlc::detail::getClampedIndex(b, l, a[0], axisSize);
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d)
            position.push_back(d == axis
                                   ? at
                                   : Value(linalg::IndexOp::create(b, l, d)));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, source, position)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Expand: numpy broadcasting of the input to a shape read at run time
/// (constant entries fold), one pattern over mixed sizes. An input dim of
/// static size 1 is broadcast to the shape's entry; any other keeps its
/// size, which the entry must equal or leave to the input (1). A dim known
/// only at run time is not broadcast, as in the elementwise ops: the check
/// fails where it would be. The checks fold away where every size is
/// static.
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    using namespace mlc::detail;
    Value input = adaptor.getInput();
    auto in = dyn_cast<RankedTensorType>(input.getType());
    auto shape = getStaticType(adaptor.getShape());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!in || !shape || !result || shape.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t n = in.getRank(), k = shape.getDimSize(0);
    int64_t rank = std::max(n, k);
    if (result.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> target;
    if (std::optional<SmallVector<int64_t>> constant =
            getConstantInts(adaptor.getShape()))
      for (int64_t v : *constant)
        target.push_back(c.i64(v));
    else
      target = extractAll(rewriter, loc, adaptor.getShape());
    SmallVector<Value> inDims = getDimsI64(rewriter, loc, input);
    SmallVector<Value> dims(rank);
    SmallVector<AffineExpr> exprs;
    for (int64_t m = 0; m < rank; ++m) {
      int64_t j = m - (rank - n); // the input's dim, if any
      int64_t t = m - (rank - k); // the shape's entry, if any
      bool broadcast = j >= 0 && in.getDimSize(j) == 1;
      if (j >= 0)
        exprs.push_back(broadcast ? rewriter.getAffineConstantExpr(0)
                                  : rewriter.getAffineDimExpr(m));
      Value size = j >= 0 ? inDims[j] : c.i64(1);
      if (t < 0) {
        dims[m] = size;
        continue;
      }
      Value want = target[t];
      if (j < 0 || broadcast) {
        c.require(c.cmp(arith::CmpIPredicate::sge, want, c.i64(0)));
        dims[m] = want;
      } else {
        c.require(c.either(c.eq(want, size), c.eq(want, c.i64(1))));
        dims[m] = size;
      }
    }
    int64_t maxCount;
    requireElementsFit(c, dims, in.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Expand") +
            ": the shape does not broadcast with the input's (a dim known "
            "only at run time is not broadcast), or the result would hold "
            "more than " +
            std::to_string(maxCount) + " elements");
    Value init = createEmpty(rewriter, loc, result, safe);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, input, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, a[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
/// The single integer of a constant one-element tensor.
std::optional<int64_t> getConstantScalar(Value v) {
  std::optional<SmallVector<int64_t>> values = mlc::detail::getConstantInts(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// DepthToSpace (DCR and CRD modes) and SpaceToDepth on N, C, H, W.
template <typename OpTy> struct BlockRearrangeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool toSpace = std::is_same_v<OpTy, DepthToSpaceOp>;
    auto in = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!in || !result || in.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static N,C,H,W");
    int64_t bs = static_cast<int64_t>(op.getBlocksize());
    bool crd = false;
    if constexpr (toSpace)
      crd = op.getMode() == "CRD";
    int64_t inChannels = in.getDimSize(1), outChannels = result.getDimSize(1);
    Value replacement = buildGatherByIndex(
        rewriter, op.getLoc(), result, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> i) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          auto mul = [&](Value x, Value y) -> Value {
            return arith::MulIOp::create(b, l, x, y);
          };
          auto add = [&](Value x, Value y) -> Value {
            return arith::AddIOp::create(b, l, x, y);
          };
          auto div = [&](Value x, int64_t y) -> Value {
            return arith::DivUIOp::create(b, l, x, c(y));
          };
          auto rem = [&](Value x, int64_t y) -> Value {
            return arith::RemUIOp::create(b, l, x, c(y));
          };
          if constexpr (toSpace) {
            // out[n, ch, h, w] reads block offset (h % bs, w % bs).
            Value offset = add(mul(rem(i[2], bs), c(bs)), rem(i[3], bs));
            Value channel = crd ? add(mul(i[1], c(bs * bs)), offset)
                                : add(mul(offset, c(outChannels)), i[1]);
            return SmallVector<Value>{i[0], channel, div(i[2], bs),
                                      div(i[3], bs)};
          } else {
            // out channel = (bh * bs + bw) * C + c.
            Value block = div(i[1], inChannels);
            Value channel = rem(i[1], inChannels);
            Value h = add(mul(i[2], c(bs)), div(block, bs));
            Value w = add(mul(i[3], c(bs)), rem(block, bs));
            return SmallVector<Value>{i[0], channel, h, w};
          }
        });
    rewriter.replaceOp(op, replacement);
    return success();
  }
};

/// CumSum as a reduction over a second copy of the axis: out[.., i, ..] =
/// sum of x[.., j, ..] for j <= i (j < i exclusive; j >= i reversed).
struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getStaticType(adaptor.getInput());
    std::optional<int64_t> axisValue = getConstantScalar(op.getAxis());
    // A rank-1 input has only one valid axis, whatever its runtime value.
    if (!axisValue && type && type.getRank() == 1)
      axisValue = 0;
    if (!type || type != getStaticType(op.getResult()))
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Type element = type.getElementType();
    bool isFloat = isa<FloatType>(element);
    if (!isFloat && !element.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "element type not supported");
    if (!axisValue)
      return lowerWithRuntimeAxis(op, adaptor, rewriter, type);
    int64_t rank = type.getRank();
    int64_t axis = *axisValue < 0 ? *axisValue + rank : *axisValue;
    Location loc = op.getLoc();
    // Loop dims: the result's, plus j (the summed position) last.
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(rewriter.getAffineDimExpr(d == axis ? rank : d));
      outExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inExprs, rewriter.getContext()),
        AffineMap::get(rank + 1, 0, outExprs, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), element);
    Value zero = createZero(rewriter, loc, element);
    init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, adaptor.getInput(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          arith::CmpIPredicate pred =
              reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                   : arith::CmpIPredicate::uge)
                      : (exclusive ? arith::CmpIPredicate::ult
                                   : arith::CmpIPredicate::ule);
          Value take = arith::CmpIOp::create(b, l, pred, j, i);
          Value sum = isFloat ? Value(arith::AddFOp::create(b, l, a[1], a[0]))
                              : Value(arith::AddIOp::create(b, l, a[1], a[0]));
          linalg::YieldOp::create(
              b, l, Value(arith::SelectOp::create(b, l, take, sum, a[1])));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }

  /// An axis known only at run time (a graph input): a reduction over
  /// k in [0, largest dim) whose body picks the axis' index and extent by
  /// comparing the axis with each dim, and reads the input at the position
  /// with k on the axis (clamped; positions past the axis' extent add
  /// nothing). An axis out of range gives zeros, never a wild read.
  LogicalResult lowerWithRuntimeAxis(CumSumOp op, OpAdaptor adaptor,
                                     ConversionPatternRewriter &rewriter,
                                     RankedTensorType type) const {
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    Type element = type.getElementType();
    bool isFloat = isa<FloatType>(element);
    auto axisType = getStaticType(adaptor.getAxis());
    if (!axisType || axisType.getNumElements() != 1 || rank == 0)
      return rewriter.notifyMatchFailure(op, "axis must have one element");
    SmallVector<Value> zeros(axisType.getRank(),
                             arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value axis = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        tensor::ExtractOp::create(rewriter, loc, adaptor.getAxis(), zeros));
    Value rankValue = arith::ConstantIndexOp::create(rewriter, loc, rank);
    Value negative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, axis,
        arith::ConstantIndexOp::create(rewriter, loc, 0));
    axis = arith::SelectOp::create(
        rewriter, loc, negative,
        arith::AddIOp::create(rewriter, loc, axis, rankValue), axis);
    int64_t longest = 1;
    for (int64_t d : type.getShape())
      longest = std::max(longest, d);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, {longest}, element);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), element);
    init = linalg::FillOp::create(rewriter, loc,
                                  createZero(rewriter, loc, element), init)
               .getResult(0);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Value source = adaptor.getInput();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, window, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value k = linalg::IndexOp::create(b, l, rank);
          Value i = c(0), extent = c(0);
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d) {
            Value index = linalg::IndexOp::create(b, l, d);
            Value isAxis =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, axis, c(d));
            i = arith::SelectOp::create(b, l, isAxis, index, i);
            extent = arith::SelectOp::create(b, l, isAxis,
                                             c(type.getDimSize(d)), extent);
            Value at = arith::SelectOp::create(b, l, isAxis, k, index);
            position.push_back(
                arith::MinUIOp::create(b, l, at, c(type.getDimSize(d) - 1)));
          }
          arith::CmpIPredicate pred =
              reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                   : arith::CmpIPredicate::uge)
                      : (exclusive ? arith::CmpIPredicate::ult
                                   : arith::CmpIPredicate::ule);
          Value take = arith::AndIOp::create(
              b, l, arith::CmpIOp::create(b, l, pred, k, i),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, k,
                                    extent));
          Value v = tensor::ExtractOp::create(b, l, source, position);
          Value sum = isFloat ? Value(arith::AddFOp::create(b, l, a[1], v))
                              : Value(arith::AddIOp::create(b, l, a[1], v));
          linalg::YieldOp::create(
              b, l, Value(arith::SelectOp::create(b, l, take, sum, a[1])));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// ReverseSequence: out[.., t, .., b, ..] = in[.., t' , .., b, ..] with
/// t' = lengths[b] - 1 - t for t < lengths[b], else t (lengths clamped to
/// the time extent, so a bad length never reads outside the input).
struct ReverseSequenceLowering : OpConversionPattern<ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReverseSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getStaticType(adaptor.getInput());
    if (!type || type != getStaticType(op.getResult()))
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    int64_t rank = type.getRank();
    int64_t batch = op.getBatchAxis(), time = op.getTimeAxis();
    int64_t steps = type.getDimSize(time);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, {getAffineDimExpr(batch, ctx)}, ctx),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    Value source = adaptor.getInput();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, adaptor.getLengths(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value length =
              arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          length = arith::MaxSIOp::create(b, l, length, c(0));
          length = arith::MinSIOp::create(b, l, length, c(steps));
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d)
            position.push_back(linalg::IndexOp::create(b, l, d));
          Value t = position[time];
          Value reversed = arith::SubIOp::create(
              b, l, arith::SubIOp::create(b, l, length, c(1)), t);
          Value inside =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, length);
          position[time] = arith::SelectOp::create(b, l, inside, reversed, t);
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, source, position)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// OneHot: out = (index along axis == indices[...]) ? on : off, with
/// negative indices counted from depth.
struct OneHotLowering : OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto indices = getStaticType(adaptor.getIndices());
    auto values = getStaticType(adaptor.getValues());
    auto result = getStaticType(op.getResult());
    if (!indices || !values || !result || values.getNumElements() != 2)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = result.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    int64_t depth = result.getDimSize(axis);
    Location loc = op.getLoc();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        exprs.push_back(rewriter.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         result.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value on, off;
    {
      Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
      off = tensor::ExtractOp::create(rewriter, loc, adaptor.getValues(),
                                      ValueRange{c0});
      on = tensor::ExtractOp::create(rewriter, loc, adaptor.getValues(),
                                     ValueRange{c1});
    }
    Type indexElement = indices.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, adaptor.getIndices(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          Value k = a[0];
          if (isa<FloatType>(indexElement))
            k = arith::FPToSIOp::create(b, l, b.getI64Type(), k);
          k = arith::IndexCastOp::create(b, l, b.getIndexType(), k);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
          k = arith::SelectOp::create(
              b, l, negative,
              arith::AddIOp::create(b, l, k,
                                    arith::ConstantIndexOp::create(b, l, depth)),
              k);
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            linalg::IndexOp::create(b, l, axis),
                                            k);
          linalg::YieldOp::create(
              b, l, Value(arith::SelectOp::create(b, l, hit, on, off)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// ScatterElements as ONNX specifies it: copy data, then visit every
/// update in order and write (or combine) it at its target position.
struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = getStaticType(adaptor.getData());
    auto indices = getStaticType(adaptor.getIndices());
    if (!data || !indices || data != getStaticType(op.getResult()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    StringRef reduction = op.getReduction();
    Type element = data.getElementType();
    bool isFloat = isa<FloatType>(element);
    if (reduction != "none" && !isFloat && !element.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "reduction on this type");
    int64_t rank = data.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    int64_t count = indices.getNumElements();
    SmallVector<int64_t> strides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * indices.getDimSize(d + 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, c(0), c(count), c(1), ValueRange{adaptor.getData()},
        [&](OpBuilder &b, Location l, Value k, ValueRange iter) {
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d) {
            Value v = arith::DivUIOp::create(
                b, l, k, arith::ConstantIndexOp::create(b, l, strides[d]));
            position.push_back(arith::RemUIOp::create(
                b, l, v,
                arith::ConstantIndexOp::create(b, l, indices.getDimSize(d))));
          }
          Value at = mlc::detail::getClampedIndex(
              b, l,
              tensor::ExtractOp::create(b, l, adaptor.getIndices(), position),
              data.getDimSize(axis));
          Value update =
              tensor::ExtractOp::create(b, l, adaptor.getUpdates(), position);
          SmallVector<Value> target(position);
          target[axis] = at;
          if (reduction != "none") {
            Value old = tensor::ExtractOp::create(b, l, iter[0], target);
            if (reduction == "add")
              update = isFloat ? Value(arith::AddFOp::create(b, l, old, update))
                               : Value(arith::AddIOp::create(b, l, old, update));
            else if (reduction == "mul")
              update = isFloat ? Value(arith::MulFOp::create(b, l, old, update))
                               : Value(arith::MulIOp::create(b, l, old, update));
            else if (reduction == "max")
              update = isFloat
                           ? Value(arith::MaximumFOp::create(b, l, old, update))
                           : Value(arith::MaxSIOp::create(b, l, old, update));
            else
              update = isFloat
                           ? Value(arith::MinimumFOp::create(b, l, old, update))
                           : Value(arith::MinSIOp::create(b, l, old, update));
          }
          Value next = tensor::InsertOp::create(b, l, update, iter[0], target);
          scf::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TriluLowering, GatherElementsLowering, ExpandLowering,
               BlockRearrangeLowering<DepthToSpaceOp>,
               BlockRearrangeLowering<SpaceToDepthOp>, CumSumLowering,
               OneHotLowering, ScatterElementsLowering,
               ReverseSequenceLowering>(patterns.getContext());
}
