//===- ConvPoolToLinalg.cpp - Convolution, pooling, batch norm ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Convolution (1-D, 2-D and 3-D; plain, depthwise and grouped), max/average
// pooling and global average pooling to linalg named ops and generics
// (batch normalization and LRN: NormalizationToLinalg.cpp), for every
// shape: batch and spatial sizes static or known at run time (a detector
// compiled for images of any size), channels and weights static. Padding is
// an explicit tensor.pad; Windows.h resolves auto_pad and ceil_mode, as
// constants where the sizes are static and at run time where they are not.
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "LoweringUtils.h"
#include "Windows.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::channelwise;
using mlc::detail::getStaticType;
using mlc::detail::createFilled;
using mlc::detail::padWindows;
using mlc::detail::planWindows;
using mlc::detail::splitChannels;
using mlc::detail::WindowPlan;
using mlc::detail::addHeight;
using mlc::detail::insertHeight;

namespace {
/// The smallest value of an integer type (unsigned types as their signless
/// view: arith constants are signless).
Value integerMin(OpBuilder &b, Location loc, IntegerType type) {
  unsigned width = type.getWidth();
  Type signless = b.getIntegerType(width);
  Value v = arith::ConstantOp::create(
      b, loc, signless,
      b.getIntegerAttr(signless, type.isUnsigned()
                                     ? APInt::getMinValue(width)
                                     : APInt::getSignedMinValue(width)));
  return mlc::detail::viewAs(b, loc, v, type);
}

/// A constant of the element type of `value`'s tensor type.
Value elementConstant(OpBuilder &b, Location loc, Value value, double v) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  return arith::ConstantOp::create(b, loc, element, b.getFloatAttr(element, v));
}

/// `input` padded as `plan` says with the float `value`.
Value padWithFloat(OpBuilder &b, Location loc, Value input,
                   const mlc::detail::WindowPlan &plan, double value) {
  auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  if (llvm::all_of(plan.padLow, zero) && llvm::all_of(plan.padHigh, zero))
    return input;
  return mlc::detail::padWindows(b, loc, input, plan,
                                 elementConstant(b, loc, input, value));
}

/// Ones over `input`'s positions and zeros over the padding `plan` adds:
/// pooled by sums, how many real positions each window holds.
Value realPositions(OpBuilder &b, Location loc, Value input,
                    const mlc::detail::WindowPlan &plan) {
  auto type = cast<RankedTensorType>(input.getType());
  return padWithFloat(
      b, loc,
      mlc::detail::createFilled(b, loc, type,
                                tensor::getMixedSizes(b, loc, input), 1.0),
      plan, 0.0);
}

/// What an average pool divides by, split from `plan`'s padding: `counted`
/// pads count as positions (with count_include_pad, the explicit or
/// auto_pad ones), `rest` do not (ceil_mode's extra end padding, and the
/// padding that keeps a failed check's run in bounds).
struct CountedPadding {
  mlc::detail::WindowPlan counted, rest;
  /// Whether `rest` pads nothing: every window then counts its whole size.
  bool restIsEmpty() const {
    auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
    return llvm::all_of(rest.padHigh, zero);
  }
};

CountedPadding splitPadding(OpBuilder &b, Location loc,
                            const mlc::detail::WindowPlan &plan,
                            std::optional<ArrayRef<int64_t>> pads,
                            AutoPad autoPad) {
  CountedPadding split;
  size_t rank = plan.padLow.size(), spatial = rank - 2;
  split.counted.padLow = plan.padLow;
  split.counted.padHigh = plan.padHigh;
  split.rest.padLow.assign(rank, b.getIndexAttr(0));
  split.rest.padHigh.assign(rank, b.getIndexAttr(0));
  for (size_t d = 0; d < 2; ++d) {
    split.counted.padHigh[d] = b.getIndexAttr(0);
    split.rest.padHigh[d] = plan.padHigh[d];
  }
  if (autoPad != AutoPad::NotSet)
    return split;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t end = pads && pads->size() == 2 * spatial ? (*pads)[i + spatial]
                                                      : 0;
    OpFoldResult high = plan.padHigh[2 + i];
    split.counted.padHigh[2 + i] = b.getIndexAttr(end);
    if (std::optional<int64_t> known = getConstantIntValue(high)) {
      split.rest.padHigh[2 + i] = b.getIndexAttr(*known - end);
      continue;
    }
    split.rest.padHigh[2 + i] =
        arith::SubIOp::create(b, loc, cast<Value>(high),
                              arith::ConstantIndexOp::create(b, loc, end))
            .getResult();
  }
  return split;
}

