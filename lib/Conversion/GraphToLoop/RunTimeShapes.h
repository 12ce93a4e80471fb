//===- RunTimeShapes.h - Sizes computed when a model runs -------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Helpers of the lowerings whose result sizes are computed at run time
// (DataDependentToLinalg.cpp, and the run-time branches of the patterns of
// Reshape, Slice, Expand, Tile, Pad and ReduceSum): i64 arithmetic on
// dims that records whether every check holds, the `cf.assert` of those
// checks (a failed one is an error code naming the node, and the op then
// makes an empty or safe result), and gathers from a static input.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_CONVERSION_GRAPHTOLOOP_RUNTIMESHAPES_H
#define MLC_LIB_CONVERSION_GRAPHTOLOOP_RUNTIMESHAPES_H

#include "LoweringUtils.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <string>

namespace mlc::detail {
using namespace mlir;

/// The most bytes one tensor sized at run time may hold: the compile-time
/// default of --max-tensor-bytes (4 GiB).
constexpr int64_t kMaxRunTimeTensorBytes = int64_t(4) << 30;

/// "Op node 'NAME'" for run-time check messages.
inline std::string describe(Operation *op, StringRef onnxOp) {
  std::string node = "?";
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    node = name.getName().str();
  return (onnxOp + " node '" + node + "'").str();
}

/// Asserts, with `message`, that every element of the integer tensor
/// `indices` is in [-extent, extent) (an index into a dim of `extent`
/// elements, counted from the end when negative): one pass over the
/// indices, reduced into a flag.
inline void requireIndicesInRange(OpBuilder &b, Location loc, Value indices,
                                  Value extent, const std::string &message) {
  auto type = cast<RankedTensorType>(indices.getType());
  int64_t rank = type.getRank();
  Value flag = createFilledTensor(
      b, loc, RankedTensorType::get({}, b.getI1Type()), APInt(1, 1));
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      AffineMap::get(rank, 0, {}, b.getContext())};
  Value high = arith::IndexCastOp::create(b, loc, type.getElementType(), extent);
  Value low = arith::SubIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, type.getElementType(), 0),
      high);
  auto all = linalg::GenericOp::create(
      b, loc, flag.getType(), indices, flag, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value in = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, args[0],
                                  low),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, args[0],
                                  high));
        linalg::YieldOp::create(
            nb, l, Value(arith::AndIOp::create(nb, l, args[1], in)));
      });
  Value ok = tensor::ExtractOp::create(b, loc, all.getResult(0), ValueRange{});
  cf::AssertOp::create(b, loc, ok, message);
}

/// The one element of a tensor holding one element.
inline Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, tensor, zeros);
}

/// `value` as i64 (sign- or zero-extended by `type`'s signedness, floats
/// truncated toward zero).
inline Value toI64(OpBuilder &b, Location loc, Value value, Type type) {
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

/// `value` (a float, an integer or an index) as f64.
inline Value toF64(OpBuilder &b, Location loc, Value value) {
  Type f64 = b.getF64Type();
  if (value.getType() == f64)
    return value;
  if (isa<FloatType>(value.getType()))
    return arith::ExtFOp::create(b, loc, f64, value);
  if (value.getType().isIndex())
    value = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
  return arith::SIToFPOp::create(b, loc, f64, value);
}

/// An f64 `value` as the float type `element`.
inline Value fromF64(OpBuilder &b, Location loc, Value value, Type element) {
  if (element.isF64())
    return value;
  return arith::TruncFOp::create(b, loc, element, value);
}

/// Fails the run-time check `ok` with `message` and returns `count` where
/// it holds, else 0 (an empty result).
inline Value checkedCount(OpBuilder &b, Location loc, Value ok, Value count,
                   const std::string &message) {
  cf::AssertOp::create(b, loc, ok, message);
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value safe = arith::SelectOp::create(b, loc, ok, count, zero);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), safe);
}

/// The coordinates of row-major flat index `flat` in dims `sizes` (index
/// values).
inline SmallVector<Value> unravelIndex(OpBuilder &b, Location loc, Value flat,
                                       ArrayRef<Value> sizes) {
  SmallVector<Value> coords(sizes.size());
  Value rest = flat;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    coords[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
    rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
  }
  return coords;
}

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

/// The dims of `tensor` as i64 values (constants where they are static).
inline SmallVector<Value> getDimsI64(OpBuilder &b, Location loc,
                                     Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back(
        type.isDynamicDim(d)
            ? Value(arith::IndexCastOp::create(
                  b, loc, b.getI64Type(), tensor::DimOp::create(b, loc, tensor, d)))
            : Value(arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                                 type.getDimSize(d))));
  return dims;
}

/// The product of i64 `values` (1 for none).
inline Value multiplyAll(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value product = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1);
  for (Value v : values)
    product = arith::MulIOp::create(b, loc, product, v);
  return product;
}

/// The elements of a 1-D i64 tensor of static length.
inline SmallVector<Value> extractAll(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> values;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    values.push_back(tensor::ExtractOp::create(
        b, loc, tensor, ValueRange{arith::ConstantIndexOp::create(b, loc, i)}));
  return values;
}

