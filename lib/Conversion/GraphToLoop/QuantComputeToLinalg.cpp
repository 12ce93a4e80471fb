//===- QuantComputeToLinalg.cpp - Integer matmul and convolution ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMulInteger and ConvInteger: each operand is widened to i32 with its
// zero point subtracted (one elementwise generic), then multiplied and
// accumulated in i32 (the matmul generic, or the convolution named ops with
// zero padding, which is the zero point before the subtraction).
//
// QLinearMatMul and QLinearConv add ONNX's requantization to that:
//   y = saturate(round_half_even(acc * (x_scale * w_scale / y_scale)) + y_zp)
// with the multiplier computed in f32 (as ONNX's reference does) and the
// product and rounding in f64, so that no rounding step is added; QLinearConv
// adds its i32 bias to the accumulator first. Scales and zero points are
// scalars, or 1-D per row / column / output channel.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Windows.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// The map reading a quantization parameter for loop nests of `rank`: a
/// scalar (rank 0 or one element) reads one element, a 1-D tensor follows
/// loop `axis`.
FailureOr<AffineMap> getParamMap(Value v, unsigned rank, unsigned axis,
                                 MLIRContext *ctx) {
  auto type = getStaticType(v);
  if (!type || type.getRank() > 1)
    return failure();
  if (type.getRank() == 0)
    return AffineMap::get(rank, 0, {}, ctx);
  if (type.getDimSize(0) == 1)
    return AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

/// An integer scalar of (possibly unsigned) type `original` as i32.
Value toI32(OpBuilder &b, Location loc, Value v, Type original) {
  v = mlc::detail::viewAs(b, loc, v, mlc::detail::getSignlessType(original));
  Type i32 = b.getI32Type();
  unsigned width = original.getIntOrFloatBitWidth();
  if (width == 32)
    return v;
  if (width > 32)
    return arith::TruncIOp::create(b, loc, i32, v);
  return original.isUnsignedInteger()
             ? Value(arith::ExtUIOp::create(b, loc, i32, v))
             : Value(arith::ExtSIOp::create(b, loc, i32, v));
}

/// x - zero_point in i32; a 1-D zero point follows dim `axis` of x.
FailureOr<Value> widen(OpBuilder &b, Location loc, Value x, Value zeroPoint,
                       unsigned axis) {
  auto type = getStaticType(x);
  if (!type || !isa<IntegerType>(type.getElementType()))
    return failure();
  unsigned rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> ins = {x};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  Type zpType;
  if (zeroPoint) {
    FailureOr<AffineMap> map = getParamMap(zeroPoint, rank, axis, ctx);
    if (failed(map))
      return failure();
    ins.push_back(zeroPoint);
    maps.push_back(*map);
    zpType = getStaticType(zeroPoint).getElementType();
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type element = type.getElementType();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), b.getI32Type());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ins, init, maps, iterators,
      [&](OpBuilder &bb, Location l, ValueRange a) {
        Value v = toI32(bb, l, a[0], element);
        if (zeroPoint)
          v = arith::SubIOp::create(bb, l, v, toI32(bb, l, a[1], zpType));
        linalg::YieldOp::create(bb, l, v);
      });
  // A dequantization with a scale of one: targets with integer units
  // multiply the integers themselves.
  generic->setAttr(mlc::loop::LoopDialect::DequantizeAttrHelper::getNameStr(),
                   b.getUnitAttr());
  return generic.getResult(0);
}