/// Ones over the positions an average counts and zeros elsewhere, padded
/// as the pooled input: pooled by sums, each window's divisor.
Value countedPositions(OpBuilder &b, Location loc, Value input,
                       const CountedPadding &split) {
  auto type = cast<RankedTensorType>(input.getType());
  Value ones = mlc::detail::createFilled(
      b, loc, type, tensor::getMixedSizes(b, loc, input), 1.0);
  return padWithFloat(b, loc, padWithFloat(b, loc, ones, split.counted, 1.0),
                      split.rest, 0.0);
}

SmallVector<int64_t> orOnes(std::optional<ArrayRef<int64_t>> a,
                            size_t n = 2) {
  return a ? SmallVector<int64_t>(*a) : SmallVector<int64_t>(n, 1);
}

} // namespace

FailureOr<Value> mlc::detail::buildConv2D(
    OpBuilder &rewriter, Location loc, Operation *op, Value inputValue,
    Value weightValue, RankedTensorType result,
    std::optional<ArrayRef<int64_t>> stridesAttrs,
    std::optional<ArrayRef<int64_t>> dilationsAttrs,
    std::optional<ArrayRef<int64_t>> padsAttrs, AutoPad autoPad,
    int64_t group) {
  auto x = dyn_cast<RankedTensorType>(inputValue.getType());
  auto w = getStaticType(weightValue);
  if (!x || !w || x.getRank() != 4 || w.getRank() != 4 || x.isDynamicDim(1))
    return failure();
  int64_t c = x.getDimSize(1), m = w.getDimSize(0);
  if (group < 1 || c % group != 0 || m % group != 0 ||
      w.getDimSize(1) * group != c)
    return failure();
  FailureOr<WindowPlan> plan =
      planWindows(rewriter, loc, op, "Conv", inputValue, m, result,
                  w.getShape().drop_front(2), stridesAttrs, dilationsAttrs,
                  padsAttrs, autoPad, false);
  if (failed(plan))
    return failure();
  SmallVector<int64_t> strides = orOnes(stridesAttrs);
  SmallVector<int64_t> dilations = orOnes(dilationsAttrs);
  Type element = result.getElementType();
  auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  Value input = inputValue;
  if (!llvm::all_of(plan->padLow, zero) || !llvm::all_of(plan->padHigh, zero))
    input = padWindows(
        rewriter, loc, inputValue, *plan,
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(element))
            .getResult());
  Value acc = createFilled(
      rewriter, loc, result, plan->sizes,
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(element))
          .getResult());
  auto stridesAttr = rewriter.getI64TensorAttr(strides);
  auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
  Value conv;
  auto padded = cast<RankedTensorType>(input.getType());
  bool onePixel = result.hasStaticShape() && padded.hasStaticShape() &&
                  result.getDimSize(2) == 1 && result.getDimSize(3) == 1 &&
                  padded.getDimSize(2) == w.getDimSize(2) &&
                  padded.getDimSize(3) == w.getDimSize(3);
  if (group == 1 && onePixel && isa<FloatType>(element)) {
    // The window covers the whole input (a squeeze-excitation block's 1x1
    // convolutions on pooled channels): a matrix product with the weights
    // transposed to [C*kh*kw, M], whose columns (output channels) vectorize;
    // as a convolution its one output pixel per image left a register tile
    // of scalar multiply-adds. The transpose of constant weights folds at
    // compile time.
    int64_t n = result.getDimSize(0), k = c * w.getDimSize(2) * w.getDimSize(3);
    SmallVector<ReassociationIndices> flat = {{0}, {1, 2, 3}};
    Value lhs = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, k}, element), input, flat);
    // [M, C, kh, kw] -> [C, kh, kw, M] -> [K, M]: the transpose reads the
    // weights themselves, so that a constant one folds.
    SmallVector<int64_t> wShape = {c, w.getDimSize(2), w.getDimSize(3), m};
    Value transposed = linalg::TransposeOp::create(
                           rewriter, loc, weightValue,
                           tensor::EmptyOp::create(rewriter, loc, wShape,
                                                   element),
                           ArrayRef<int64_t>{1, 2, 3, 0})
                           .getResult()[0];
    transposed = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, m}, element), transposed,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    Value flatAcc = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, m}, element), acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    Value product = linalg::MatmulOp::create(
                        rewriter, loc, TypeRange{flatAcc.getType()},
                        ValueRange{lhs, transposed}, ValueRange{flatAcc})
                        .getResult(0);
    conv = tensor::ExpandShapeOp::create(
        rewriter, loc, result, product,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  } else if (group == 1) {
    conv = linalg::Conv2DNchwFchwOp::create(
               rewriter, loc, TypeRange{result},
               ValueRange{input, weightValue}, ValueRange{acc},
               stridesAttr, dilationsAttr)
               .getResult(0);
  } else if (group == c && m == c) {
    // Depthwise: weight [C, 1, kh, kw] -> [C, kh, kw].
    auto wt = RankedTensorType::get({c, w.getDimSize(2), w.getDimSize(3)},
                                    w.getElementType());
    Value weight = tensor::CollapseShapeOp::create(
        rewriter, loc, wt, weightValue,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    conv = linalg::DepthwiseConv2DNchwChwOp::create(
               rewriter, loc, TypeRange{result}, ValueRange{input, weight},
               ValueRange{acc}, stridesAttr, dilationsAttr)
               .getResult(0);
  } else {
    // Grouped: [N, G, C/G, H, W] x [G, M/G, C/G, kh, kw].
    auto gW = RankedTensorType::get(
        {group, m / group, w.getDimSize(1), w.getDimSize(2), w.getDimSize(3)},
        w.getElementType());
    Value gi = splitChannels(rewriter, loc, input, group);
    Value gw = tensor::ExpandShapeOp::create(
        rewriter, loc, gW, weightValue,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value ga = splitChannels(rewriter, loc, acc, group);
    Value g = linalg::Conv2DNgchwGfchwOp::create(
                  rewriter, loc, TypeRange{ga.getType()}, ValueRange{gi, gw},
                  ValueRange{ga}, stridesAttr, dilationsAttr)
                  .getResult(0);
    conv = tensor::CollapseShapeOp::create(
        rewriter, loc, result, g,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  return conv;
}

namespace {
/// A grouped 3-D convolution of the padded NCDHW `input` with `weight`
/// [M, C/G, kd, kh, kw], accumulated onto `acc` [N, M, OD, OH, OW].
Value groupedConv3D(OpBuilder &b, Location loc, Value input, Value weight,
                    Value acc, int64_t group, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> dilations) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  // Weights [M, C/G, ...] viewed as [G, M/G, C/G, ...].
  SmallVector<int64_t> wShape = {group, wType.getDimSize(0) / group};
  llvm::append_range(wShape, wType.getShape().drop_front(1));
  Value gw = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(wShape, wType.getElementType()), weight,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}, {5}});
  Value gi = splitChannels(b, loc, input, group);
  Value ga = splitChannels(b, loc, acc, group);
  // Loops (n, g, m, od, oh, ow, c, kd, kh, kw).
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < 10; ++i)
    d.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineExpr> in = {d[0], d[1], d[6]};
  for (unsigned s = 0; s < 3; ++s)
    in.push_back(d[3 + s] * strides[s] + d[7 + s] * dilations[s]);
  SmallVector<AffineMap> maps = {
      AffineMap::get(10, 0, in, ctx),
      AffineMap::get(10, 0, {d[1], d[2], d[6], d[7], d[8], d[9]}, ctx),
      AffineMap::get(10, 0, {d[0], d[1], d[2], d[3], d[4], d[5]}, ctx)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  iterators.append(4, utils::IteratorType::reduction);
  Value conv =
      linalg::GenericOp::create(
          b, loc, TypeRange{ga.getType()}, ValueRange{gi, gw}, ValueRange{ga},
          maps, iterators,
          [](OpBuilder &bb, Location l, ValueRange args) {
            Value product = arith::MulFOp::create(bb, l, args[0], args[1]);
            linalg::YieldOp::create(
                bb, l, arith::AddFOp::create(bb, l, args[2], product)
                           .getResult());
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, accType, conv,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}});
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A 3-D convolution: upstream's NCDHW named op, or with groups a
  /// generic over the grouped views [N, G, C/G, D, H, W] x
  /// [G, M/G, C/G, kd, kh, kw] -> [N, G, M/G, OD, OH, OW] (upstream has no
  /// grouped 3-D named op).
  static LogicalResult lower3D(ConvOp op, OpAdaptor adaptor,
                               ConversionPatternRewriter &rewriter) {
    auto x = cast<RankedTensorType>(adaptor.getInput().getType());
    auto w = getStaticType(adaptor.getWeight());
    auto result = cast<RankedTensorType>(op.getResult().getType());
    int64_t group = op.getGroup();
    if (!w || w.getRank() != 5 || group < 1 ||
        x.getDimSize(1) % group != 0 || w.getDimSize(0) % group != 0 ||
        w.getDimSize(1) * group != x.getDimSize(1))
      return rewriter.notifyMatchFailure(
          op, "only float 3-D conv with channels divisible by the groups");
    Location loc = op.getLoc();
    FailureOr<WindowPlan> plan = planWindows(
        rewriter, loc, op, "Conv", adaptor.getInput(), w.getDimSize(0),
        result, w.getShape().drop_front(2), op.getStrides(),
        op.getDilations(), op.getPads(), op.getAutoPad(), false);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "bad window");
    SmallVector<int64_t> strides = orOnes(op.getStrides(), 3);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), 3);
    Value input = padWithFloat(rewriter, loc, adaptor.getInput(), *plan, 0.0);
    Value acc = createFilled(rewriter, loc, result, plan->sizes, 0.0);
    Value conv =
        group == 1
            ? linalg::Conv3DNcdhwFcdhwOp::create(
                  rewriter, loc, TypeRange{result},
                  ValueRange{input, adaptor.getWeight()}, ValueRange{acc},
                  rewriter.getI64TensorAttr(strides),
                  rewriter.getI64TensorAttr(dilations))
                  .getResult(0)
            : groupedConv3D(rewriter, loc, input, adaptor.getWeight(), acc,
                            group, strides, dilations);
    if (Value bias = adaptor.getBias())
      conv = channelwise(rewriter, loc, conv, bias,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(b, l, a[0], a[1]);
                         });
    rewriter.replaceOp(op, conv);
    return success();
  }

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    auto x = dyn_cast<RankedTensorType>(input.getType());
    auto w = getStaticType(weight);
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!x || !w || !result || x.getRank() < 3 || x.getRank() > 5 ||
        w.getRank() != x.getRank() || result.getRank() != x.getRank() ||
        x.isDynamicDim(1) || !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "only float 1-D, 2-D and 3-D conv with static channels and "
              "weights");
    if (x.getRank() == 5)
      return lower3D(op, adaptor, rewriter);
    std::optional<ArrayRef<int64_t>> strides = op.getStrides(),
                                     dilations = op.getDilations(),
                                     pads = op.getPads();
    // A 1-D convolution is a 2-D one over a height of 1.
    SmallVector<int64_t> strides2, dilations2, pads2;
    bool is1D = x.getRank() == 3;
    RankedTensorType result2D = result;
    if (is1D) {
      input = insertHeight(rewriter, loc, input);
      weight = insertHeight(rewriter, loc, weight);
      result2D = RankedTensorType::get(
          {result.getDimSize(0), result.getDimSize(1), 1, result.getDimSize(2)},
          result.getElementType());
      strides = addHeight(strides, 1, false, strides2);
      dilations = addHeight(dilations, 1, false, dilations2);
      pads = addHeight(pads, 0, true, pads2);
    }
    FailureOr<Value> built = mlc::detail::buildConv2D(
        rewriter, loc, op, input, weight, result2D, strides, dilations, pads,
        op.getAutoPad(), op.getGroup());
    if (failed(built))
      return rewriter.notifyMatchFailure(op, "bad window");
    Value conv = *built;
    if (Value bias = adaptor.getBias())
      conv = channelwise(rewriter, loc, conv, bias,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(b, l, a[0], a[1]);
                         });
    if (is1D)
      conv = tensor::CollapseShapeOp::create(
          rewriter, loc, result, conv,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    rewriter.replaceOp(op, conv);
    return success();
  }
};

