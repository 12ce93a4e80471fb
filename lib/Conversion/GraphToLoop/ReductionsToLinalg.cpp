//===- ReductionsToLinalg.cpp - Reductions, gather, slice, cast, N-D matmul
//===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowerings transformer models need beyond the elementwise and CNN ops:
// Reduce{Sum,Mean,Max,Min} as reduction generics, Gather through
// tensor.extract, Slice with constant bounds as tensor.extract_slice,
// LayerNorm, and Cast.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"
#include "Windows.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::getStaticType;

namespace {
/// How a reduction op is computed: `post(combine over pre(x))`.
struct ReduceKind {
  enum Combine { Add, Mul, Max, Min } combine = Add;
  enum Pre { None, Abs, Square, Exp } pre = None;
  enum Post { Keep, Mean, Sqrt, Log } post = Keep;
};

template <typename OpTy> constexpr ReduceKind getReduceKind() {
  if constexpr (std::is_same_v<OpTy, ReduceMeanOp>)
    return {ReduceKind::Add, ReduceKind::None, ReduceKind::Mean};
  if constexpr (std::is_same_v<OpTy, ReduceMaxOp>)
    return {ReduceKind::Max, ReduceKind::None, ReduceKind::Keep};
  if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
    return {ReduceKind::Min, ReduceKind::None, ReduceKind::Keep};
  if constexpr (std::is_same_v<OpTy, ReduceProdOp>)
    return {ReduceKind::Mul, ReduceKind::None, ReduceKind::Keep};
  if constexpr (std::is_same_v<OpTy, ReduceL1Op>)
    return {ReduceKind::Add, ReduceKind::Abs, ReduceKind::Keep};
  if constexpr (std::is_same_v<OpTy, ReduceL2Op>)
    return {ReduceKind::Add, ReduceKind::Square, ReduceKind::Sqrt};
  if constexpr (std::is_same_v<OpTy, ReduceSumSquareOp>)
    return {ReduceKind::Add, ReduceKind::Square, ReduceKind::Keep};
  if constexpr (std::is_same_v<OpTy, ReduceLogSumOp>)
    return {ReduceKind::Add, ReduceKind::None, ReduceKind::Log};
  if constexpr (std::is_same_v<OpTy, ReduceLogSumExpOp>)
    return {ReduceKind::Add, ReduceKind::Exp, ReduceKind::Log};
  return {ReduceKind::Add, ReduceKind::None, ReduceKind::Keep};
}

/// ReduceSum over axes read at run time: every element is added into its
/// place in a flat accumulator of the kept dims (at most as many elements
/// as the input), whose first elements are then the result.
LogicalResult lowerReduceSumAtRunTime(ReduceSumOp op, ReduceSumOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter) {
  using namespace mlc::detail;
  auto input = getStaticType(adaptor.getInput());
  auto axes = adaptor.getDynamicAxes()
                  ? getStaticType(adaptor.getDynamicAxes())
                  : RankedTensorType();
  auto result = dyn_cast<RankedTensorType>(op.getType());
  if (!input || !axes || axes.getRank() != 1 || !result ||
      input.getNumElements() == 0)
    return rewriter.notifyMatchFailure(op, "needs a static input");
  int64_t rank = input.getRank();
  int64_t count = axes.getDimSize(0);
  bool keep = op.getKeepdims();
  Type element = input.getElementType();
  Type compute = getSignlessType(element);
  if (count == 0 && op.getNoopWithEmptyAxes())
    return rewriter.notifyMatchFailure(op, "no axes: nothing to reduce");
  int64_t outRank = keep ? rank : (count == 0 ? 0 : rank - count);
  if (result.getRank() != outRank)
    return rewriter.notifyMatchFailure(op, "rank mismatch");
  Location loc = op.getLoc();
  DimBuilder c(rewriter, loc);
  SmallVector<Value> normalized;
  for (Value axis : extractAll(rewriter, loc, adaptor.getDynamicAxes()))
    normalized.push_back(c.normalizeAxis(axis, rank));
  SmallVector<Value> marked;
  Value total = c.i64(0);
  for (int64_t d = 0; d < rank; ++d) {
    Value named = arith::ConstantIntOp::create(rewriter, loc, count == 0, 1);
    for (Value axis : normalized)
      named = c.either(named, c.eq(axis, c.i64(d)));
    marked.push_back(named);
    total = c.add(total, c.toI64(named));
  }
  if (count > 0)
    c.require(c.eq(total, c.i64(count)));
  // Kept dims, their row-major strides, and the result's dims.
  SmallVector<Value> kept(rank), strides(rank);
  Value stride = c.i64(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    kept[d] = c.select(marked[d], c.i64(1), c.i64(input.getDimSize(d)));
    strides[d] = stride;
    stride = arith::MulIOp::create(rewriter, loc, stride, kept[d]);
  }
  Value elements = stride;
  SmallVector<Value> dims(outRank, c.i64(1));
  if (keep) {
    dims = kept;
  } else if (count > 0) {
    Value before = c.i64(0);
    Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    for (int64_t d = 0; d < rank; ++d) {
      Value position = arith::SubIOp::create(rewriter, loc, c.i64(d), before);
      for (int64_t m = 0; m < outRank; ++m)
        dims[m] = c.select(
            c.both(arith::XOrIOp::create(rewriter, loc, marked[d], yes),
                   c.eq(position, c.i64(m))),
            c.i64(input.getDimSize(d)), dims[m]);
      before = c.add(before, c.toI64(marked[d]));
    }
  }
  for (int64_t d = 0; d < outRank; ++d)
    if (!result.isDynamicDim(d))
      c.require(c.eq(dims[d], c.i64(result.getDimSize(d))));
  cf::AssertOp::create(rewriter, loc, c.ok,
                       describe(op, "ReduceSum") +
                           ": an axis is out of range or repeated");
  // On a failed check: one element, reduced over everything.
  Value one = c.i64(1);
  for (int64_t d = 0; d < rank; ++d)
    strides[d] = c.select(c.ok, strides[d], c.i64(0));
  elements = c.select(c.ok, elements, one);
  for (Value &d : dims)
    d = c.select(c.ok, d, one);

  int64_t size = input.getNumElements();
  Value data = adaptor.getInput();
  if (compute != element)
    data = UnrealizedConversionCastOp::create(
               rewriter, loc, RankedTensorType::get(input.getShape(), compute),
               data)
               .getResult(0);
  auto flatType = RankedTensorType::get({size}, compute);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(compute));
  Value acc = linalg::FillOp::create(
                  rewriter, loc, zero,
                  ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                                     flatType.getShape(),
                                                     compute)})
                  .getResult(0);
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Type i64 = rewriter.getI64Type();
  auto sum = scf::ForOp::create(
      rewriter, loc, c0, arith::ConstantIndexOp::create(rewriter, loc, size),
      c1, ValueRange{acc},
      [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < rank; ++d)
          sizes.push_back(
              arith::ConstantIndexOp::create(b, l, input.getDimSize(d)));
        SmallVector<Value> coords = unravelIndex(b, l, i, sizes);
        Value at = arith::ConstantIntOp::create(b, l, i64, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value coord = arith::SelectOp::create(
              b, l, marked[d], arith::ConstantIntOp::create(b, l, i64, 0),
              arith::IndexCastOp::create(b, l, i64, coords[d]));
          at = arith::AddIOp::create(
              b, l, at, arith::MulIOp::create(b, l, coord, strides[d]));
        }
        Value slot = arith::IndexCastOp::create(b, l, b.getIndexType(), at);
        Value x = tensor::ExtractOp::create(b, l, data, coords);
        Value old = tensor::ExtractOp::create(b, l, carried[0], slot);
        Value added = isa<FloatType>(compute)
                          ? arith::AddFOp::create(b, l, old, x).getResult()
                          : arith::AddIOp::create(b, l, old, x).getResult();
        scf::YieldOp::create(
            b, l, tensor::InsertOp::create(b, l, added, carried[0], slot)
                      .getResult());
      });
  Value used = tensor::ExtractSliceOp::create(
      rewriter, loc, sum.getResult(0),
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{
          arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                     elements)
              .getResult()},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
  Value shape = tensor::FromElementsOp::create(
      rewriter, loc, RankedTensorType::get({outRank}, i64), dims);
  Value out = tensor::ReshapeOp::create(
      rewriter, loc, RankedTensorType::get(result.getShape(), compute), used,
      shape);
  if (compute != element)
    out = UnrealizedConversionCastOp::create(rewriter, loc, result, out)
              .getResult(0);
  rewriter.replaceOp(op, out);
  return success();
}