/// (batch) matmul of two i32 tensors into `result` (i32): a linalg.matmul
/// for matrices.
Value integerMatMul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    RankedTensorType result) {
  int64_t rank = result.getRank();
  if (rank == 2 && getStaticType(lhs).getRank() == 2 &&
      getStaticType(rhs).getRank() == 2) {
    Value acc = mlc::detail::createFilledTensor(b, loc, result, APInt(32, 0));
    return linalg::MatmulOp::create(b, loc, TypeRange{result},
                                    ValueRange{lhs, rhs}, ValueRange{acc})
        .getResult(0);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value acc = mlc::detail::createFilledTensor(b, loc, result, APInt(32, 0));
  return linalg::GenericOp::create(
             b, loc, TypeRange{result}, ValueRange{lhs, rhs}, acc,
             mlc::detail::getMatMulMaps(getStaticType(lhs), getStaticType(rhs),
                                        result),
             iterators,
             [](OpBuilder &bb, Location l, ValueRange v) {
               Value p = arith::MulIOp::create(bb, l, v[0], v[1]);
               linalg::YieldOp::create(
                   bb, l, Value(arith::AddIOp::create(bb, l, v[2], p)));
             })
      .getResult(0);
}

/// A quantization parameter with the loop it follows when 1-D.
struct Param {
  Value value;
  unsigned axis;
};

/// y = saturate(round(acc * (xScale * wScale / yScale)) + yZeroPoint).
FailureOr<Value> requantize(OpBuilder &b, Location loc, Value acc, Param xScale,
                            Param wScale, Param yScale, Param yZeroPoint,
                            RankedTensorType result) {
  auto integer = dyn_cast<IntegerType>(result.getElementType());
  if (!integer || integer.getWidth() > 32)
    return failure();
  unsigned rank = result.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> ins = {acc};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  for (Param p : {xScale, wScale, yScale, yZeroPoint}) {
    FailureOr<AffineMap> map = getParamMap(p.value, rank, p.axis, ctx);
    if (failed(map))
      return failure();
    ins.push_back(p.value);
    maps.push_back(*map);
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type zpType = getStaticType(yZeroPoint.value).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, result.getShape(),
                                       result.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  bool isUnsigned = integer.isUnsigned();
  unsigned width = integer.getWidth();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  return linalg::GenericOp::create(
             b, loc, TypeRange{result}, ins, init, maps, iterators,
             [&](OpBuilder &bb, Location l, ValueRange a) {
               Type f32 = bb.getF32Type(), f64 = bb.getF64Type();
               auto asF32 = [&](Value v) {
                 return v.getType() == f32
                            ? v
                            : Value(arith::TruncFOp::create(bb, l, f32, v));
               };
               Value multiplier = arith::DivFOp::create(
                   bb, l,
                   arith::MulFOp::create(bb, l, asF32(a[1]), asF32(a[2])),
                   asF32(a[3]));
               Value v = arith::MulFOp::create(
                   bb, l, arith::SIToFPOp::create(bb, l, f64, a[0]),
                   arith::ExtFOp::create(bb, l, f64, multiplier));
               v = math::RoundEvenOp::create(bb, l, v);
               v = arith::AddFOp::create(
                   bb, l, v,
                   arith::SIToFPOp::create(bb, l, f64,
                                           toI32(bb, l, a[4], zpType)));
               auto cst = [&](double c) {
                 return arith::ConstantOp::create(bb, l, f64,
                                                  bb.getF64FloatAttr(c));
               };
               v = arith::MaximumFOp::create(bb, l, v, cst(lo));
               v = arith::MinimumFOp::create(bb, l, v, cst(hi));
               Type signless = IntegerType::get(bb.getContext(), width);
               v = isUnsigned
                       ? Value(arith::FPToUIOp::create(bb, l, signless, v))
                       : Value(arith::FPToSIOp::create(bb, l, signless, v));
               linalg::YieldOp::create(
                   bb, l,
                   mlc::detail::viewAs(bb, l, v, result.getElementType()));
             })
      .getResult(0);
}

/// lhs [..., M, K], rhs [..., K, N]: both widened, multiplied in i32.
FailureOr<Value> matmulInteger(OpBuilder &b, Location loc, Value lhs,
                               Value lhsZeroPoint, Value rhs,
                               Value rhsZeroPoint, ArrayRef<int64_t> shape) {
  auto a = getStaticType(lhs), w = getStaticType(rhs);
  if (!a || !w || a.getRank() < 2 || w.getRank() < 2)
    return failure();
  FailureOr<Value> wa = widen(b, loc, lhs, lhsZeroPoint, a.getRank() - 2);
  FailureOr<Value> wb = widen(b, loc, rhs, rhsZeroPoint, w.getRank() - 1);
  if (failed(wa) || failed(wb))
    return failure();
  return integerMatMul(b, loc, *wa, *wb,
                       RankedTensorType::get(shape, b.getI32Type()));
}

struct MatMulIntegerLowering : OpConversionPattern<MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    FailureOr<Value> acc = matmulInteger(
        rewriter, op.getLoc(), adaptor.getLhs(), adaptor.getLhsZeroPoint(),
        adaptor.getRhs(), adaptor.getRhsZeroPoint(), result.getShape());
    if (failed(acc))
      return rewriter.notifyMatchFailure(op, "unsupported operand shapes");
    rewriter.replaceOp(op, *acc);
    return success();
  }
};

