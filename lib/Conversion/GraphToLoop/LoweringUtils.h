//===- LoweringUtils.h - Helpers shared by the graph lowerings --*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Conversion/GraphToLoop.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_CONVERSION_GRAPHTOLOOP_LOWERINGUTILS_H
#define MLC_LIB_CONVERSION_GRAPHTOLOOP_LOWERINGUTILS_H

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlc::detail {

/// The type of `v` when it is a ranked tensor of static shape, else null.
inline mlir::RankedTensorType getStaticType(mlir::Value v) {
  auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : mlir::RankedTensorType();
}

/// An integer index into a dim of `size` as an in-range `index`: negative
/// values count from the end (ONNX's rule), and what is still out of range
/// is clamped to [0, size - 1], so that a hostile or broken index reads or
/// writes inside the tensor instead of past it.
/// `extent` is the dim's size as an `index` known at run time.
inline mlir::Value getClampedIndex(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value index, mlir::Value extent) {
  using namespace mlir;
  Value at = index.getType().isIndex()
                 ? index
                 : Value(arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                    index));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, zero);
  at = arith::SelectOp::create(b, loc, negative,
                               arith::AddIOp::create(b, loc, at, extent), at);
  at = arith::MaxSIOp::create(b, loc, at, zero);
  Value last = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, extent, one), zero);
  return arith::MinSIOp::create(b, loc, at, last);
}

inline mlir::Value getClampedIndex(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value index, int64_t size) {
  return getClampedIndex(
      b, loc, index, mlir::arith::ConstantIndexOp::create(b, loc, size));
}

/// An empty tensor of `type` whose dynamic dims take their sizes from
/// `sizes` (one per dim of `type`).
inline mlir::Value
createEmptyOfSizes(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::RankedTensorType type,
                   llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  llvm::SmallVector<mlir::Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(
          mlir::getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  return mlir::tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dynamic);
}

/// `numerator / denominator` elementwise (floats of `init`'s shape) into
/// `init`: an average pool's sums over its window counts.
inline mlir::Value divideInto(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value numerator, mlir::Value denominator,
                              mlir::Value init) {
  using namespace mlir;
  int64_t rank = cast<RankedTensorType>(init.getType()).getRank();
  SmallVector<AffineMap> maps(3, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()},
             ValueRange{numerator, denominator}, ValueRange{init}, maps, it,
             [](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(
                   nb, l, Value(arith::DivFOp::create(nb, l, a[0], a[1])));
             })
      .getResult(0);
}

