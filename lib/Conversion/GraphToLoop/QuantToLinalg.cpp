//===- QuantToLinalg.cpp - ONNX linear quantization to linalg.generic -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
// DequantizeLinear: y = (x - zero_point) * scale
// with a scalar scale/zero point or one per element of `axis`. Integer
// tensors may be unsigned: inside the generic they are viewed as signless
// values of the same width.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// The indexing map of a scale or zero point: a scalar (rank 0 or one
/// element) reads nothing, a 1-D tensor follows `axis`.
FailureOr<AffineMap> getParameterMap(Value v, int64_t rank, int64_t axis,
                                     MLIRContext *context) {
  auto type = getStaticType(v);
  if (!type || type.getRank() > 1)
    return failure();
  if (type.getRank() == 0)
    return AffineMap::get(rank, 0, {}, context);
  if (type.getDimSize(0) == 1)
    return AffineMap::get(rank, 0, {getAffineConstantExpr(0, context)},
                          context);
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, context)}, context);
}

/// An integer scalar as the float type `f` (unsigned types convert as such).
Value intToFloat(OpBuilder &b, Location loc, Value v, Type original,
                 FloatType f) {
  v = mlc::detail::viewAs(b, loc, v, mlc::detail::getSignlessType(original));
  return original.isUnsignedInteger() ? Value(arith::UIToFPOp::create(b, loc, f, v))
                              : Value(arith::SIToFPOp::create(b, loc, f, v));
}

template <typename OpTy>
LogicalResult buildQuantGeneric(OpTy op, Value input, Value scale,
                                Value zeroPoint,
                                ConversionPatternRewriter &rewriter) {
  constexpr bool quantize = std::is_same_v<OpTy, QuantizeLinearOp>;
  auto in = getStaticType(input);
  auto result = getStaticType(op.getResult());
  if (!in || !result)
    return rewriter.notifyMatchFailure(op, "needs static shapes");
  int64_t rank = in.getRank();
  int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
  MLIRContext *context = rewriter.getContext();
  SmallVector<Value> ins = {input, scale};
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
  FailureOr<AffineMap> scaleMap = getParameterMap(scale, rank, axis, context);
  if (failed(scaleMap))
    return rewriter.notifyMatchFailure(op, "scale must be scalar or 1-D");
  maps.push_back(*scaleMap);
  if (zeroPoint) {
    FailureOr<AffineMap> zpMap = getParameterMap(zeroPoint, rank, axis, context);
    if (failed(zpMap))
      return rewriter.notifyMatchFailure(op, "zero point must be scalar or 1-D");
    ins.push_back(zeroPoint);
    maps.push_back(*zpMap);
  }
  maps.push_back(rewriter.getMultiDimIdentityMap(rank));
  Type intType = quantize ? result.getElementType() : in.getElementType();
  auto integer = dyn_cast<IntegerType>(intType);
  auto floatType = dyn_cast<FloatType>(
      quantize ? in.getElementType() : result.getElementType());
  if (!integer || !floatType)
    return rewriter.notifyMatchFailure(op, "unsupported element types");
  Location loc = op.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                       result.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type zpType = zeroPoint ? getStaticType(zeroPoint).getElementType() : Type();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{result}, ins, init, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value s = a[1];
        if (s.getType() != floatType)
          s = arith::TruncFOp::create(b, l, floatType, s);
        Value zp = zeroPoint ? intToFloat(b, l, a[2], zpType, floatType)
                             : arith::ConstantOp::create(
                                   b, l, floatType,
                                   b.getFloatAttr(floatType, 0.0));
        Value v;
        if constexpr (quantize) {
          unsigned width = integer.getWidth();
          bool isUnsigned = integer.isUnsigned();
          double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
          double hi = isUnsigned ? std::ldexp(1.0, width) - 1
                                 : std::ldexp(1.0, width - 1) - 1;
          Value q = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, a[0], s));
          q = arith::AddFOp::create(b, l, q, zp);
          // NaN saturates to the low end, as ONNX Runtime's kernels do
          // (and one instruction each on x86, with constant bounds).
          q = arith::MaxNumFOp::create(
              b, l, q,
              arith::ConstantOp::create(b, l, floatType,
                                        b.getFloatAttr(floatType, lo)));
          q = arith::MinNumFOp::create(
              b, l, q,
              arith::ConstantOp::create(b, l, floatType,
                                        b.getFloatAttr(floatType, hi)));
          Type signless = IntegerType::get(b.getContext(), width);
          v = isUnsigned ? Value(arith::FPToUIOp::create(b, l, signless, q))
                         : Value(arith::FPToSIOp::create(b, l, signless, q));
          v = mlc::detail::viewAs(b, l, v, intType);
        } else {
          Value x = intToFloat(b, l, a[0], intType, floatType);
          v = arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, x, zp),
                                    s);
        }
        linalg::YieldOp::create(b, l, v);
      });
  if constexpr (quantize)
    generic->setAttr(mlc::loop::LoopDialect::QuantizeAttrHelper::getNameStr(),
                     rewriter.getUnitAttr());
  else
    generic->setAttr(mlc::loop::LoopDialect::DequantizeAttrHelper::getNameStr(),
                     rewriter.getUnitAttr());
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

struct QuantizeLinearLowering : OpConversionPattern<QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return buildQuantGeneric(op, adaptor.getInput(), adaptor.getScale(),
                             adaptor.getZeroPoint(), rewriter);
  }
};

struct DequantizeLinearLowering : OpConversionPattern<DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return buildQuantGeneric(op, adaptor.getInput(), adaptor.getScale(),
                             adaptor.getZeroPoint(), rewriter);
  }
};
} // namespace

void mlc::populateGraphQuantToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering>(
      patterns.getContext());
}