struct QLinearMatMulLowering : OpConversionPattern<QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QLinearMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || result.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    FailureOr<Value> acc = matmulInteger(
        rewriter, loc, adaptor.getLhs(), adaptor.getLhsZeroPoint(),
        adaptor.getRhs(), adaptor.getRhsZeroPoint(), result.getShape());
    if (failed(acc))
      return rewriter.notifyMatchFailure(op, "unsupported operand shapes");
    unsigned rows = result.getRank() - 2, cols = result.getRank() - 1;
    FailureOr<Value> y = requantize(
        rewriter, loc, *acc, {adaptor.getLhsScale(), rows},
        {adaptor.getRhsScale(), cols}, {adaptor.getOutputScale(), cols},
        {adaptor.getOutputZeroPoint(), cols}, result);
    if (failed(y))
      return rewriter.notifyMatchFailure(op, "unsupported parameters");
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// The i32 convolution of a quantized conv op (input and weight widened by
/// their zero points; a 1-D weight zero point is per output channel).
template <typename OpTy>
FailureOr<Value> convInteger(OpBuilder &b, OpTy op, Value input,
                             Value inputZeroPoint, Value weight,
                             Value weightZeroPoint) {
  auto result = getStaticType(op.getResult());
  if (!result || (result.getRank() != 4 && result.getRank() != 3))
    return failure();
  Location loc = op.getLoc();
  FailureOr<Value> x = widen(b, loc, input, inputZeroPoint, 1);
  FailureOr<Value> w = widen(b, loc, weight, weightZeroPoint, 0);
  if (failed(x) || failed(w))
    return failure();
  auto acc = RankedTensorType::get(result.getShape(), b.getI32Type());
  if (result.getRank() == 4)
    return mlc::detail::buildConv2D(b, loc, op, *x, *w, acc, op.getStrides(),
                                    op.getDilations(), op.getPads(),
                                    op.getAutoPad(), op.getGroup());
  // 1-D: a 2-D convolution over a height of 1, as for float Conv.
  SmallVector<int64_t> strides, dilations, pads;
  FailureOr<Value> conv = mlc::detail::buildConv2D(
      b, loc, op, mlc::detail::insertHeight(b, loc, *x),
      mlc::detail::insertHeight(b, loc, *w),
      RankedTensorType::get({result.getDimSize(0), result.getDimSize(1), 1,
                             result.getDimSize(2)},
                            b.getI32Type()),
      mlc::detail::addHeight(op.getStrides(), 1, false, strides),
      mlc::detail::addHeight(op.getDilations(), 1, false, dilations),
      mlc::detail::addHeight(op.getPads(), 0, true, pads), op.getAutoPad(),
      op.getGroup());
  if (failed(conv))
    return failure();
  return tensor::CollapseShapeOp::create(
             b, loc, acc, *conv,
             ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}})
      .getResult();
}

struct ConvIntegerLowering : OpConversionPattern<ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> acc = convInteger(
        rewriter, op, adaptor.getInput(), adaptor.getInputZeroPoint(),
        adaptor.getWeight(), adaptor.getWeightZeroPoint());
    if (failed(acc))
      return rewriter.notifyMatchFailure(op,
                                         "only static 1-D and 2-D convolutions");
    rewriter.replaceOp(op, *acc);
    return success();
  }
};

struct QLinearConvLowering : OpConversionPattern<QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> acc = convInteger(
        rewriter, op, adaptor.getInput(), adaptor.getInputZeroPoint(),
        adaptor.getWeight(), adaptor.getWeightZeroPoint());
    if (failed(acc))
      return rewriter.notifyMatchFailure(op,
                                         "only static 1-D and 2-D convolutions");
    Location loc = op.getLoc();
    auto result = getStaticType(op.getResult());
    Value sum = *acc;
    if (Value bias = adaptor.getBias()) {
      auto type = cast<RankedTensorType>(sum.getType());
      unsigned rank = type.getRank();
      MLIRContext *ctx = rewriter.getContext();
      FailureOr<AffineMap> biasMap = getParamMap(bias, rank, 1, ctx);
      if (failed(biasMap))
        return rewriter.notifyMatchFailure(op, "bias must be 1-D");
      SmallVector<AffineMap> maps = {
          AffineMap::getMultiDimIdentityMap(rank, ctx), *biasMap,
          AffineMap::getMultiDimIdentityMap(rank, ctx)};
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
      sum = linalg::GenericOp::create(
                rewriter, loc, TypeRange{type}, ValueRange{sum, bias}, init,
                maps, iterators,
                [](OpBuilder &bb, Location l, ValueRange a) {
                  linalg::YieldOp::create(
                      bb, l, Value(arith::AddIOp::create(bb, l, a[0], a[1])));
                })
                .getResult(0);
    }
    FailureOr<Value> y =
        requantize(rewriter, loc, sum, {adaptor.getInputScale(), 1},
                   {adaptor.getWeightScale(), 1}, {adaptor.getOutputScale(), 1},
                   {adaptor.getOutputZeroPoint(), 1}, result);
    if (failed(y))
      return rewriter.notifyMatchFailure(op, "unsupported parameters");
    rewriter.replaceOp(op, *y);
    return success();
  }
};
} // namespace

void mlc::populateGraphQuantComputeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatMulIntegerLowering, QLinearMatMulLowering,
               ConvIntegerLowering, QLinearConvLowering>(patterns.getContext());
}
