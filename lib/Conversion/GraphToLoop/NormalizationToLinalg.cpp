//===- NormalizationToLinalg.cpp - Batch norm and LRN ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Inference batch normalization and local response normalization (LRN) to
// linalg generics.
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "LoweringUtils.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::channelwise;
using mlc::detail::getStaticType;
using mlc::detail::static4d;

namespace {
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Inference batch normalization is a per-channel affine on dim 1 for
    // every rank from 2 (after Flatten or Gemm) to 5; dims but the channels'
    // may be known at run time only.
    auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || type.getRank() < 2 || type.isDynamicDim(1) ||
        !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a float input of rank >= 2 "
                                             "with static channels");
    double eps = op.getEpsilon().convertToDouble();
    Type element = type.getElementType();
    Location loc = op.getLoc();
    // Per channel first, once: a = scale / sqrt(var + eps) and
    // b = bias - mean * a; then each element is x * a + b (one FMA, no
    // square root or division per element).
    Value scale = adaptor.getScale();
    auto paramType = dyn_cast<RankedTensorType>(scale.getType());
    if (!paramType || paramType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs 1-D parameters");
    MLIRContext *ctx = rewriter.getContext();
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, scale), element);
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto factors = linalg::GenericOp::create(
        rewriter, loc, TypeRange{empty.getType(), empty.getType()},
        ValueRange{scale, adaptor.getBias(), adaptor.getMean(),
                   adaptor.getVariance()},
        ValueRange{empty, empty}, SmallVector<AffineMap>(6, id),
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value e = arith::ConstantOp::create(b, l, element,
                                              b.getFloatAttr(element, eps));
          // 1 / sqrt: libm has no rsqrtf for math.rsqrt.
          Value one = arith::ConstantOp::create(b, l, element,
                                                b.getFloatAttr(element, 1.0));
          Value inv = arith::DivFOp::create(
              b, l, one,
              math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, a[3], e)));
          Value factor = arith::MulFOp::create(b, l, a[0], inv);
          Value shift = arith::SubFOp::create(
              b, l, a[1], arith::MulFOp::create(b, l, a[2], factor));
          linalg::YieldOp::create(b, l, ValueRange{factor, shift});
        });
    rewriter.replaceOp(
        op, channelwise(rewriter, loc, adaptor.getInput(),
                        {factors.getResult(0), factors.getResult(1)},
                        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                          return math::FmaOp::create(b, l, a[0], a[1], a[2]);
                        }));
    return success();
  }
};
/// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta. The window sum is a
/// reduction over a copy of the channel dim read from a zero-padded x.
struct LRNLowering : OpConversionPattern<LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getStaticType(adaptor.getInput());
    int64_t size = static_cast<int64_t>(op.getSize());
    if (!type || type.getRank() < 3 || size < 1 ||
        !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a static float N, C, ...");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    Type element = type.getElementType();
    int64_t low = (size - 1) / 2, high = size - 1 - low;
    SmallVector<int64_t> lows(rank, 0), highs(rank, 0);
    lows[1] = low;
    highs[1] = high;
    SmallVector<int64_t> paddedShape(type.getShape());
    paddedShape[1] += low + high;
    Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getZeroAttr(element));
    Value padded = tensor::PadOp::create(
        rewriter, loc, RankedTensorType::get(paddedShape, element),
        adaptor.getInput(), getAsIndexOpFoldResult(rewriter.getContext(), lows),
        getAsIndexOpFoldResult(rewriter.getContext(), highs), zero);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> window;
    for (int64_t d = 0; d < rank; ++d)
      window.push_back(d == 1 ? getAffineDimExpr(1, ctx) +
                                    getAffineDimExpr(rank, ctx)
                              : getAffineDimExpr(d, ctx));
    // The window operand only gives the reduction loop its extent.
    Value windowShape = tensor::EmptyOp::create(rewriter, loc, {size}, element);
    SmallVector<AffineMap> sumMaps = {
        AffineMap::get(rank + 1, 0, window, ctx),
        AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> sumIterators(
        rank, utils::IteratorType::parallel);
    sumIterators.push_back(utils::IteratorType::reduction);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{padded, windowShape},
            createFilledTensor(rewriter, loc, type, 0.0), sumMaps,
            sumIterators,
            [](OpBuilder &b, Location l, ValueRange a) {
              Value sq = arith::MulFOp::create(b, l, a[0], a[0]);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, a[2], sq)));
            })
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble() / size;
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    SmallVector<AffineMap> maps(3, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         element);
    rewriter.replaceOp(
        op, linalg::GenericOp::create(
                rewriter, loc, TypeRange{type},
                ValueRange{adaptor.getInput(), sum}, init, maps, iterators,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  auto cst = [&](double v) {
                    return arith::ConstantOp::create(
                        b, l, element, b.getFloatAttr(element, v));
                  };
                  Value d = arith::AddFOp::create(
                      b, l, cst(bias), arith::MulFOp::create(b, l, cst(alpha),
                                                             a[1]));
                  d = math::PowFOp::create(b, l, d, cst(beta));
                  linalg::YieldOp::create(
                      b, l, Value(arith::DivFOp::create(b, l, a[0], d)));
                })
                .getResult(0));
    return success();
  }
};
} // namespace

/// out[n, c, ...] = f(in[n, c, ...], params[c]...) as one generic (any
/// rank; channels are dim 1).
Value mlc::detail::channelwise(OpBuilder &b, Location loc, Value input, ValueRange params,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  for (size_t i = 0; i < params.size(); ++i)
    maps.push_back(AffineMap::get(rank, 0, {b.getAffineDimExpr(1)}, ctx));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<Value> ins = {input};
  llvm::append_range(ins, params);
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, input), type.getElementType());
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ins, ValueRange{init}, maps, it,
             [&](OpBuilder &bb, Location l, ValueRange args) {
               linalg::YieldOp::create(bb, l, fn(bb, l, args.drop_back()));
             })
      .getResult(0);
}

void mlc::populateGraphNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, LRNLowering>(patterns.getContext());
}