/// The plan of a pooling op's windows over `input` (static channels).
template <typename OpTy>
FailureOr<WindowPlan> planPooling(OpBuilder &b, OpTy op, Value input) {
  constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp> ||
                         std::is_same_v<OpTy, MaxPoolIndicesOp>;
  auto x = cast<RankedTensorType>(input.getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  if (x.isDynamicDim(1))
    return failure();
  return planWindows(b, op.getLoc(), op, isMax ? "MaxPool" : "AveragePool",
                     input, x.getDimSize(1), result, op.getKernelShape(),
                     op.getStrides(), op.getDilations(), op.getPads(),
                     op.getAutoPad(), op.getCeilMode());
}

/// 2-D float MaxPool and AveragePool: upstream's NCHW pooling named ops.
template <typename OpTy> struct PoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result || x.getRank() != 4 || kernel.size() != 2 ||
        !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "only 2-D float pooling");
    Location loc = op.getLoc();
    FailureOr<WindowPlan> plan =
        planPooling(rewriter, op, adaptor.getInput());
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "bad window");
    SmallVector<int64_t> strides = orOnes(op.getStrides());
    SmallVector<int64_t> dilations = orOnes(op.getDilations());
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input = padWithFloat(rewriter, loc, adaptor.getInput(), *plan,
                               padValue);
    Value window =
        tensor::EmptyOp::create(rewriter, loc, kernel, x.getElementType());
    auto stridesAttr = rewriter.getI64TensorAttr(strides);
    auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
    auto filled = [&](double v) {
      return createFilled(rewriter, loc, result, plan->sizes, v);
    };
    if constexpr (isMax) {
      rewriter.replaceOp(op, linalg::PoolingNchwMaxOp::create(
                                 rewriter, loc, TypeRange{result},
                                 ValueRange{input, window},
                                 ValueRange{filled(padValue)}, stridesAttr,
                                 dilationsAttr)
                                 .getResult(0));
      return success();
    } else {
      Value sum = linalg::PoolingNchwSumOp::create(
                      rewriter, loc, TypeRange{result},
                      ValueRange{input, window}, ValueRange{filled(0.0)},
                      stridesAttr, dilationsAttr)
                      .getResult(0);
      Value count;
      bool includePad = op.getCountIncludePad();
      CountedPadding split = splitPadding(rewriter, loc, *plan, op.getPads(),
                                          op.getAutoPad());
      if (!plan->isPadded() || (includePad && split.restIsEmpty())) {
        count = filled(double(kernel[0] * kernel[1]));
      } else {
        // Count the input positions in each window (and the pads, with
        // count_include_pad, but not ceil_mode's extra end padding).
        Value ones =
            includePad
                ? countedPositions(rewriter, loc, adaptor.getInput(), split)
                : realPositions(rewriter, loc, adaptor.getInput(), *plan);
        count = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{result}, ValueRange{ones, window},
                    ValueRange{filled(0.0)}, stridesAttr, dilationsAttr)
                    .getResult(0);
      }
      Value init =
          mlc::detail::createEmptyOfSizes(rewriter, loc, result, plan->sizes);
      rewriter.replaceOp(
          op, mlc::detail::divideInto(rewriter, loc, sum, count, init));
      return success();
    }
  }
};

