//===- DataDependentToLinalg.cpp - Results sized by values ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Range, ConstantOfShape and NonZero on run-time values, and Reshape,
// Squeeze, Unsqueeze, Slice, Expand and Tile to shapes computed at run
// time: their result's
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

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// The most bytes one tensor sized at run time may hold: the compile-time
/// default of --max-tensor-bytes (4 GiB).
constexpr int64_t kMaxRunTimeTensorBytes = int64_t(4) << 30;

/// "Op node 'NAME'" for run-time check messages.
std::string describe(Operation *op, StringRef onnxOp) {
  std::string node = "?";
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    node = name.getName().str();
  return (onnxOp + " node '" + node + "'").str();
}

/// The one element of a tensor holding one element.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, tensor, zeros);
}

/// `value` as i64 (sign- or zero-extended by `type`'s signedness, floats
/// truncated toward zero).
Value toI64(OpBuilder &b, Location loc, Value value, Type type) {
  Type i64 = b.getI64Type();
  if (isa<FloatType>(value.getType()))
    return arith::FPToSIOp::create(b, loc, i64, value);
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, value);
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (width == 64)
    return value;
  if (type.isUnsignedInteger() || width == 1)
    return arith::ExtUIOp::create(b, loc, i64, value);
  return arith::ExtSIOp::create(b, loc, i64, value);
}

/// Fails the run-time check `ok` with `message` and returns `count` where
/// it holds, else 0 (an empty result).
Value checkedCount(OpBuilder &b, Location loc, Value ok, Value count,
                   const std::string &message) {
  cf::AssertOp::create(b, loc, ok, message);
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value safe = arith::SelectOp::create(b, loc, ok, count, zero);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), safe);
}

/// Signless view of an element type (unsigned ints computed as signless).
Type signless(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

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
    Type compute = signless(element);
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
      Value nonzero = arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::ne, d, zero);
      Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      Value divisor = arith::SelectOp::create(rewriter, loc, nonzero, d, one);
      Value steps = arith::CeilDivSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, l, s), divisor);
      Value positive = arith::MaxSIOp::create(rewriter, loc, steps, zero);
      ok = arith::AndIOp::create(
          rewriter, loc, nonzero,
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
  Type compute = signless(element);
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
    Type compute = signless(element);
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
    auto input = getStaticType(adaptor.getInput());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!input || input.getRank() == 0 || !type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs a static input of rank "
                                             ">= 1");
    Location loc = op.getLoc();
    int64_t rank = input.getRank();
    Type element = input.getElementType();
    Type index = rewriter.getIndexType();
    Type i64 = rewriter.getI64Type();
    Value data = adaptor.getInput();
    if (signless(element) != element)
      data = UnrealizedConversionCastOp::create(
                 rewriter, loc,
                 RankedTensorType::get(input.getShape(), signless(element)),
                 data)
                 .getResult(0);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value total =
        arith::ConstantIndexOp::create(rewriter, loc, input.getNumElements());
    // The coordinates of flat index `i`, and whether that element is not 0.
    auto coordinates = [&](OpBuilder &b, Location l, Value i) {
      SmallVector<Value> coords(rank);
      Value rest = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        Value size = arith::ConstantIndexOp::create(b, l, input.getDimSize(d));
        coords[d] = arith::RemUIOp::create(b, l, rest, size);
        rest = arith::DivUIOp::create(b, l, rest, size);
      }
      return coords;
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
/// i64 arithmetic on run-time dims, unrolled over ranks known at compile
/// time, that tracks whether every check holds.
struct DimBuilder {
  OpBuilder &b;
  Location loc;
  Value ok;

  DimBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), ok(arith::ConstantIntOp::create(b, loc, 1, 1)) {}

  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value toI64(Value flag) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), flag);
  }
  void require(Value c) { ok = both(ok, c); }

  /// dims[index] for static `dims` (0, failing the check, out of range).
  Value staticDim(ArrayRef<int64_t> dims, Value index) {
    Value found = i64(0);
    Value inRange = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (auto [d, size] : llvm::enumerate(dims)) {
      Value here = eq(index, i64(d));
      found = select(here, i64(size), found);
      inRange = either(inRange, here);
    }
    require(inRange);
    return found;
  }
  /// An axis in [-rank, rank) as [0, rank) (the check fails otherwise).
  Value normalizeAxis(Value axis, int64_t rank) {
    Value negative = cmp(arith::CmpIPredicate::slt, axis, i64(0));
    Value normalized = select(negative, add(axis, i64(rank)), axis);
    require(both(cmp(arith::CmpIPredicate::sge, normalized, i64(0)),
                 cmp(arith::CmpIPredicate::slt, normalized, i64(rank))));
    return normalized;
  }
};

/// The elements of a 1-D i64 tensor of static length.
SmallVector<Value> extractAll(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> values;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    values.push_back(tensor::ExtractOp::create(
        b, loc, tensor, ValueRange{arith::ConstantIndexOp::create(b, loc, i)}));
  return values;
}

/// Reshapes `input` (static) to the run-time `dims` when `dims.ok` holds,
/// else to [elements, 1, ...] so that what follows stays in bounds; the
/// result's static dims are checked too. Fails the check with `message`.
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                RankedTensorType result, SmallVector<Value> dims,
                DimBuilder &checks, const std::string &message) {
  auto type = cast<RankedTensorType>(input.getType());
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (!result.isDynamicDim(d))
      checks.require(checks.eq(dims[d], checks.i64(result.getDimSize(d))));
  cf::AssertOp::create(b, loc, checks.ok, message);
  for (int64_t d = 0; d < result.getRank(); ++d)
    dims[d] = checks.select(
        checks.ok, dims[d],
        checks.i64(d == 0 && result.isDynamicDim(0) ? type.getNumElements()
                                                    : result.isDynamicDim(d)
                                                          ? 1
                                                          : result.getDimSize(d)));
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({result.getRank()}, b.getI64Type()), dims);
  return tensor::ReshapeOp::create(b, loc, result, input, shape);
}

/// Reshape to a shape computed at run time (ONNX's 0 and -1 rules).
struct RuntimeReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto shape = getStaticType(adaptor.getShape());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !shape || !result || result.hasStaticShape() ||
        shape.getRank() != 1 || shape.getDimSize(0) != result.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input and shape "
                                             "length");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    int64_t elements = input.getNumElements();
    SmallVector<Value> requested = extractAll(rewriter, loc, adaptor.getShape());
    SmallVector<Value> dims, inferred;
    Value product = c.i64(1), unknowns = c.i64(0);
    Value maxValue = c.i64(std::numeric_limits<int64_t>::max());
    for (auto [i, v] : llvm::enumerate(requested)) {
      Value isInferred = c.eq(v, c.i64(-1));
      Value dim = v;
      if (!op.getAllowzero()) {
        Value copy = c.eq(v, c.i64(0));
        Value from = int64_t(i) < input.getRank()
                         ? c.i64(input.getDimSize(i))
                         : c.i64(0);
        if (int64_t(i) >= input.getRank())
          c.require(arith::XOrIOp::create(rewriter, loc, copy,
                                          arith::ConstantIntOp::create(
                                              rewriter, loc, 1, 1)));
        dim = c.select(copy, from, v);
      }
      c.require(c.either(isInferred,
                         c.cmp(arith::CmpIPredicate::sge, dim, c.i64(0))));
      Value factor = c.select(isInferred, c.i64(1), dim);
      // factor <= INT64_MAX / product, so the product cannot wrap.
      Value room = arith::DivSIOp::create(
          rewriter, loc, maxValue,
          arith::MaxSIOp::create(rewriter, loc, product, c.i64(1)));
      c.require(c.either(c.cmp(arith::CmpIPredicate::slt, factor, c.i64(0)),
                         c.cmp(arith::CmpIPredicate::sle, factor, room)));
      product = arith::MulIOp::create(rewriter, loc, product,
                                      arith::MaxSIOp::create(rewriter, loc,
                                                             factor, c.i64(0)));
      unknowns = c.add(unknowns, c.toI64(isInferred));
      dims.push_back(dim);
      inferred.push_back(isInferred);
    }
    Value n = c.i64(elements);
    Value one = c.eq(unknowns, c.i64(1));
    Value divisor = arith::MaxSIOp::create(rewriter, loc, product, c.i64(1));
    Value fits = c.select(
        one,
        c.both(c.cmp(arith::CmpIPredicate::sgt, product, c.i64(0)),
               c.eq(arith::RemSIOp::create(rewriter, loc, n, divisor),
                    c.i64(0))),
        c.eq(product, n));
    c.require(c.both(fits, c.cmp(arith::CmpIPredicate::sle, unknowns,
                                 c.i64(1))));
    Value missing = arith::DivSIOp::create(rewriter, loc, n, divisor);
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = c.select(inferred[i], missing, dims[i]);
    rewriter.replaceOp(
        op, reshapeTo(rewriter, loc, adaptor.getInput(), result, dims, c,
                      describe(op, "Reshape") +
                          ": the shape does not fit the input's " +
                          std::to_string(elements) +
                          " elements (or has more than one -1, a negative "
                          "dim, or a 0 past the input's rank)"));
    return success();
  }
};