/// A tensor of `type` filled with `value` (a float element type).
inline mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::RankedTensorType type,
                                      double value) {
  mlir::Value empty = mlir::tensor::EmptyOp::create(b, loc, type.getShape(),
                                                    type.getElementType());
  mlir::Value v = mlir::arith::ConstantOp::create(
      b, loc, type.getElementType(),
      b.getFloatAttr(type.getElementType(), value));
  return mlir::linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

/// Constant integer values of `v`, or nullopt.
inline std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value v) {
  mlir::DenseIntElementsAttr attr;
  if (!v || !mlir::matchPattern(v, mlir::m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(
      llvm::map_range(attr.getValues<llvm::APInt>(),
                      [](const llvm::APInt &a) { return a.getSExtValue(); }));
}

/// Constant float values of `v` (any float type, as doubles), or nullopt.
inline std::optional<llvm::SmallVector<double>>
getConstantFloats(mlir::Value v) {
  mlir::DenseFPElementsAttr attr;
  if (!v || !mlir::matchPattern(v, mlir::m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(llvm::map_range(
      attr.getValues<llvm::APFloat>(), [](const llvm::APFloat &a) {
        bool lost;
        llvm::APFloat d = a;
        d.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        return d.convertToDouble();
      }));
}

/// arith works on signless integers: unsigned integer types are handled as
/// signless ones of the same width inside generic bodies (the view is free
/// once lowered to LLVM). Returns `type` itself when it is not an integer.
inline mlir::Type getSignlessType(mlir::Type type) {
  auto integer = mlir::dyn_cast<mlir::IntegerType>(type);
  return integer ? mlir::IntegerType::get(type.getContext(), integer.getWidth())
                 : type;
}

/// `v` viewed as `type` (same width): a no-op when the types agree.
inline mlir::Value viewAs(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value v, mlir::Type type) {
  if (v.getType() == type)
    return v;
  return mlir::UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

/// An ONNX axis attribute (I64Attr, read back as uint64_t) made
/// non-negative for a tensor of `rank`.
inline int64_t normalizeAxis(uint64_t attr, int64_t rank) {
  int64_t axis = static_cast<int64_t>(attr);
  return axis < 0 ? axis + rank : axis;
}

/// A tensor of `type` (integer elements) filled with `value`.
inline mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::RankedTensorType type,
                                      const llvm::APInt &value) {
  mlir::Value empty = mlir::tensor::EmptyOp::create(b, loc, type.getShape(),
                                                    type.getElementType());
  mlir::Value v = mlir::arith::ConstantOp::create(
      b, loc, type.getElementType(),
      b.getIntegerAttr(type.getElementType(), value));
  return mlir::linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

/// A generic over the result's index space whose body reads one element of
/// `source` at the position `position(b, loc, resultIndices)` computes.
inline mlir::Value buildGatherByIndex(
    mlir::OpBuilder &rewriter, mlir::Location loc,
    mlir::RankedTensorType result, mlir::Value source,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>
        position) {
  using namespace mlir;
  int64_t rank = result.getRank();
  Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                       result.getElementType());
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{result}, ValueRange{}, init, maps,
             iterators,
             [&](OpBuilder &b, Location l, ValueRange) {
               SmallVector<Value> index;
               for (int64_t d = 0; d < rank; ++d)
                 index.push_back(linalg::IndexOp::create(b, l, d));
               linalg::YieldOp::create(
                   b, l,
                   Value(tensor::ExtractOp::create(b, l, source,
                                                   position(b, l, index))));
             })
      .getResult(0);
}

/// An NCHW 2-D convolution (plain, depthwise or grouped) of `input` by
/// `weight` into a zero-initialized `result`, with ONNX's window attributes
/// (Windows.h resolves auto_pad; the batch and spatial sizes may be known
/// at run time only, checked there for `op`). Float or integer elements;
/// the inputs must already have the result's element type. Fails on a
/// malformed window. Defined in ConvPoolToLinalg.cpp.
mlir::FailureOr<mlir::Value>
buildConv2D(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
            mlir::Value input, mlir::Value weight,
            mlir::RankedTensorType result,
            std::optional<llvm::ArrayRef<int64_t>> strides,
            std::optional<llvm::ArrayRef<int64_t>> dilations,
            std::optional<llvm::ArrayRef<int64_t>> pads,
            mlc::graph::AutoPad autoPad, int64_t group);

/// The maps of a (batch, broadcasting) matmul generic over loops
/// (batch..., m, n, k) for operands of types `a`, `b` (ranks >= 2) and the
/// result type: lhs, rhs, result. Defined in MatMulToLinalg.cpp.
llvm::SmallVector<mlir::AffineMap, 3>
getMatMulMaps(mlir::RankedTensorType a, mlir::RankedTensorType b,
              mlir::RankedTensorType result);

/// out[n, c, ...] = f(in[n, c, ...], params[c]...) as one generic (any
/// rank; channels are dim 1).
mlir::Value
channelwise(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            mlir::ValueRange params,
            llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                           mlir::ValueRange)>
                fn);

/// The static 4-D float type of `v`, or null.
inline mlir::RankedTensorType static4d(mlir::Value v) {
  mlir::RankedTensorType t = getStaticType(v);
  return t && t.getRank() == 4 && llvm::isa<mlir::FloatType>(t.getElementType())
             ? t
             : mlir::RankedTensorType();
}

} // namespace mlc::detail

#endif // MLC_LIB_CONVERSION_GRAPHTOLOOP_LOWERINGUTILS_H
