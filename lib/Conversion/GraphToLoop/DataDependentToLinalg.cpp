//===- DataDependentToLinalg.cpp - Results sized by values ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Range, ConstantOfShape, NonZero, Compress and OneHot on run-time values:
// their result's
// size is computed when the model runs (a dynamic dim). A size that cannot
// be (a Range step of 0, a negative dim, more bytes than a tensor may
// hold) fails a run-time check (`cf.assert`, which the model reports as an
// error code naming the node) and the op then makes an empty result, so
// that nothing after it reads or writes out of bounds. A dynamic result
// that reaches the model's outputs is allocated by the model
// (mlc-host-dynamic-outputs).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

using namespace mlc::detail;

namespace {
struct RangeToLinalg : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a 1-D result");
    for (Value v : adaptor.getOperands())
      if (auto t = getStaticType(v); !t || t.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "needs one-element operands");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    Type compute = getSignlessType(element);
    auto scalar = [&](Value v) {
      Value s = extractScalar(rewriter, loc, v);
      return s.getType() == compute
                 ? s
                 : UnrealizedConversionCastOp::create(rewriter, loc, compute, s)
                       .getResult(0);
    };
    Value start = scalar(adaptor.getStart());
    Value limit = scalar(adaptor.getLimit());
    Value delta = scalar(adaptor.getDelta());
    Type i64 = rewriter.getI64Type();
    int64_t maxCount =
        kMaxRunTimeTensorBytes /
        std::max<int64_t>(1, llvm::divideCeil(
                                 compute.getIntOrFloatBitWidth(), 8));
    Value maxValue = arith::ConstantIntOp::create(rewriter, loc, i64, maxCount);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value count, ok;
    if (isa<FloatType>(compute)) {
      // ceil((limit - start) / delta), in f64 as ONNX's reference does.
      Type f64 = rewriter.getF64Type();
      auto wide = [&](Value v) -> Value {
        return v.getType() == f64 ? v
                                  : arith::ExtFOp::create(rewriter, loc, f64, v);
      };
      Value steps = arith::DivFOp::create(
          rewriter, loc,
          arith::SubFOp::create(rewriter, loc, wide(limit), wide(start)),
          wide(delta));
      Value up = math::CeilOp::create(rewriter, loc, steps);
      Value bound = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF64FloatAttr(double(maxCount)));
      Value none = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF64FloatAttr(0.0));
      // NaN (a zero or NaN step) and too many steps fail the check.
      ok = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLE, up,
                                 bound);
      Value clamped = arith::MaximumFOp::create(
          rewriter, loc, arith::SelectOp::create(rewriter, loc, ok, up, none),
          none);
      count = arith::FPToSIOp::create(rewriter, loc, i64, clamped);
    } else {
      Value s = toI64(rewriter, loc, start, element);
      Value l = toI64(rewriter, loc, limit, element);
      Value d = toI64(rewriter, loc, delta, element);
      // limit - start must not wrap (int64 extremes), and INT64_MIN / -1
      // (which traps) is refused: both fail the check instead.
      Value diff = arith::SubIOp::create(rewriter, loc, l, s);
      Value wrapped = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt,
          arith::AndIOp::create(rewriter, loc,
                                arith::XOrIOp::create(rewriter, loc, l, s),
                                arith::XOrIOp::create(rewriter, loc, l, diff)),
          zero);
      Value minusOne = arith::ConstantIntOp::create(rewriter, loc, i64, -1);
      Value lowest = arith::ConstantIntOp::create(
          rewriter, loc, i64, std::numeric_limits<int64_t>::min());
      Value trap = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, d,
                                minusOne),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, diff,
                                lowest));
      // A wrapped difference whose true sign is the step's would count
      // past any limit; against the step, the range is empty.
      Value rising = arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::sgt, l, s);
      Value up = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                       d, zero);
      Value empty = arith::AndIOp::create(
          rewriter, loc, wrapped,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                rising, up));
      Value no = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
      Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
      Value usable = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, d,
                                zero),
          arith::AndIOp::create(
              rewriter, loc,
              arith::XOrIOp::create(
                  rewriter, loc,
                  arith::AndIOp::create(
                      rewriter, loc, trap,
                      arith::XOrIOp::create(rewriter, loc, wrapped, yes)),
                  yes),
              arith::CmpIOp::create(
                  rewriter, loc, arith::CmpIPredicate::eq, wrapped,
                  arith::SelectOp::create(rewriter, loc, empty, yes, no))));
      Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      // The division runs whatever is selected after it: never divide a
      // wrapped difference, or by 0.
      Value divide = arith::AndIOp::create(
          rewriter, loc, usable,
          arith::XOrIOp::create(rewriter, loc, wrapped, yes));
      Value divisor = arith::SelectOp::create(rewriter, loc, divide, d, one);
      Value steps = arith::CeilDivSIOp::create(rewriter, loc, diff, divisor);
      Value positive = arith::SelectOp::create(
          rewriter, loc, wrapped, zero,
          arith::MaxSIOp::create(rewriter, loc, steps, zero));
      ok = arith::AndIOp::create(
          rewriter, loc, usable,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                positive, maxValue));
      count = positive;
    }
    Value n = checkedCount(
        rewriter, loc, ok, count,
        describe(op, "Range") + ": the step is 0 or not a number, or the "
                                "result would hold more than " +
            std::to_string(maxCount) + " elements");
    SmallVector<Value> dynamicSizes;
    if (type.isDynamicDim(0))
      dynamicSizes.push_back(n);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         compute, dynamicSizes);
    MLIRContext *ctx = rewriter.getContext();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange(), init,
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value value;
          if (isa<FloatType>(compute)) {
            Value index = arith::IndexCastOp::create(b, l, i64, i);
            Value f = arith::SIToFPOp::create(b, l, compute, index);
            value = arith::AddFOp::create(
                b, l, start, arith::MulFOp::create(b, l, f, delta));
          } else {
            Value index = arith::IndexCastOp::create(b, l, compute, i);
            value = arith::AddIOp::create(
                b, l, start, arith::MulIOp::create(b, l, index, delta));
          }
          linalg::YieldOp::create(b, l, value);
        });
    Value result = generic.getResult(0);
    if (compute != element)
      result = UnrealizedConversionCastOp::create(rewriter, loc, type, result)
                   .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};