/// ONNX's reductions as one reduction generic (plus an elementwise epilogue
/// for mean, L2 and the log forms). Floats for all; integers for sum, prod,
/// max, min, L1 and sum-square.
template <typename OpTy> struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr ReduceKind kind = getReduceKind<OpTy>();
    // Dims known at run time only are read with tensor.dim.
    auto in = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!in || !result)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    if (op.getDynamicAxes()) {
      if constexpr (std::is_same_v<OpTy, ReduceSumOp>)
        return lowerReduceSumAtRunTime(op, adaptor, rewriter);
      return rewriter.notifyMatchFailure(op, "axes computed at run time");
    }
    Type element = in.getElementType();
    bool isFloat = isa<FloatType>(element);
    if (!isFloat && (!element.isSignlessInteger() || element.isInteger(1) ||
                     kind.post != ReduceKind::Keep || kind.pre == ReduceKind::Exp))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    int64_t rank = in.getRank();
    SmallVector<bool> reduced(rank, false);
    std::optional<ArrayRef<int64_t>> axes = op.getAxes();
    if (!axes || axes->empty()) {
      if (op.getNoopWithEmptyAxes()) {
        if (adaptor.getInput().getType() != result)
          return rewriter.notifyMatchFailure(op, "no-op with a new type");
        rewriter.replaceOp(op, adaptor.getInput());
        return success();
      }
      reduced.assign(rank, true);
    } else {
      for (int64_t a : *axes)
        reduced[a < 0 ? a + rank : a] = true;
    }
    Location loc = op.getLoc();
    // The result's sizes: the kept dims', 1 for reduced ones it keeps.
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i)
      if (!reduced[i])
        sizes.push_back(inSizes[i]);
      else if (op.getKeepdims())
        sizes.push_back(rewriter.getIndexAttr(1));
    if (int64_t(sizes.size()) != result.getRank())
      return rewriter.notifyMatchFailure(op, "result rank mismatch");
    Value empty =
        mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
    TypedAttr start;
    if (isFloat) {
      double v = kind.combine == ReduceKind::Max
                     ? -std::numeric_limits<double>::infinity()
                 : kind.combine == ReduceKind::Min
                     ? std::numeric_limits<double>::infinity()
                 : kind.combine == ReduceKind::Mul ? 1.0
                                                   : 0.0;
      start = rewriter.getFloatAttr(element, v);
    } else {
      unsigned width = element.getIntOrFloatBitWidth();
      APInt v = kind.combine == ReduceKind::Max   ? APInt::getSignedMinValue(width)
                : kind.combine == ReduceKind::Min ? APInt::getSignedMaxValue(width)
                : kind.combine == ReduceKind::Mul ? APInt(width, 1)
                                                  : APInt(width, 0);
      start = rewriter.getIntegerAttr(element, v);
    }
    Value init =
        linalg::FillOp::create(
            rewriter, loc, Value(arith::ConstantOp::create(rewriter, loc, start)),
            empty)
            .getResult(0);
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    // The number of elements reduced into each result (for the mean).
    OpFoldResult count = rewriter.getIndexAttr(1);
    for (int64_t i = 0; i < rank; ++i) {
      iterators.push_back(reduced[i] ? utils::IteratorType::reduction
                                     : utils::IteratorType::parallel);
      if (reduced[i]) {
        auto c = getConstantIntValue(count), d = getConstantIntValue(inSizes[i]);
        count = c && d ? OpFoldResult(rewriter.getIndexAttr(*c * *d))
                       : OpFoldResult(arith::MulIOp::create(
                             rewriter, loc,
                             getValueOrCreateConstantIndexOp(rewriter, loc,
                                                             count),
                             getValueOrCreateConstantIndexOp(rewriter, loc,
                                                             inSizes[i])));
        if (op.getKeepdims())
          outExprs.push_back(rewriter.getAffineConstantExpr(0));
      } else {
        outExprs.push_back(rewriter.getAffineDimExpr(i));
      }
    }
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, outExprs, rewriter.getContext())};
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{result}, adaptor.getInput(), init, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value x = a[0];
              switch (kind.pre) {
              case ReduceKind::Abs:
                x = isFloat ? Value(math::AbsFOp::create(b, l, x))
                            : Value(math::AbsIOp::create(b, l, x));
                break;
              case ReduceKind::Square:
                x = isFloat ? Value(arith::MulFOp::create(b, l, x, x))
                            : Value(arith::MulIOp::create(b, l, x, x));
                break;
              case ReduceKind::Exp:
                x = math::ExpOp::create(b, l, x);
                break;
              case ReduceKind::None:
                break;
              }
              Value v;
              switch (kind.combine) {
              case ReduceKind::Max:
                v = isFloat ? Value(arith::MaximumFOp::create(b, l, a[1], x))
                            : Value(arith::MaxSIOp::create(b, l, a[1], x));
                break;
              case ReduceKind::Min:
                v = isFloat ? Value(arith::MinimumFOp::create(b, l, a[1], x))
                            : Value(arith::MinSIOp::create(b, l, a[1], x));
                break;
              case ReduceKind::Mul:
                v = isFloat ? Value(arith::MulFOp::create(b, l, a[1], x))
                            : Value(arith::MulIOp::create(b, l, a[1], x));
                break;
              case ReduceKind::Add:
                v = isFloat ? Value(arith::AddFOp::create(b, l, a[1], x))
                            : Value(arith::AddIOp::create(b, l, a[1], x));
                break;
              }
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    if constexpr (kind.post != ReduceKind::Keep) {
      int64_t outRank = result.getRank();
      SmallVector<AffineMap> postMaps(2,
                                      rewriter.getMultiDimIdentityMap(outRank));
      SmallVector<utils::IteratorType> par(outRank,
                                           utils::IteratorType::parallel);
      Value out =
          mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
      // The count as a float, once, outside the loop nest.
      Value n;
      if (kind.post == ReduceKind::Mean) {
        if (auto c = getConstantIntValue(count))
          n = arith::ConstantOp::create(rewriter, loc, element,
                                        rewriter.getFloatAttr(element, *c));
        else
          n = arith::UIToFPOp::create(
              rewriter, loc, element,
              arith::IndexCastUIOp::create(rewriter, loc,
                                           rewriter.getI64Type(),
                                           getValueOrCreateConstantIndexOp(
                                               rewriter, loc, count)));
      }
      acc = linalg::GenericOp::create(
                rewriter, loc, TypeRange{result}, acc, out, postMaps, par,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value v;
                  if (kind.post == ReduceKind::Mean) {
                    v = arith::DivFOp::create(b, l, a[0], n);
                  } else if (kind.post == ReduceKind::Sqrt) {
                    v = math::SqrtOp::create(b, l, a[0]);
                  } else {
                    v = math::LogOp::create(b, l, a[0]);
                  }
                  linalg::YieldOp::create(b, l, v);
                })
                .getResult(0);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// ArgMax/ArgMin: one reduction generic over the axis carrying the best