/// A max or sum over the windows of an already padded N-D input, as one
/// generic over (n, c, outputs..., window...): the pooling named ops are
/// 2-D (and 1-D/3-D in other layouts) only.
Value windowReduce(OpBuilder &b, Location loc, Value padded,
                   ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> dilations, RankedTensorType result,
                   ArrayRef<OpFoldResult> sizes, bool isMax) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = result.getRank(), spatial = kernel.size();
  int64_t loops = rank + spatial;
  SmallVector<AffineExpr> in = {getAffineDimExpr(0, ctx),
                                getAffineDimExpr(1, ctx)};
  SmallVector<AffineExpr> window;
  for (int64_t i = 0; i < spatial; ++i) {
    in.push_back(getAffineDimExpr(2 + i, ctx) * strides[i] +
                 getAffineDimExpr(rank + i, ctx) * dilations[i]);
    window.push_back(getAffineDimExpr(rank + i, ctx));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, in, ctx), AffineMap::get(loops, 0, window, ctx),
      AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  Type element = result.getElementType();
  Value windowShape = tensor::EmptyOp::create(b, loc, kernel, element);
  if (auto integer = dyn_cast<IntegerType>(element)) {
    // Integer max pooling (MaxPool takes int8/uint8): the padding already
    // holds the type's minimum, which is also the initial value.
    Value init = createFilled(b, loc, result, sizes, integerMin(b, loc, integer));
    Type signless = mlc::detail::getSignlessType(element);
    return linalg::GenericOp::create(
               b, loc, TypeRange{result}, ValueRange{padded, windowShape}, init,
               maps, iterators,
               [&](OpBuilder &bb, Location l, ValueRange a) {
                 Value x = mlc::detail::viewAs(bb, l, a[0], signless);
                 Value acc = mlc::detail::viewAs(bb, l, a[2], signless);
                 Value v =
                     integer.isUnsigned()
                         ? Value(arith::MaxUIOp::create(bb, l, x, acc))
                         : Value(arith::MaxSIOp::create(bb, l, x, acc));
                 linalg::YieldOp::create(bb, l,
                                         mlc::detail::viewAs(bb, l, v, element));
               })
        .getResult(0);
  }
  Value init = createFilled(
      b, loc, result, sizes,
      isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  return linalg::GenericOp::create(
             b, loc, TypeRange{result}, ValueRange{padded, windowShape}, init,
             maps, iterators,
             [&](OpBuilder &bb, Location l, ValueRange a) {
               Value v =
                   isMax ? Value(arith::MaximumFOp::create(bb, l, a[0], a[2]))
                         : Value(arith::AddFOp::create(bb, l, a[0], a[2]));
               linalg::YieldOp::create(bb, l, v);
             })
      .getResult(0);
}

