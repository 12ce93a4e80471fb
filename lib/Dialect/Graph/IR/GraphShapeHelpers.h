//===- GraphShapeHelpers.h - Helpers for graph shape functions --*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Dialect/Graph/IR: small inline helpers the shape functions
// of every op family share.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_DIALECT_GRAPH_IR_GRAPHSHAPEHELPERS_H
#define MLC_LIB_DIALECT_GRAPH_IR_GRAPHSHAPEHELPERS_H

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

namespace mlc::graph::detail {
using llvm::APInt;
using llvm::ArrayRef;
using llvm::LogicalResult;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;
using mlir::DenseIntElementsAttr;
using mlir::failure;
using mlir::Location;
using mlir::RankedTensorType;
using mlir::ShapedType;
using mlir::success;
using mlir::TensorType;
using mlir::Type;
using mlir::UnrankedTensorType;
using mlir::Value;
using Types = SmallVectorImpl<Type>;
using OptLoc = std::optional<Location>;
constexpr int64_t kDyn = ShapedType::kDynamic;

/// Emits "'<op>' op <message>" at `loc` (when there is one) and fails.
template <typename... Args>
LogicalResult shapeError(OptLoc loc, StringRef opName, Args &&...args) {
  return mlir::emitOptionalError(loc, "'", opName, "' op ",
                                 std::forward<Args>(args)...);
}

/// Forwards an llvm::Error from ShapeUtils as a diagnostic.
inline LogicalResult shapeError(OptLoc loc, StringRef opName, llvm::Error err) {
  return shapeError(loc, opName, llvm::toString(std::move(err)));
}

/// Pushes `tensor<shape x element>`, or unranked when `shape` is nullopt.
inline LogicalResult
pushTensor(Types &types, std::optional<ArrayRef<int64_t>> shape, Type element) {
  if (shape)
    types.push_back(RankedTensorType::get(*shape, element));
  else
    types.push_back(UnrankedTensorType::get(element));
  return success();
}

/// The shape of a ranked tensor value, or nullopt.
inline std::optional<ArrayRef<int64_t>> getTensorShape(Value v) {
  if (auto t = mlir::dyn_cast<RankedTensorType>(v.getType()))
    return t.getShape();
  return std::nullopt;
}

inline Type getElementType(Value v) {
  return mlir::cast<TensorType>(v.getType()).getElementType();
}

/// Reads a constant integer tensor (graph or arith constant).
inline std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  DenseIntElementsAttr attr;
  if (!v || !mlir::matchPattern(v, mlir::m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(
      llvm::map_range(attr.getValues<APInt>(),
                      [](const APInt &a) { return a.getSExtValue(); }));
}

/// The elements of a small integer vector or scalar computed from shapes
/// and constants (Shape, Gather, Concat, Slice, Unsqueeze, Cast, integer
/// arithmetic), ShapedType::kDynamic where an element is known only at run
/// time; nullopt when not even the length is known. Defined in
/// GraphShapeValues.cpp.
std::optional<SmallVector<int64_t>> getPartialInts(Value v);

/// Reads a constant float tensor, or nullopt.
inline std::optional<SmallVector<double>> getConstantFloats(Value v) {
  mlir::DenseFPElementsAttr attr;
  if (!v || !mlir::matchPattern(v, mlir::m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(llvm::map_range(
      attr.getValues<llvm::APFloat>(),
      [](const llvm::APFloat &a) { return a.convertToDouble(); }));
}

/// The axes of an op that takes them as an attribute or, computed at run
/// time, as an operand (`dynamic`).
struct GivenAxes {
  /// False when neither form is present.
  bool given = false;
  /// The values, when the attribute is set or the operand is a constant.
  std::optional<SmallVector<int64_t>> values;
  /// How many axes there are (the operand's static length), or kDyn.
  int64_t count = kDyn;
};

inline GivenAxes getGivenAxes(std::optional<ArrayRef<int64_t>> attr,
                              Value dynamic) {
  GivenAxes axes;
  if (attr) {
    axes.given = true;
    axes.values = llvm::to_vector(*attr);
  } else if (dynamic) {
    axes.given = true;
    axes.values = getConstantInts(dynamic);
  }
  if (axes.values)
    axes.count = static_cast<int64_t>(axes.values->size());
  else if (auto shape = dynamic ? getTensorShape(dynamic) : std::nullopt)
    axes.count = shape->size() == 1 ? (*shape)[0] : kDyn;
  // An operand of static length 0 is as known as a constant.
  if (axes.count == 0)
    axes.values.emplace();
  return axes;
}

/// Verifies the axes forms of an op with an optional `axes` attribute and
/// an optional `dynamic_axes` operand: not both, one when `required`, and a
/// 1-D operand.
template <typename OpTy> LogicalResult verifyAxesForms(OpTy op, bool required) {
  if (op.getAxes() && op.getDynamicAxes())
    return op.emitOpError("takes axes as an attribute or an operand, not both");
  if (required && !op.getAxes() && !op.getDynamicAxes())
    return op.emitOpError("needs axes");
  if (Value dynamic = op.getDynamicAxes())
    if (auto t = mlir::dyn_cast<RankedTensorType>(dynamic.getType());
        t && t.getRank() != 1)
      return op.emitOpError("expects 1-D dynamic_axes, got rank ")
             << t.getRank();
  return success();
}

/// Output spatial dims of a sliding window over `spatial` input dims,
/// appended to `out`. `kernel` may hold dynamic sizes.
LogicalResult inferWindow(OptLoc loc, StringRef opName,
                          ArrayRef<int64_t> spatial, ArrayRef<int64_t> kernel,
                          std::optional<ArrayRef<int64_t>> strides,
                          std::optional<ArrayRef<int64_t>> pads,
                          std::optional<ArrayRef<int64_t>> dilations,
                          AutoPad autoPad, bool ceilMode,
                          SmallVectorImpl<int64_t> &out);

/// Checks that an optional 1-D per-channel operand has `channels` entries.
LogicalResult checkChannelParam(OptLoc loc, StringRef opName, StringRef name,
                                Value param, int64_t channels);

/// numpy.matmul shape of `lhs` x `rhs`, with result element `element`.
LogicalResult inferMatMulShape(OptLoc loc, StringRef name, Value lhs, Value rhs,
                               Type element, Types &types);

/// Conv output shape (NCHW, groups, windows), with result element `element`.
LogicalResult inferConvShape(OptLoc loc, StringRef name, Value input,
                             Value weight, Value bias,
                             std::optional<ArrayRef<int64_t>> strides,
                             std::optional<ArrayRef<int64_t>> pads,
                             std::optional<ArrayRef<int64_t>> dilations,
                             int64_t group, AutoPad autoPad, Type element,
                             Types &types);

} // namespace mlc::graph::detail

#endif // MLC_LIB_DIALECT_GRAPH_IR_GRAPHSHAPEHELPERS_H