/// value and its index. Ties keep the first index, or the last with
/// `select_last_index`.
template <typename OpTy> struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;
    auto in = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!in || !result || !result.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Type element = in.getElementType();
    bool isFloat = isa<FloatType>(element);
    if (!isFloat && (!element.isSignlessInteger() || element.isInteger(1)))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    int64_t rank = in.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    Location loc = op.getLoc();
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < rank; ++i) {
      iterators.push_back(i == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (i != axis)
        outExprs.push_back(rewriter.getAffineDimExpr(i));
      else if (op.getKeepdims())
        outExprs.push_back(rewriter.getAffineConstantExpr(0));
    }
    auto valueType = RankedTensorType::get(result.getShape(), element);
    Value bestInit;
    if (isFloat) {
      bestInit = createFilledTensor(
          rewriter, loc, valueType,
          isMax ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity());
    } else {
      unsigned width = element.getIntOrFloatBitWidth();
      bestInit = createFilledTensor(rewriter, loc, valueType,
                                    isMax ? APInt::getSignedMinValue(width)
                                          : APInt::getSignedMaxValue(width));
    }
    Value indexInit = createFilledTensor(rewriter, loc, result, APInt(64, 0));
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, rewriter.getContext());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   outMap, outMap};
    bool last = op.getSelectLastIndex();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, result}, adaptor.getInput(),
        ValueRange{bestInit, indexInit}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0], best = a[1], bestIndex = a[2];
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isFloat)
            better = arith::CmpFOp::create(
                b, l,
                isMax ? (last ? arith::CmpFPredicate::OGE
                              : arith::CmpFPredicate::OGT)
                      : (last ? arith::CmpFPredicate::OLE
                              : arith::CmpFPredicate::OLT),
                x, best);
          else
            better = arith::CmpIOp::create(
                b, l,
                isMax ? (last ? arith::CmpIPredicate::sge
                              : arith::CmpIPredicate::sgt)
                      : (last ? arith::CmpIPredicate::sle
                              : arith::CmpIPredicate::slt),
                x, best);
          // The first element always wins, so an all-(-inf) row gives 0.
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, i,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)));
          better = arith::OrIOp::create(b, l, better, first);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, i, bestIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// out[pre..., idx..., post...] = data[pre..., indices[idx...], post...].
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Dims known at run time only are read with tensor.dim.
    auto data = dyn_cast<RankedTensorType>(adaptor.getData().getType());
    auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!data || !indices || !result ||
        result.getRank() != data.getRank() - 1 + indices.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), data.getRank());
    int64_t q = indices.getRank(), rank = result.getRank();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < q; ++i)
      idxExprs.push_back(rewriter.getAffineDimExpr(axis + i));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, idxExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> dataSizes =
        tensor::getMixedSizes(rewriter, loc, adaptor.getData());
    SmallVector<OpFoldResult> sizes(dataSizes.begin(),
                                    dataSizes.begin() + axis);
    llvm::append_range(sizes, tensor::getMixedSizes(rewriter, loc,
                                                    adaptor.getIndices()));
    sizes.append(dataSizes.begin() + axis + 1, dataSizes.end());
    Value init = mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
    Value source = adaptor.getData();
    Value axisSize =
        getValueOrCreateConstantIndexOp(rewriter, loc, dataSizes[axis]);
    // ONNX makes an index out of range an error (ONNX Runtime reports it):
    // indices read at run time (a token id past the vocabulary) are
    // checked; constant ones in range need no check.
    std::optional<SmallVector<int64_t>> constant =
        mlc::detail::getConstantInts(adaptor.getIndices());
    std::optional<int64_t> extent = getConstantIntValue(dataSizes[axis]);
    bool inRange = constant && extent &&
                   llvm::all_of(*constant, [&](int64_t i) {
                     return i >= -*extent && i < *extent;
                   });
    if (!inRange)
      mlc::detail::requireIndicesInRange(
          rewriter, loc, adaptor.getIndices(), axisSize,
          mlc::detail::describe(op, "Gather") +
              ": an index is out of range for the gathered axis");
    rewriter.replaceOp(
        op,
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{result}, adaptor.getIndices(), init, maps,
            par,
            [&](OpBuilder &b, Location l, ValueRange args) {
              // Negative indices count from the end; the rest is clamped.
              Value idx = mlc::detail::getClampedIndex(b, l, args[0], axisSize);
              SmallVector<Value> coords;
              for (int64_t i = 0; i < axis; ++i)
                coords.push_back(linalg::IndexOp::create(b, l, i));
              coords.push_back(idx);
              for (int64_t i = axis + q; i < rank; ++i)
                coords.push_back(linalg::IndexOp::create(b, l, i));
              linalg::YieldOp::create(
                  b, l, Value(tensor::ExtractOp::create(b, l, source, coords)));
            })
            .getResult(0));
    return success();
  }
};