/// Max and average pooling over 1 or 3 (or more) spatial dims; 2-D pooling
/// keeps the named ops, which the CPU backend vectorizes.
template <typename OpTy> struct PoolNdLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result)
      return rewriter.notifyMatchFailure(op, "ranked pooling only");
    auto integer = dyn_cast<IntegerType>(x.getElementType());
    bool isFloat = isa<FloatType>(x.getElementType());
    // 2-D float pooling keeps the named ops; integers are max-only.
    if ((isFloat && kernel.size() == 2) || (!isFloat && !(isMax && integer)))
      return rewriter.notifyMatchFailure(op, "handled elsewhere or unsupported");
    size_t spatial = kernel.size();
    Location loc = op.getLoc();
    FailureOr<WindowPlan> plan =
        planPooling(rewriter, op, adaptor.getInput());
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "bad window");
    SmallVector<int64_t> strides = orOnes(op.getStrides(), spatial);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), spatial);
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
    bool anyPad = !llvm::all_of(plan->padLow, zero) ||
                  !llvm::all_of(plan->padHigh, zero);
    Value input =
        !integer ? padWithFloat(rewriter, loc, adaptor.getInput(), *plan,
                                padValue)
        : anyPad ? padWindows(rewriter, loc, adaptor.getInput(), *plan,
                              integerMin(rewriter, loc, integer))
                 : adaptor.getInput();
    Value reduced = windowReduce(rewriter, loc, input, kernel, strides,
                                 dilations, result, plan->sizes, isMax);
    if constexpr (isMax) {
      rewriter.replaceOp(op, reduced);
      return success();
    } else {
      Value count;
      bool includePad = op.getCountIncludePad();
      CountedPadding split = splitPadding(rewriter, loc, *plan, op.getPads(),
                                          op.getAutoPad());
      if (!plan->isPadded() || (includePad && split.restIsEmpty())) {
        int64_t size = 1;
        for (int64_t k : kernel)
          size *= k;
        count = createFilled(rewriter, loc, result, plan->sizes,
                             double(size));
      } else {
        Value ones =
            includePad
                ? countedPositions(rewriter, loc, adaptor.getInput(), split)
                : realPositions(rewriter, loc, adaptor.getInput(), *plan);
        count = windowReduce(rewriter, loc, ones, kernel, strides, dilations,
                             result, plan->sizes, false);
      }
      Value init =
          mlc::detail::createEmptyOfSizes(rewriter, loc, result, plan->sizes);
      rewriter.replaceOp(
          op, mlc::detail::divideInto(rewriter, loc, reduced, count, init));
      return success();
    }
  }
};