/// A constant of `type`'s element type holding the one value of `value`
/// (unsigned integers as signless).
Value createScalar(OpBuilder &b, Location loc, ElementsAttr value,
                   Type element) {
  Type compute = getSignlessType(element);
  if (isa<FloatType>(compute))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(compute, *value.getValues<APFloat>().begin()));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(compute, *value.getValues<APInt>().begin()));
}

struct ConstantOfShapeToLinalg : OpConversionPattern<ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto shape = getStaticType(adaptor.getShape());
    if (!type || !shape || shape.getRank() != 1 ||
        shape.getDimSize(0) != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    Type compute = getSignlessType(element);
    Value fill;
    if (ElementsAttr value = op.getValueAttr()) {
      if (value.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "needs a one-element value");
      fill = createScalar(rewriter, loc, value, element);
    } else {
      fill = arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getZeroAttr(compute));
    }
    if (fill.getType() != compute)
      return rewriter.notifyMatchFailure(op, "value and result types differ");
    // Every dim is >= 0 (and the result's static dims), and the elements
    // fit the size limit: checked without overflowing.
    Type i64 = rewriter.getI64Type();
    int64_t maxCount =
        kMaxRunTimeTensorBytes /
        std::max<int64_t>(1, llvm::divideCeil(
                                 compute.getIntOrFloatBitWidth(), 8));
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    Value max = arith::ConstantIntOp::create(rewriter, loc, i64, maxCount);
    Value ok = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    Value product = one;
    SmallVector<Value> dims;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value position = arith::ConstantIndexOp::create(rewriter, loc, d);
      Value dim = tensor::ExtractOp::create(rewriter, loc, adaptor.getShape(),
                                            ValueRange{position});
      Value room = arith::DivSIOp::create(
          rewriter, loc, max,
          arith::MaxSIOp::create(rewriter, loc, product, one));
      Value fits = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, dim,
                                zero),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, dim,
                                room));
      if (!type.isDynamicDim(d))
        fits = arith::AndIOp::create(
            rewriter, loc, fits,
            arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::eq, dim,
                arith::ConstantIntOp::create(rewriter, loc, i64,
                                             type.getDimSize(d))));
      ok = arith::AndIOp::create(rewriter, loc, ok, fits);
      Value safe = arith::SelectOp::create(rewriter, loc, fits, dim, zero);
      product = arith::MulIOp::create(rewriter, loc, product, safe);
      dims.push_back(safe);
    }
    cf::AssertOp::create(
        rewriter, loc, ok,
        describe(op, "ConstantOfShape") +
            ": a dim is negative or differs from the model's, or the "
            "result would hold more than " +
            std::to_string(maxCount) + " elements");
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(),
            arith::SelectOp::create(rewriter, loc, ok, dims[d], zero)));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         compute, dynamicSizes);
    Value result =
        linalg::FillOp::create(rewriter, loc, fill, init).getResult(0);
    if (compute != element)
      result = UnrealizedConversionCastOp::create(rewriter, loc, type, result)
                   .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// NonZero in two passes over the input in row-major order: count, then