/// Slice with bounds (and axes, steps) read at run time, clamped as ONNX
/// says; the result is gathered from the input.
LogicalResult lowerSliceAtRunTime(SliceOp op, SliceOp::Adaptor adaptor,
                                  ConversionPatternRewriter &rewriter) {
  using namespace mlc::detail;
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto result = dyn_cast<RankedTensorType>(op.getType());
  auto starts = getStaticType(adaptor.getStarts());
  if (!input || !result ||
      (result.hasStaticShape() && input.hasStaticShape()) || !starts ||
      starts.getRank() != 1 || result.getRank() != input.getRank())
    return rewriter.notifyMatchFailure(op, "needs a ranked input");
  for (Value v : {adaptor.getEnds(), adaptor.getAxes(), adaptor.getSteps()})
    if (v && (!getStaticType(v) || getStaticType(v).getShape() !=
                                       starts.getShape()))
      return rewriter.notifyMatchFailure(op, "bounds of different lengths");
  Location loc = op.getLoc();
  DimBuilder c(rewriter, loc);
  int64_t rank = input.getRank();
  auto read = [&](Value v) {
    SmallVector<Value> values;
    if (!v)
      return values;
    for (Value x : extractAll(rewriter, loc, v))
      values.push_back(toI64(rewriter, loc, x, x.getType()));
    return values;
  };
  SmallVector<Value> begins = read(adaptor.getStarts());
  SmallVector<Value> ends = read(adaptor.getEnds());
  SmallVector<Value> axes = read(adaptor.getAxes());
  SmallVector<Value> steps = read(adaptor.getSteps());
  for (int64_t j = 0; j < int64_t(begins.size()); ++j) {
    if (axes.size() <= size_t(j))
      axes.push_back(c.i64(j));
    else
      axes[j] = c.normalizeAxis(axes[j], rank);
    if (steps.size() <= size_t(j))
      steps.push_back(c.i64(1));
    c.require(arith::XOrIOp::create(rewriter, loc, c.eq(steps[j], c.i64(0)),
                                    arith::ConstantIntOp::create(
                                        rewriter, loc, 1, 1)));
  }
  // Per dim: first index, step and count (the whole dim when no axis
  // names it; each dim at most once).
  SmallVector<Value> first(rank), stride(rank), dims(rank);
  SmallVector<Value> inputDims = getDimsI64(rewriter, loc, adaptor.getInput());
  for (int64_t d = 0; d < rank; ++d) {
    Value dim = inputDims[d];
    first[d] = c.i64(0);
    stride[d] = c.i64(1);
    dims[d] = dim;
    Value named = c.i64(0);
    for (size_t j = 0; j < begins.size(); ++j) {
      Value here = c.eq(axes[j], c.i64(d));
      named = c.add(named, c.toI64(here));
      Value step = c.select(c.eq(steps[j], c.i64(0)), c.i64(1), steps[j]);
      Value forward = c.cmp(arith::CmpIPredicate::sgt, step, c.i64(0));
      auto wrap = [&](Value v) {
        return c.select(c.cmp(arith::CmpIPredicate::slt, v, c.i64(0)),
                        c.add(v, dim), v);
      };
      auto clamp = [&](Value v, Value lo, Value hi) {
        return arith::MinSIOp::create(
            rewriter, loc, arith::MaxSIOp::create(rewriter, loc, v, lo), hi);
      };
      Value last = arith::SubIOp::create(rewriter, loc, dim, c.i64(1));
      Value begin = c.select(forward, clamp(wrap(begins[j]), c.i64(0), dim),
                             clamp(wrap(begins[j]), c.i64(0), last));
      Value end = c.select(forward, clamp(wrap(ends[j]), c.i64(0), dim),
                           clamp(wrap(ends[j]), c.i64(-1), last));
      Value count = arith::MaxSIOp::create(
          rewriter, loc,
          arith::CeilDivSIOp::create(rewriter, loc,
                                     arith::SubIOp::create(rewriter, loc,
                                                           end, begin),
                                     step),
          c.i64(0));
      first[d] = c.select(here, begin, first[d]);
      stride[d] = c.select(here, step, stride[d]);
      dims[d] = c.select(here, count, dims[d]);
    }
    c.require(c.cmp(arith::CmpIPredicate::sle, named, c.i64(1)));
  }
  SmallVector<Value> safe = checkedDims(
      c, result, dims,
      describe(op, "Slice") + ": a step is 0, or an axis is out of range or "
                              "repeated");
  Value sliced = gatherInto(
      rewriter, loc, adaptor.getInput(), result, safe,
      [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
        SmallVector<Value> source;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                               index[d]);
          Value at = arith::AddIOp::create(
              b, l, first[d], arith::MulIOp::create(b, l, i, stride[d]));
          source.push_back(
              arith::IndexCastOp::create(b, l, b.getIndexType(), at));
        }
        return source;
      });
  rewriter.replaceOp(op, sliced);
  return success();
}