/// Squeeze and Unsqueeze with axes computed at run time.
template <typename OpTy>
struct RuntimeAxesReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool kSqueeze = std::is_same_v<OpTy, SqueezeOp>;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto axes = adaptor.getDynamicAxes()
                    ? getStaticType(adaptor.getDynamicAxes())
                    : RankedTensorType();
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !axes || !result || axes.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs static input and axes "
                                             "count");
    int64_t count = axes.getDimSize(0);
    int64_t rank = input.getRank();
    int64_t outRank = kSqueeze ? rank - count : rank + count;
    if (outRank < 0 || result.getRank() != outRank)
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> normalized;
    for (Value axis : extractAll(rewriter, loc, adaptor.getDynamicAxes()))
      normalized.push_back(c.normalizeAxis(axis, kSqueeze ? rank : outRank));
    // marked[d]: whether dim d (of the input for Squeeze, of the result for
    // Unsqueeze) is named; each axis must name a different dim.
    int64_t span = kSqueeze ? rank : outRank;
    SmallVector<Value> marked;
    Value total = c.i64(0);
    for (int64_t d = 0; d < span; ++d) {
      Value named = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
      for (Value axis : normalized)
        named = c.either(named, c.eq(axis, c.i64(d)));
      marked.push_back(named);
      total = c.add(total, c.toI64(named));
    }
    c.require(c.eq(total, c.i64(count)));
    ArrayRef<int64_t> inDims = input.getShape();
    SmallVector<Value> dims(outRank, c.i64(0));
    if (kSqueeze) {
      // Kept dim d lands at d - (named dims before it); named ones are 1.
      Value before = c.i64(0);
      for (int64_t d = 0; d < rank; ++d) {
        if (inDims[d] != 1)
          c.require(arith::XOrIOp::create(
              rewriter, loc, marked[d],
              arith::ConstantIntOp::create(rewriter, loc, 1, 1)));
        Value position = arith::SubIOp::create(rewriter, loc, c.i64(d), before);
        for (int64_t m = 0; m < outRank; ++m) {
          Value here = c.both(
              arith::XOrIOp::create(rewriter, loc, marked[d],
                                    arith::ConstantIntOp::create(rewriter, loc,
                                                                 1, 1)),
              c.eq(position, c.i64(m)));
          dims[m] = c.select(here, c.i64(inDims[d]), dims[m]);
        }
        before = c.add(before, c.toI64(marked[d]));
      }
    } else {
      // Result dim m is 1 where named, else the input's next dim.
      Value inserted = c.i64(0);
      for (int64_t m = 0; m < outRank; ++m) {
        Value from = arith::SubIOp::create(rewriter, loc, c.i64(m), inserted);
        Value original = c.select(marked[m], c.i64(0), from);
        Value dim = c.staticDim(inDims, original);
        dims[m] = c.select(marked[m], c.i64(1), dim);
        inserted = c.add(inserted, c.toI64(marked[m]));
      }
    }
    rewriter.replaceOp(
        op, reshapeTo(rewriter, loc, adaptor.getInput(), result, dims, c,
                      describe(op, kSqueeze ? "Squeeze" : "Unsqueeze") +
                          ": an axis is out of range or repeated" +
                          (kSqueeze ? ", or names a dim that is not 1" : "")));
    return success();
  }
};
/// A tensor of `result`'s type with the run-time `dims` (i64, used where
/// `result` has a dynamic dim) whose element at `i` is `input[at(i)]`.
Value gatherInto(OpBuilder &b, Location loc, Value input,
                 RankedTensorType result, ArrayRef<Value> dims,
                 function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ArrayRef<Value>)>
                     at) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (result.isDynamicDim(d))
      dynamicSizes.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), dims[d]));
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, result.getShape(), element,
                                       dynamicSizes);
  int64_t rank = result.getRank();
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange(), init,
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank,
                                                            b.getContext())},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> index;
        for (int64_t d = 0; d < rank; ++d)
          index.push_back(linalg::IndexOp::create(nb, l, d));
        SmallVector<Value> source = at(nb, l, index);
        linalg::YieldOp::create(nb, l,
                                tensor::ExtractOp::create(nb, l, input, source)
                                    .getResult());
      });
  return generic.getResult(0);
}