/// write each non-zero element's coordinates into its column.
struct NonZeroToLinalg : OpConversionPattern<NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The input's dims may be known only at run time (a TopK's k).
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!input || input.getRank() == 0 || !type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs a ranked input of rank "
                                             ">= 1");
    Location loc = op.getLoc();
    int64_t rank = input.getRank();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(input.isDynamicDim(d)
                          ? tensor::DimOp::create(rewriter, loc,
                                                  adaptor.getInput(), d)
                                .getResult()
                          : arith::ConstantIndexOp::create(
                                rewriter, loc, input.getDimSize(d))
                                .getResult());
    Type element = input.getElementType();
    Type index = rewriter.getIndexType();
    Type i64 = rewriter.getI64Type();
    Value data = adaptor.getInput();
    if (getSignlessType(element) != element)
      data = UnrealizedConversionCastOp::create(
                 rewriter, loc,
                 RankedTensorType::get(input.getShape(), getSignlessType(element)),
                 data)
                 .getResult(0);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value total = c1;
    for (Value size : sizes)
      total = arith::MulIOp::create(rewriter, loc, total, size);
    // The coordinates of flat index `i`, and whether that element is not 0.
    auto coordinates = [&](OpBuilder &b, Location l, Value i) {
      return unravelIndex(b, l, i, sizes);
    };
    auto isNonZero = [&](OpBuilder &b, Location l, ValueRange coords) {
      Value x = tensor::ExtractOp::create(b, l, data, coords);
      if (isa<FloatType>(x.getType()))
        return arith::CmpFOp::create(
                   b, l, arith::CmpFPredicate::UNE, x,
                   arith::ConstantOp::create(b, l, b.getZeroAttr(x.getType())))
            .getResult();
      return arith::CmpIOp::create(
                 b, l, arith::CmpIPredicate::ne, x,
                 arith::ConstantOp::create(b, l, b.getZeroAttr(x.getType())))
          .getResult();
    };
    auto count = scf::ForOp::create(
        rewriter, loc, c0, total, c1, ValueRange{c0},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          Value nz = isNonZero(b, l, coordinates(b, l, i));
          Value next = arith::AddIOp::create(
              b, l, carried[0],
              arith::IndexCastOp::create(
                  b, l, index, arith::ExtUIOp::create(b, l, i64, nz)));
          scf::YieldOp::create(b, l, next);
        });
    Value init = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{rank, ShapedType::kDynamic}, i64,
        ValueRange{count.getResult(0)});
    auto fill = scf::ForOp::create(
        rewriter, loc, c0, total, c1, ValueRange{init, c0},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          SmallVector<Value> coords = coordinates(b, l, i);
          Value nz = isNonZero(b, l, coords);
          auto branch = scf::IfOp::create(
              b, l, nz,
              [&](OpBuilder &t, Location tl) {
                Value out = carried[0];
                for (int64_t d = 0; d < rank; ++d) {
                  Value row = arith::ConstantIndexOp::create(t, tl, d);
                  Value coord = arith::IndexCastOp::create(t, tl, i64,
                                                           coords[d]);
                  out = tensor::InsertOp::create(t, tl, coord, out,
                                                 ValueRange{row, carried[1]});
                }
                Value next = arith::AddIOp::create(
                    t, tl, carried[1], arith::ConstantIndexOp::create(t, tl, 1));
                scf::YieldOp::create(t, tl, ValueRange{out, next});
              },
              [&](OpBuilder &e, Location el) {
                scf::YieldOp::create(e, el, carried);
              });
          scf::YieldOp::create(b, l, branch.getResults());
        });
    Value result = fill.getResult(0);
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
/// OneHot with `depth` read at run time: out[..., d, ...] is `on` where the
/// index (negative ones counted from `depth`) is d, else `off`.
struct OneHotToLinalg : OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto indices = getStaticType(adaptor.getIndices());
    auto depth = getStaticType(adaptor.getDepth());
    auto values = getStaticType(adaptor.getValues());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!indices || !depth || depth.getNumElements() != 1 || !values ||
        values.getNumElements() != 2 || !result ||
        result.getRank() != indices.getRank() + 1)
      return rewriter.notifyMatchFailure(op, "needs static operands");
    Location loc = op.getLoc();
    int64_t rank = result.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    Type element = getSignlessType(result.getElementType());
    Type i64 = rewriter.getI64Type();
    DimBuilder c(rewriter, loc);
    Value size = toI64(rewriter, loc,
                       extractScalar(rewriter, loc, adaptor.getDepth()),
                       depth.getElementType());
    c.require(c.cmp(arith::CmpIPredicate::sge, size, c.i64(0)));
    SmallVector<Value> dims;
    for (int64_t d = 0, j = 0; d < rank; ++d)
      dims.push_back(d == axis ? size : c.i64(indices.getDimSize(j++)));
    int64_t maxCount;
    requireElementsFit(c, dims, element, maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "OneHot") + ": depth is negative, or the result would "
                                 "hold more than " +
            std::to_string(maxCount) + " elements");
    auto read = [&](int64_t at) -> Value {
      Value v = tensor::ExtractOp::create(
          rewriter, loc, adaptor.getValues(),
          SmallVector<Value>(values.getRank(),
                             arith::ConstantIndexOp::create(rewriter, loc,
                                                            at)));
      return v.getType() == element
                 ? v
                 : UnrealizedConversionCastOp::create(rewriter, loc, element, v)
                       .getResult(0);
    };
    if (values.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "values must be 1-D");
    Value off = read(0), on = read(1);
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (result.isDynamicDim(d))
        dynamicSizes.push_back(arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(), safe[d]));
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         element, dynamicSizes);
    Type indexElement = indices.getElementType();
    Value source = adaptor.getIndices();
    if (getSignlessType(indexElement) != indexElement)
      source = UnrealizedConversionCastOp::create(
                   rewriter, loc,
                   RankedTensorType::get(indices.getShape(),
                                         getSignlessType(indexElement)),
                   source)
                   .getResult(0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange(), init,
        ArrayRef<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> at;
          Value position;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            if (d == axis)
              position = arith::IndexCastOp::create(b, l, i64, i);
            else
              at.push_back(i);
          }
          Value index = toI64(b, l, tensor::ExtractOp::create(b, l, source, at),
                              indexElement);
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, index,
              arith::ConstantIntOp::create(b, l, i64, 0));
          index = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, index, size), index);
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            index, position);
          linalg::YieldOp::create(
              b, l, arith::SelectOp::create(b, l, hit, on, off).getResult());
        });
    Value out = generic.getResult(0);
    if (out.getType() != result)
      out = UnrealizedConversionCastOp::create(rewriter, loc, result, out)
                .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// Compress: the positions where the condition holds are collected (in a