/// MaxPool's indices: a generic over (n, c, outputs..., window...) with two
/// accumulators, the running maximum and its flat input index; a later
/// element replaces them only when strictly greater (the first maximum
/// wins). Padded positions hold -inf and are never chosen over real ones.
struct MaxPoolIndicesLowering : OpConversionPattern<MaxPoolIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result || !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "float pooling only");
    size_t spatial = kernel.size();
    Location loc = op.getLoc();
    FailureOr<WindowPlan> plan =
        planPooling(rewriter, op, adaptor.getInput());
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "bad window");
    SmallVector<int64_t> strides = orOnes(op.getStrides(), spatial);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), spatial);
    Type element = x.getElementType();
    Value input = padWithFloat(rewriter, loc, adaptor.getInput(), *plan,
                               -std::numeric_limits<double>::infinity());
    // The input's sizes and spatial begin pads, as index values.
    SmallVector<Value> shape, padBegin;
    for (OpFoldResult size : tensor::getMixedSizes(rewriter, loc,
                                                   adaptor.getInput()))
      shape.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    for (size_t i = 0; i < spatial; ++i)
      padBegin.push_back(getValueOrCreateConstantIndexOp(
          rewriter, loc, plan->padLow[2 + i]));
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = result.getRank(), loops = rank + spatial;
    SmallVector<AffineExpr> in = {getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(1, ctx)};
    SmallVector<AffineExpr> window;
    for (size_t i = 0; i < spatial; ++i) {
      in.push_back(getAffineDimExpr(2 + i, ctx) * strides[i] +
                   getAffineDimExpr(rank + i, ctx) * dilations[i]);
      window.push_back(getAffineDimExpr(rank + i, ctx));
    }
    AffineMap outMap =
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank);
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, in, ctx),
                                   AffineMap::get(loops, 0, window, ctx),
                                   outMap, outMap};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.append(spatial, utils::IteratorType::reduction);
    auto valueType = RankedTensorType::get(result.getShape(), element);
    Value windowShape = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    Value maxInit = createFilled(rewriter, loc, valueType, plan->sizes,
                                 -std::numeric_limits<double>::infinity());
    Value indexInit = createFilled(
        rewriter, loc, result, plan->sizes,
        arith::ConstantOp::create(rewriter, loc, result.getElementType(),
                                  rewriter.getIntegerAttr(
                                      result.getElementType(), 0)));
    bool columnMajor = op.getStorageOrder() == 1;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, result},
        ValueRange{input, windowShape}, ValueRange{maxInit, indexInit}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          // The unpadded input position of this window element.
          SmallVector<Value> position = {linalg::IndexOp::create(b, l, 0),
                                         linalg::IndexOp::create(b, l, 1)};
          for (size_t i = 0; i < spatial; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value k = linalg::IndexOp::create(b, l, rank + i);
            Value p = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, o, c(strides[i])),
                arith::MulIOp::create(b, l, k, c(dilations[i])));
            position.push_back(arith::SubIOp::create(b, l, p, padBegin[i]));
          }
          // Flat index: n, c, then the spatial dims in storage order.
          SmallVector<unsigned> order = {0, 1};
          for (size_t i = 0; i < spatial; ++i)
            order.push_back(columnMajor ? 2 + spatial - 1 - i : 2 + i);
          Value flat = c(0);
          for (unsigned d : order)
            flat = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, flat, shape[d]),
                position[d]);
          Value greater = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OGT, a[0], a[2]);
          Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, greater, a[0], a[2]),
                         arith::SelectOp::create(b, l, greater, index, a[3])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