/// Slice with constant bounds and steps: an `extract_slice` when every step
/// is positive, else a copy whose input map walks the negative-step axes
/// backwards (`x[..., ::-1]`, as exporters write reflection padding).
struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    auto starts = mlc::detail::getConstantInts(op.getStarts());
    if (!in || !result || !starts)
      return lowerSliceAtRunTime(op, adaptor, rewriter);
    int64_t rank = in.getRank();
    SmallVector<int64_t> axes =
        op.getAxes() ? mlc::detail::getConstantInts(op.getAxes()).value_or(SmallVector<int64_t>{})
                     : llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
    SmallVector<int64_t> steps =
        op.getSteps() ? mlc::detail::getConstantInts(op.getSteps()).value_or(SmallVector<int64_t>{})
                      : SmallVector<int64_t>(starts->size(), 1);
    if (axes.size() != starts->size() || steps.size() != starts->size())
      return rewriter.notifyMatchFailure(op, "needs constant axes and steps");
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    bool reversed = false;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      int64_t a = axis < 0 ? axis + rank : axis;
      if (a < 0 || a >= rank || steps[i] == 0)
        return rewriter.notifyMatchFailure(op, "bad axis or zero step");
      int64_t dim = in.getDimSize(a), s = (*starts)[i];
      if (s < 0)
        s += dim;
      // ONNX clamps starts to [0, dim] for positive steps and to
      // [0, dim - 1] for negative ones.
      offsets[a] = std::clamp<int64_t>(s, 0, steps[i] > 0 ? dim : dim - 1);
      strides[a] = steps[i];
      reversed |= steps[i] < 0;
    }
    // An empty result reads nothing (and an empty input leaves no offset
    // in bounds for tensor.extract_slice).
    if (result.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, result.getShape(),
                                                   result.getElementType());
      return success();
    }
    if (reversed) {
      // The axes of positive steps are sliced first, so that the copy's
      // input map is the plain dim only where the sizes agree (linalg
      // infers loop sizes from such dims); the negative-step axes are read
      // backwards by the copy.
      Location loc = op.getLoc();
      SmallVector<int64_t> sliceOffsets(rank, 0), sliceStrides(rank, 1);
      SmallVector<int64_t> sliceSizes(in.getShape());
      Value source = adaptor.getInput();
      bool sliced = false;
      for (int64_t d = 0; d < rank; ++d) {
        if (strides[d] < 0 || (offsets[d] == 0 && strides[d] == 1 &&
                               result.getDimSize(d) == in.getDimSize(d)))
          continue;
        sliceOffsets[d] = offsets[d];
        sliceStrides[d] = strides[d];
        sliceSizes[d] = result.getDimSize(d);
        sliced = true;
      }
      if (sliced)
        source = tensor::ExtractSliceOp::create(
            rewriter, loc,
            RankedTensorType::get(sliceSizes, in.getElementType()), source,
            ValueRange{}, ValueRange{}, ValueRange{},
            rewriter.getDenseI64ArrayAttr(sliceOffsets),
            rewriter.getDenseI64ArrayAttr(sliceSizes),
            rewriter.getDenseI64ArrayAttr(sliceStrides));
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < rank; ++d)
        exprs.push_back(strides[d] < 0 ? rewriter.getAffineDimExpr(d) *
                                                 strides[d] +
                                             offsets[d]
                                       : rewriter.getAffineDimExpr(d));
      Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                           result.getElementType());
      SmallVector<AffineMap> maps = {
          AffineMap::get(rank, 0, exprs, rewriter.getContext()),
          rewriter.getMultiDimIdentityMap(rank)};
      rewriter.replaceOp(
          op, linalg::GenericOp::create(
                  rewriter, loc, TypeRange{result}, source, init,
                  maps,
                  SmallVector<utils::IteratorType>(
                      rank, utils::IteratorType::parallel),
                  [](OpBuilder &b, Location l, ValueRange args) {
                    linalg::YieldOp::create(b, l, args[0]);
                  })
                  .getResult(0));
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, result, adaptor.getInput(), ValueRange{}, ValueRange{},
        ValueRange{}, rewriter.getDenseI64ArrayAttr(offsets),
        rewriter.getDenseI64ArrayAttr(result.getShape()),
        rewriter.getDenseI64ArrayAttr(strides));
    return success();
  }
};