/// An empty tensor of `result`'s type whose dynamic dims are those of the
/// run-time `dims` (i64, one per dim of `result`).
inline Value createEmpty(OpBuilder &b, Location loc, RankedTensorType result,
                         ArrayRef<Value> dims) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (result.isDynamicDim(d))
      dynamicSizes.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), dims[d]));
  return tensor::EmptyOp::create(b, loc, result.getShape(),
                                 result.getElementType(), dynamicSizes);
}

/// A tensor of `result`'s type with the run-time `dims` (i64, used where
/// `result` has a dynamic dim) whose element at `i` is `input[at(i)]`.
inline Value gatherInto(OpBuilder &b, Location loc, Value input,
                 RankedTensorType result, ArrayRef<Value> dims,
                 function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ArrayRef<Value>)>
                     at) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value init = createEmpty(
      b, loc, RankedTensorType::get(result.getShape(), element), dims);
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
inline void requireElementsFit(DimBuilder &c, ArrayRef<Value> dims, Type element,
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
inline SmallVector<Value> checkedDims(DimBuilder &c, RankedTensorType result,
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

/// checkedDims of a result of `result`'s type, after requiring that `dims`
/// hold at most the run-time tensor limit of its elements.
inline SmallVector<Value> checkedResultDims(DimBuilder &c,
                                            RankedTensorType result,
                                            ArrayRef<Value> dims,
                                            const std::string &message) {
  int64_t maxCount;
  requireElementsFit(c, dims, result.getElementType(), maxCount);
  return checkedDims(c, result, dims, message);
}

// Operands whose dims are known at run time, for the lowerings that read
// their sizes as mixed static/dynamic values (MatMulToLinalg.cpp,
// LayoutToLinalg.cpp).

/// True when any of `values` has a type of dims known only at run time.
inline bool anyDynamic(ValueRange values) {
  return llvm::any_of(values, [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && !t.hasStaticShape();
  });
}

/// The shape `sizes` give (dynamic where a size is not a constant).
inline SmallVector<int64_t> getShapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  return shape;
}

/// `v` cut to `sizes` from its origin, or `v` when they are its own.
inline Value sliceTo(OpBuilder &b, Location loc, Value v,
              ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  // Whether `size` is dim `i` of `v`: the same constant, or read off it.
  auto isOwn = [&](OpFoldResult size, int64_t i) {
    if (!type.isDynamicDim(i))
      return isConstantIntValue(size, type.getDimSize(i));
    auto dim = dyn_cast_if_present<Value>(size)
                   ? cast<Value>(size).getDefiningOp<tensor::DimOp>()
                   : nullptr;
    return dim && dim.getSource() == v && dim.getConstantIndex() == i;
  };
  if (llvm::all_of(llvm::enumerate(sizes),
                   [&](auto s) { return isOwn(s.value(), s.index()); }))
    return v;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(getShapeOf(sizes), type.getElementType()), v,
      offsets, sizes, strides);
}

/// Dims of two operands that must agree: pairs are added, then `check`
/// asserts that they do (naming the node) and gives each pair's size, 0
/// where the check fails.
struct AgreeingDims {
  OpBuilder &b;
  Location loc;
  SmallVector<std::pair<OpFoldResult, OpFoldResult>> pairs;
  bool conflict = false;
  /// After check(): whether every pair agrees at run time (null when every
  /// pair is static).
  Value ok;

  /// Index of the pair (a, b).
  size_t add(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy && *cx != *cy)
      conflict = true;
    pairs.push_back({x, y});
    return pairs.size() - 1;
  }

  /// Builds nothing when every pair is static (a static conflict is
  /// `conflict`, for the caller to refuse).
  SmallVector<OpFoldResult> check(const std::string &message) {
    for (auto [x, y] : pairs) {
      if (getConstantIntValue(x) && getConstantIntValue(y))
        continue;
      Value same =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                getValueOrCreateConstantIndexOp(b, loc, x),
                                getValueOrCreateConstantIndexOp(b, loc, y));
      ok = ok ? arith::AndIOp::create(b, loc, ok, same).getResult() : same;
    }
    if (ok)
      cf::AssertOp::create(b, loc, ok, message);
    Value zero;
    SmallVector<OpFoldResult> sizes;
    for (auto [x, y] : pairs) {
      if (getConstantIntValue(x) && getConstantIntValue(y)) {
        sizes.push_back(x);
        continue;
      }
      if (!zero)
        zero = arith::ConstantIndexOp::create(b, loc, 0);
      // A static side is the size where the check holds.
      OpFoldResult known = getConstantIntValue(x) ? x : y;
      sizes.push_back(
          arith::SelectOp::create(b, loc, ok,
                                  getValueOrCreateConstantIndexOp(b, loc, known),
                                  zero)
              .getResult());
    }
    return sizes;
  }
};

/// `value` (of `type`'s rank) as `type`: a cast when only the static
/// knowledge of its dims differs.
inline Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

} // namespace mlc::detail

#endif // MLC_LIB_CONVERSION_GRAPHTOLOOP_RUNTIMESHAPES_H
