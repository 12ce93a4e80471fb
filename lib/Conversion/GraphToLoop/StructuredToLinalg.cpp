//===- StructuredToLinalg.cpp - Constant, Gemm, Softmax -------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "LoweringUtils.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::getStaticType;

namespace {
/// Transposes a 2-D tensor.
Value transpose2d(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{t.getDimSize(1), t.getDimSize(0)},
      t.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = cast<TensorType>(op.getType()).getElementType();
    if (!isa<IntegerType, FloatType>(element))
      return rewriter.notifyMatchFailure(op, "not a number tensor");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(),
                                                   op.getValue());
    return success();
  }
};

/// alpha * op(A) op(B) + beta * C: transposes, one linalg.matmul, then one
/// generic for the scaling and the broadcast add of C.
struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || !getStaticType(adaptor.getA()) ||
        !getStaticType(adaptor.getB()) ||
        !isa<FloatType>(result.getElementType()) ||
        (adaptor.getC() && !getStaticType(adaptor.getC())))
      return rewriter.notifyMatchFailure(op, "only static float gemm");
    Location loc = op.getLoc();
    Value a = adaptor.getA(), b = adaptor.getB();
    if (op.getTransA())
      a = transpose2d(rewriter, loc, a);
    if (op.getTransB())
      b = transpose2d(rewriter, loc, b);
    Value product =
        linalg::MatmulOp::create(
            rewriter, loc, ValueRange{a, b},
            ValueRange{createFilledTensor(rewriter, loc, result, 0.0)})
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, product);
      return success();
    }
    Type element = result.getElementType();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(2)};
    SmallVector<Value> ins = {product};
    if (c && beta != 0.0) {
      auto ct = cast<RankedTensorType>(c.getType());
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < ct.getRank(); ++i) {
        int64_t dim = i + 2 - ct.getRank();
        exprs.push_back(ct.getDimSize(i) == 1 && result.getDimSize(dim) != 1
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(dim));
      }
      maps.push_back(AffineMap::get(2, 0, exprs, rewriter.getContext()));
      ins.push_back(c);
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(2));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, result.getShape(), element);
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ins, ValueRange{init}, maps,
        iterators, [&](OpBuilder &bb, Location l, ValueRange args) {
          auto cst = [&](double v) {
            return arith::ConstantOp::create(bb, l, element,
                                             bb.getFloatAttr(element, v));
          };
          Value v = args[0];
          if (alpha != 1.0)
            v = arith::MulFOp::create(bb, l, v, cst(alpha));
          if (ins.size() > 1) {
            Value cv = args[1];
            if (beta != 1.0)
              cv = arith::MulFOp::create(bb, l, cv, cst(beta));
            v = arith::AddFOp::create(bb, l, v, cv);
          }
          linalg::YieldOp::create(bb, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Softmax through upstream linalg.softmax's own decomposition (max, exp of
/// the difference, sum, divide); dims known only at run time are read with
/// tensor.dim.
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "only ranked float softmax");
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), type.getRank());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, adaptor.getInput()),
        type.getElementType());
    auto softmax = linalg::SoftmaxOp::create(rewriter, loc, TypeRange{type},
                                             adaptor.getInput(), init, axis);
    FailureOr<SmallVector<Value>> parts =
        cast<linalg::AggregatedOpInterface>(softmax.getOperation())
            .decomposeOperation(rewriter);
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "softmax decomposition failed");
    Value result = parts->front();
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    rewriter.eraseOp(softmax);
    return success();
  }
};

} // namespace

void mlc::populateGraphStructuredToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, GemmLowering, SoftmaxLowering>(
      patterns.getContext());
}