/// Checks that `dims` (i64, >= 0) hold at most the run-time tensor limit
/// of `element`s, without overflowing.
void requireElementsFit(DimBuilder &c, ArrayRef<Value> dims, Type element,
                        int64_t &maxCount) {
  maxCount = kMaxRunTimeTensorBytes /
             std::max<int64_t>(
                 1, llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
  Value product = c.i64(1);
  for (Value d : dims) {
    Value positive = arith::MaxSIOp::create(c.b, c.loc, d, c.i64(0));
    Value room = arith::DivSIOp::create(
        c.b, c.loc, c.i64(maxCount),
        arith::MaxSIOp::create(c.b, c.loc, product, c.i64(1)));
    c.require(c.cmp(arith::CmpIPredicate::sle, positive, room));
    product = arith::MulIOp::create(c.b, c.loc, product, positive);
  }
}

/// Asserts the checks, and replaces every dim by 0 where they fail (an
/// empty result: nothing reads or writes past a buffer).
SmallVector<Value> checkedDims(DimBuilder &c, RankedTensorType result,
                               ArrayRef<Value> dims,
                               const std::string &message) {
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (!result.isDynamicDim(d))
      c.require(c.eq(dims[d], c.i64(result.getDimSize(d))));
  cf::AssertOp::create(c.b, c.loc, c.ok, message);
  SmallVector<Value> safe;
  for (Value d : dims)
    safe.push_back(c.select(c.ok, d, c.i64(0)));
  return safe;
}

/// Slice with bounds (and axes, steps) read at run time, clamped as ONNX
/// says; the result is gathered from the input.
struct RuntimeSliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    auto starts = getStaticType(adaptor.getStarts());
    if (!input || !result || result.hasStaticShape() || !starts ||
        starts.getRank() != 1 || result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input");
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
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = input.getDimSize(d);
      Value dim = c.i64(size);
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
        Value last = c.i64(size - 1);
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
};

/// Expand to a shape read at run time (numpy broadcasting).
struct RuntimeExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto shape = getStaticType(adaptor.getShape());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !shape || !result || result.hasStaticShape() ||
        shape.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a static input");
    int64_t n = input.getRank(), k = shape.getDimSize(0);
    int64_t rank = std::max(n, k);
    if (result.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> target = extractAll(rewriter, loc, adaptor.getShape());
    SmallVector<Value> dims(rank);
    for (int64_t m = 0; m < rank; ++m) {
      int64_t j = m - (rank - n);      // the input's dim, if any
      int64_t t = m - (rank - k);      // the shape's entry, if any
      int64_t size = j >= 0 ? input.getDimSize(j) : 1;
      if (t < 0) {
        dims[m] = c.i64(size);
        continue;
      }
      Value want = target[t];
      if (size == 1) {
        c.require(c.cmp(arith::CmpIPredicate::sge, want, c.i64(0)));
        dims[m] = want;
      } else {
        c.require(c.either(c.eq(want, c.i64(size)), c.eq(want, c.i64(1))));
        dims[m] = c.i64(size);
      }
    }
    int64_t maxCount;
    requireElementsFit(c, dims, input.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Expand") +
            ": the shape does not broadcast with the input's, or the result "
            "would hold more than " +
            std::to_string(maxCount) + " elements");
    rewriter.replaceOp(
        op, gatherInto(rewriter, loc, adaptor.getInput(), result, safe,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                         SmallVector<Value> source;
                         for (int64_t j = 0; j < n; ++j)
                           source.push_back(
                               input.getDimSize(j) == 1
                                   ? arith::ConstantIndexOp::create(b, l, 0)
                                   : index[j + (rank - n)]);
                         return source;
                       }));
    return success();
  }
};