/// buffer as long as the axis), then the result gathers those slices.
struct CompressToLinalg : OpConversionPattern<CompressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CompressOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto condition = getStaticType(adaptor.getCondition());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !condition || condition.getRank() != 1 || !result)
      return rewriter.notifyMatchFailure(op, "needs static operands");
    Location loc = op.getLoc();
    Value data = adaptor.getInput();
    int64_t axis = 0;
    if (std::optional<int64_t> a = op.getAxis()) {
      axis = mlc::detail::normalizeAxis(*a, input.getRank());
    } else {
      // Without an axis the input is flattened.
      auto shapeType = RankedTensorType::get({1}, rewriter.getI64Type());
      data = tensor::ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({input.getNumElements()},
                                input.getElementType()),
          data,
          arith::ConstantOp::create(
              rewriter, loc, shapeType,
              DenseIntElementsAttr::get(shapeType,
                                        {input.getNumElements()})));
      input = cast<RankedTensorType>(data.getType());
    }
    if (result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    int64_t size = input.getDimSize(axis);
    int64_t scanned = std::min(size, condition.getDimSize(0));
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value positions0 = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{std::max<int64_t>(size, 1)},
        rewriter.getIndexType());
    auto collect = scf::ForOp::create(
        rewriter, loc, c0,
        arith::ConstantIndexOp::create(rewriter, loc, scanned), c1,
        ValueRange{positions0, c0},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          Value keep = tensor::ExtractOp::create(b, l, adaptor.getCondition(),
                                                 ValueRange{i});
          auto branch = scf::IfOp::create(
              b, l, keep,
              [&](OpBuilder &t, Location tl) {
                Value next = tensor::InsertOp::create(
                    t, tl, i, carried[0], ValueRange{carried[1]});
                scf::YieldOp::create(
                    t, tl,
                    ValueRange{next, arith::AddIOp::create(
                                         t, tl, carried[1],
                                         arith::ConstantIndexOp::create(t, tl,
                                                                        1))});
              },
              [&](OpBuilder &e, Location el) {
                scf::YieldOp::create(e, el, carried);
              });
          scf::YieldOp::create(b, l, branch.getResults());
        });
    Value positions = collect.getResult(0);
    Type i64 = rewriter.getI64Type();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < input.getRank(); ++d)
      dims.push_back(d == axis ? arith::IndexCastOp::create(
                                     rewriter, loc, i64, collect.getResult(1))
                                     .getResult()
                               : c.i64(input.getDimSize(d)));
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Compress") + ": the result's dims differ from the "
                                   "model's");
    rewriter.replaceOp(
        op, gatherInto(rewriter, loc, data, result, safe,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                         SmallVector<Value> source(index.begin(), index.end());
                         source[axis] = tensor::ExtractOp::create(
                             b, l, positions, ValueRange{index[axis]});
                         return source;
                       }));
    return success();
  }
};
} // namespace

void mlc::populateGraphDataDependentToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<CompressToLinalg, ConstantOfShapeToLinalg, NonZeroToLinalg,
               OneHotToLinalg, RangeToLinalg>(patterns.getContext());
}
