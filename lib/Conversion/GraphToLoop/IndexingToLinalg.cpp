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
// tensor.extract inside the generic's body) and Expand (a broadcast read).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"


using namespace mlir;
using namespace mlc::graph;
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
    auto type = getStaticType(adaptor.getInput());
    if (!type || type.getRank() < 2 || type != getStaticType(op.getResult()))
      return rewriter.notifyMatchFailure(op, "needs a static shape, rank >= 2");
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
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
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
    rewriter.replaceOp(op, generic.getResults());
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
    int64_t axis = static_cast<int64_t>(op.getAxis());
    axis = axis < 0 ? axis + rank : axis;
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
          // Negative indices count from the end of the axis.
          Value at = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value size = arith::ConstantIndexOp::create(b, l, axisSize);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at, zero);
          at = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, at, size), at);
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
/// Expand: numpy broadcasting of the input to the (static) result shape; the
/// shape operand has been folded into the result type.
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!in || !result || in.getRank() > result.getRank())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = result.getRank();
    int64_t offset = rank - in.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < in.getRank(); ++i)
      exprs.push_back(in.getDimSize(i) == 1 && result.getDimSize(i + offset) != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(i + offset));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         result.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, adaptor.getInput(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, a[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TriluLowering, GatherElementsLowering, ExpandLowering>(
      patterns.getContext());
}