/// Tile with repeats read at run time.
struct RuntimeTileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto repeats = getStaticType(adaptor.getRepeats());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !repeats || !result || result.hasStaticShape() ||
        repeats.getRank() != 1 || repeats.getDimSize(0) != input.getRank() ||
        result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    int64_t rank = input.getRank();
    SmallVector<Value> times = extractAll(rewriter, loc, adaptor.getRepeats());
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d) {
      c.require(c.cmp(arith::CmpIPredicate::sge, times[d], c.i64(0)));
      int64_t size = input.getDimSize(d);
      // repeats * size, checked against the limit below (size <= 2^62).
      Value bounded = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, times[d],
                                                c.i64(0)),
          c.i64(int64_t(1) << 40));
      dims.push_back(arith::MulIOp::create(rewriter, loc, bounded,
                                           c.i64(size)));
      c.require(c.cmp(arith::CmpIPredicate::sle, times[d],
                      c.i64(int64_t(1) << 40)));
    }
    int64_t maxCount;
    requireElementsFit(c, dims, input.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Tile") + ": a repeat count is negative, or the result "
                               "would hold more than " +
            std::to_string(maxCount) + " elements");
    rewriter.replaceOp(
        op, gatherInto(rewriter, loc, adaptor.getInput(), result, safe,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                         SmallVector<Value> source;
                         for (int64_t d = 0; d < rank; ++d)
                           source.push_back(arith::RemUIOp::create(
                               b, l, index[d],
                               arith::ConstantIndexOp::create(
                                   b, l, std::max<int64_t>(
                                             1, input.getDimSize(d)))));
                         return source;
                       }));
    return success();
  }
};
} // namespace

void mlc::populateGraphDataDependentToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantOfShapeToLinalg, NonZeroToLinalg, RangeToLinalg,
               RuntimeReshapeLowering, RuntimeSliceLowering,
               RuntimeExpandLowering, RuntimeTileLowering,
               RuntimeAxesReshapeLowering<SqueezeOp>,
               RuntimeAxesReshapeLowering<UnsqueezeOp>>(patterns.getContext());
}