struct GlobalAveragePoolLowering : OpConversionPattern<GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Dims may be known at run time only (an image of any size).
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!x || !result || x.getRank() != 4 || result.getRank() != 4 ||
        !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "only 2-D float pooling");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<OpFoldResult> in =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> sizes = {in[0], in[1], rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1)};
    Type element = result.getElementType();
    auto filled = [&](double v) {
      Value empty = mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
      return linalg::FillOp::create(
                 rewriter, loc,
                 Value(arith::ConstantOp::create(
                     rewriter, loc, element, rewriter.getFloatAttr(element, v))),
                 empty)
          .getResult(0);
    };
    AffineExpr n = rewriter.getAffineDimExpr(0),
               c = rewriter.getAffineDimExpr(1);
    AffineExpr zero = rewriter.getAffineConstantExpr(0);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(4),
        AffineMap::get(4, 0, {n, c, zero, zero}, ctx)};
    SmallVector<utils::IteratorType> it = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction, utils::IteratorType::reduction};
    // 1 / (H * W), computed once where the size is known at run time.
    Value scale;
    if (!x.isDynamicDim(2) && !x.isDynamicDim(3)) {
      scale = arith::ConstantOp::create(
          rewriter, loc, element,
          rewriter.getFloatAttr(element,
                                1.0 / (x.getDimSize(2) * x.getDimSize(3))));
    } else {
      Value area = arith::MulIOp::create(
          rewriter, loc,
          getValueOrCreateConstantIndexOp(rewriter, loc, in[2]),
          getValueOrCreateConstantIndexOp(rewriter, loc, in[3]));
      Value areaF = arith::UIToFPOp::create(
          rewriter, loc, element,
          arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                       area));
      scale = arith::DivFOp::create(
          rewriter, loc,
          arith::ConstantOp::create(rewriter, loc, element,
                                    rewriter.getFloatAttr(element, 1.0)),
          areaF);
    }
    Value sum = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{result}, adaptor.getInput(),
                    filled(0.0), maps, it,
                    [](OpBuilder &b, Location l, ValueRange a) {
                      linalg::YieldOp::create(
                          b, l, Value(arith::AddFOp::create(b, l, a[0], a[1])));
                    })
                    .getResult(0);
    SmallVector<AffineMap> scaleMaps(2, rewriter.getMultiDimIdentityMap(4));
    SmallVector<utils::IteratorType> par(4, utils::IteratorType::parallel);
    Value init = mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
    rewriter.replaceOp(
        op, linalg::GenericOp::create(
                rewriter, loc, TypeRange{result}, sum, init, scaleMaps, par,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  linalg::YieldOp::create(
                      b, l, Value(arith::MulFOp::create(b, l, a[0], scale)));
                })
                .getResult(0));
    return success();
  }
};

/// (x - mean) * scale / sqrt(var + epsilon) + bias, channel by channel.
} // namespace

void mlc::populateGraphConvPoolToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConvLowering, PoolLowering<MaxPoolOp>, PoolLowering<AveragePoolOp>,
           PoolNdLowering<MaxPoolOp>, PoolNdLowering<AveragePoolOp>,
           MaxPoolIndicesLowering,
           GlobalAveragePoolLowering>(
          patterns.getContext());
}