/// Cast between float and signless integer types, elementwise.
struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!in || !result || in.getRank() != result.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    Type fromType = in.getElementType(), toType = result.getElementType();
    auto supported = [](Type t) { return isa<FloatType, IntegerType>(t); };
    if (!supported(fromType) || !supported(toType))
      return rewriter.notifyMatchFailure(op, "unsupported cast types");
    // Unsigned integers are handled as signless values of the same width.
    auto signless = mlc::detail::getSignlessType;
    bool fromUnsigned = fromType.isUnsignedInteger() || fromType.isInteger(1);
    bool toUnsigned = toType.isUnsignedInteger();
    Type from = signless(fromType), to = signless(toType);
    int64_t rank = in.getRank();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
    Location loc = op.getLoc();
    // Dims known only at run time are the input's.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      if (result.isDynamicDim(d))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, adaptor.getInput(), d));
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         toType, sizes);
    rewriter.replaceOp(
        op,
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{result}, adaptor.getInput(), init, maps,
            par,
            [&](OpBuilder &b, Location l, ValueRange a) {
              auto view = [&](Value v, Type t) {
                return mlc::detail::viewAs(b, l, v, t);
              };
              Value v = view(a[0], from);
              auto fFrom = dyn_cast<FloatType>(from);
              auto fTo = dyn_cast<FloatType>(to);
              unsigned fromWidth = from.getIntOrFloatBitWidth();
              unsigned toWidth = to.getIntOrFloatBitWidth();
              if (fFrom && fTo)
                v = fromWidth < toWidth
                        ? Value(arith::ExtFOp::create(b, l, to, v))
                    : fromWidth > toWidth
                        ? Value(arith::TruncFOp::create(b, l, to, v))
                        : v;
              else if (fFrom && to.isInteger(1))
                v = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::UNE, v,
                    arith::ConstantOp::create(b, l, from,
                                              b.getFloatAttr(from, 0.0)));
              else if (fFrom)
                v = toUnsigned ? Value(arith::FPToUIOp::create(b, l, to, v))
                               : Value(arith::FPToSIOp::create(b, l, to, v));
              else if (fTo)
                v = fromUnsigned
                        ? Value(arith::UIToFPOp::create(b, l, to, v))
                        : Value(arith::SIToFPOp::create(b, l, to, v));
              else if (to.isInteger(1))
                v = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ne, v,
                    arith::ConstantOp::create(b, l, from,
                                              b.getIntegerAttr(from, 0)));
              else if (fromWidth < toWidth)
                v = fromUnsigned ? Value(arith::ExtUIOp::create(b, l, to, v))
                                 : Value(arith::ExtSIOp::create(b, l, to, v));
              else if (fromWidth > toWidth)
                v = arith::TruncIOp::create(b, l, to, v);
              linalg::YieldOp::create(b, l, view(v, toType));
            })
            .getResult(0));
    return success();
  }
};

/// LayerNorm over dims [axis, rank): two reductions (mean, then mean of
/// squared deviations) and one normalizing generic with the broadcast
/// scale and bias. One pattern over static and run-time sizes: the count
/// of normalized elements is a constant when those dims are static, and a
/// parameter dim that meets a run-time dim of the input is checked once.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), scale = adaptor.getScale(),
          bias = adaptor.getBias();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
    auto biasType =
        bias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
    if (!in || !scaleType || !isa<FloatType>(in.getElementType()) ||
        (bias && !biasType))
      return rewriter.notifyMatchFailure(op, "only ranked float layer norm");
    int64_t rank = in.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    Type element = in.getElementType();
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, x);
    // Parameters broadcast against the normalized dims [axis, rank); a dim
    // of theirs that is not a static 1 must match the input's.
    mlc::detail::AgreeingDims agree{rewriter, loc, {}};
    auto paramMap = [&](Value param, RankedTensorType t) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = rank - t.getRank();
      for (int64_t i = 0; i < t.getRank(); ++i) {
        if (t.getDimSize(i) == 1 && in.getDimSize(i + offset) != 1) {
          exprs.push_back(rewriter.getAffineConstantExpr(0));
          continue;
        }
        agree.add(sizes[i + offset],
                  tensor::getMixedSize(rewriter, loc, param, i));
        exprs.push_back(rewriter.getAffineDimExpr(i + offset));
      }
      return AffineMap::get(rank, 0, exprs, ctx);
    };
    if (scaleType.getRank() > rank || (biasType && biasType.getRank() > rank))
      return rewriter.notifyMatchFailure(op, "parameters of a higher rank");
    AffineMap scaleMap = paramMap(scale, scaleType);
    AffineMap biasMap = bias ? paramMap(bias, biasType) : AffineMap();
    if (agree.conflict)
      return rewriter.notifyMatchFailure(op, "parameters of other sizes");
    agree.check(mlc::detail::describe(op, "LayerNormalization") +
                ": the scale or bias does not match the normalized dims");
    // Statistics keep the reduced dims as 1.
    SmallVector<int64_t> statShape(in.getShape());
    SmallVector<OpFoldResult> statSizes(sizes);
    SmallVector<AffineExpr> statExprs;
    OpFoldResult count = rewriter.getIndexAttr(1);
    for (int64_t i = 0; i < rank; ++i) {
      bool reduced = i >= axis;
      if (reduced) {
        count = affine::makeComposedFoldedAffineApply(
            rewriter, loc,
            rewriter.getAffineSymbolExpr(0) * rewriter.getAffineSymbolExpr(1),
            {count, sizes[i]});
        statShape[i] = 1;
        statSizes[i] = rewriter.getIndexAttr(1);
      }
      statExprs.push_back(reduced ? rewriter.getAffineConstantExpr(0)
                                  : rewriter.getAffineDimExpr(i));
    }
    auto statType = RankedTensorType::get(statShape, element);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap statMap = AffineMap::get(rank, 0, statExprs, ctx);
    SmallVector<utils::IteratorType> reduceIt,
        parallelIt(rank, utils::IteratorType::parallel);
    for (int64_t i = 0; i < rank; ++i)
      reduceIt.push_back(i >= axis ? utils::IteratorType::reduction
                                   : utils::IteratorType::parallel);
    auto cst = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, element,
                                       b.getFloatAttr(element, v));
    };
    // The count as a float: a constant in each body when the normalized
    // dims are static, else computed once before the generics.
    std::optional<int64_t> staticCount = getConstantIntValue(count);
    Value runTimeCount;
    if (!staticCount)
      runTimeCount = arith::SIToFPOp::create(
          rewriter, loc, element,
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                     cast<Value>(count)));
    auto countIn = [&](OpBuilder &b, Location l) -> Value {
      return staticCount ? cst(b, l, static_cast<double>(*staticCount))
                         : runTimeCount;
    };
    auto zeros = [&] {
      return mlc::detail::createFilled(rewriter, loc, statType, statSizes,
                                       0.0);
    };
    // sum(x) / n
    Value sum = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{statType}, x, zeros(),
                    ArrayRef<AffineMap>{id, statMap}, reduceIt,
                    [&](OpBuilder &b, Location l, ValueRange a) {
                      linalg::YieldOp::create(
                          b, l, Value(arith::AddFOp::create(b, l, a[0], a[1])));
                    })
                    .getResult(0);
    // sum((x - mean)^2) / n
    Value sq = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{statType}, ValueRange{x, sum},
                   zeros(), ArrayRef<AffineMap>{id, statMap, statMap},
                   reduceIt,
                   [&](OpBuilder &b, Location l, ValueRange a) {
                     Value mean =
                         arith::DivFOp::create(b, l, a[1], countIn(b, l));
                     Value d = arith::SubFOp::create(b, l, a[0], mean);
                     Value d2 = arith::MulFOp::create(b, l, d, d);
                     linalg::YieldOp::create(
                         b, l, Value(arith::AddFOp::create(b, l, a[2], d2)));
                   })
                   .getResult(0);
    SmallVector<Value> ins = {x, sum, sq, scale};
    SmallVector<AffineMap> maps = {id, statMap, statMap, scaleMap};
    if (bias) {
      ins.push_back(bias);
      maps.push_back(biasMap);
    }
    maps.push_back(id);
    double eps = op.getEpsilon().convertToDouble();
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, element);
    rewriter.replaceOp(
        op,
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{in}, ins, init, maps, parallelIt,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value n = countIn(b, l);
              Value mean = arith::DivFOp::create(b, l, a[1], n);
              Value var = arith::DivFOp::create(b, l, a[2], n);
              // 1 / sqrt: libm has no rsqrtf for math.rsqrt to call.
              Value inv = arith::DivFOp::create(
                  b, l, cst(b, l, 1.0),
                  math::SqrtOp::create(
                      b, l, arith::AddFOp::create(b, l, var, cst(b, l, eps))));
              Value y = arith::MulFOp::create(
                  b, l, arith::SubFOp::create(b, l, a[0], mean), inv);
              y = arith::MulFOp::create(b, l, y, a[3]);
              if (bias)
                y = arith::AddFOp::create(b, l, y, a[4]);
              linalg::YieldOp::create(b, l, y);
            })
            .getResult(0));
    return success();
  }
};

} // namespace

void mlc::populateGraphReductionsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               ReduceLowering<ReduceProdOp>, ReduceLowering<ReduceL1Op>,
               ReduceLowering<ReduceL2Op>, ReduceLowering<ReduceSumSquareOp>,
               ReduceLowering<ReduceLogSumOp>,
               ReduceLowering<ReduceLogSumExpOp>, ArgReduceLowering<ArgMaxOp>,
               ArgReduceLowering<ArgMinOp>,
               GatherLowering, SliceLowering, CastLowering,
               LayerNormLowering>(patterns.getContext());
}
