//===- GraphIndexingShapes.cpp - Shape functions of GraphIndexingOps.td ---===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// Shape given by a 1-D constant, else `rank` dynamic dims (or unranked).
LogicalResult pushShapeFromOperand(Value shapeOperand, Type element,
                                   Types &types) {
  if (auto dims = getConstantInts(shapeOperand))
    return pushTensor(types, ArrayRef<int64_t>(*dims), element);
  auto shape = getTensorShape(shapeOperand);
  if (shape && shape->size() == 1 && !ShapedType::isDynamic((*shape)[0]))
    return pushTensor(types, ArrayRef(SmallVector<int64_t>((*shape)[0], kDyn)),
                      element);
  return pushTensor(types, std::nullopt, element);
}

/// True when `v` holds exactly one element (or its shape is unknown).
bool isScalarLike(Value v) {
  auto shape = getTensorShape(v);
  return !shape || getNumElements(*shape) == std::optional<int64_t>(1);
}
} // namespace

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  Type element = Float32Type::get(ctx);
  if (ElementsAttr value = adaptor.getValueAttr()) {
    if (value.getNumElements() != 1)
      return shapeError(loc, getOperationName(),
                        "value must hold one element, got ",
                        value.getNumElements());
    element = value.getElementType();
  }
  if (auto dims = getConstantInts(adaptor.getShape()))
    if (llvm::any_of(*dims, [](int64_t d) { return d < 0; }))
      return shapeError(loc, getOperationName(), "shape has a negative dim");
  return pushShapeFromOperand(adaptor.getShape(), element, types);
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getStart());
  for (Value v : {adaptor.getStart(), adaptor.getLimit(), adaptor.getDelta()}) {
    if (getElementType(v) != element)
      return shapeError(loc, name, "start, limit and delta differ in type");
    if (!isScalarLike(v))
      return shapeError(loc, name, "start, limit and delta must be scalars");
  }
  auto start = getConstantFloats(adaptor.getStart());
  auto limit = getConstantFloats(adaptor.getLimit());
  auto delta = getConstantFloats(adaptor.getDelta());
  auto istart = getConstantInts(adaptor.getStart());
  auto ilimit = getConstantInts(adaptor.getLimit());
  auto idelta = getConstantInts(adaptor.getDelta());
  // ceil((limit - start) / delta) elements, computed in double so that no
  // integer overflows; a count that is not a finite size is an error.
  std::optional<double> count;
  if (istart && ilimit && idelta) {
    if ((*idelta)[0] == 0)
      return shapeError(loc, name, "delta is 0");
    count = std::ceil((double((*ilimit)[0]) - double((*istart)[0])) /
                      double((*idelta)[0]));
  } else if (start && limit && delta) {
    if ((*delta)[0] == 0)
      return shapeError(loc, name, "delta is 0");
    count = std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0]);
  }
  int64_t length = kDyn;
  if (count) {
    if (!(*count < 0x1p62))
      return shapeError(loc, name, "start, limit and delta make ", *count,
                        " elements, more than a 64-bit size");
    length = *count > 0 ? static_cast<int64_t>(*count) : 0;
  }
  return pushTensor(types, ArrayRef<int64_t>({length}), element);
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getValues());
  auto indices = getTensorShape(adaptor.getIndices());
  if (!isScalarLike(adaptor.getDepth()))
    return shapeError(loc, getOperationName(), "depth must be a scalar");
  if (auto values = getTensorShape(adaptor.getValues()))
    if (getNumElements(*values) != std::optional<int64_t>(2))
      return shapeError(loc, getOperationName(),
                        "values must hold [off, on], got shape ",
                        formatShape(*values));
  if (!indices)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = indices->size() + 1;
  auto axis = normalizeAxis(adaptor.getAxis(), rank);
  if (!axis)
    return shapeError(loc, getOperationName(), axis.takeError());
  int64_t depth = kDyn;
  if (auto d = getConstantInts(adaptor.getDepth()))
    depth = (*d)[0];
  else if (auto f = getConstantFloats(adaptor.getDepth()))
    depth = static_cast<int64_t>((*f)[0]);
  SmallVector<int64_t> out(*indices);
  out.insert(out.begin() + *axis, depth);
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                 Adaptor adaptor,
                                                 Types &types) {
  Type element = getElementType(adaptor.getData());
  auto data = getTensorShape(adaptor.getData());
  auto indices = getTensorShape(adaptor.getIndices());
  if (data && indices) {
    if (data->size() != indices->size())
      return shapeError(loc, getOperationName(), "data has rank ", data->size(),
                        " but indices rank ", indices->size());
    auto axis = normalizeAxis(adaptor.getAxis(), data->size());
    if (!axis)
      return shapeError(loc, getOperationName(), axis.takeError());
  }
  return pushTensor(types, indices, element);
}

LogicalResult ScatterElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  StringRef name = getOperationName();
  StringRef reduction = adaptor.getReduction();
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, reduction))
    return shapeError(loc, name, "unknown reduction '", reduction, "'");
  if (getElementType(adaptor.getUpdates()) != getElementType(adaptor.getData()))
    return shapeError(loc, name, "updates and data differ in element type");
  auto data = getTensorShape(adaptor.getData());
  auto indices = getTensorShape(adaptor.getIndices());
  auto updates = getTensorShape(adaptor.getUpdates());
  if (indices && updates && failed(verifyCompatibleShape(*indices, *updates)))
    return shapeError(loc, name, "indices ", formatShape(*indices),
                      " and updates ", formatShape(*updates), " differ");
  if (data) {
    if (indices && indices->size() != data->size())
      return shapeError(loc, name, "indices must have the rank of data");
    auto axis = normalizeAxis(adaptor.getAxis(), data->size());
    if (!axis)
      return shapeError(loc, name, axis.takeError());
  }
  types.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor, Types &types) {
  auto shape = getTensorShape(adaptor.getInput());
  if (shape && shape->size() < 2)
    return shapeError(loc, getOperationName(),
                      "expects an input of rank >= 2, got rank ",
                      shape->size());
  if (adaptor.getK() && !isScalarLike(adaptor.getK()))
    return shapeError(loc, getOperationName(), "k must be a scalar");
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  auto repeatsShape = getTensorShape(adaptor.getRepeats());
  if (repeatsShape && repeatsShape->size() == 1 &&
      !ShapedType::isDynamic((*repeatsShape)[0]) &&
      (*repeatsShape)[0] != static_cast<int64_t>(input->size()))
    return shapeError(loc, getOperationName(), "expects ", input->size(),
                      " repeats, got ", (*repeatsShape)[0]);
  SmallVector<int64_t> out(input->size(), kDyn);
  if (auto repeats = getConstantInts(adaptor.getRepeats())) {
    for (auto [i, r] : llvm::enumerate(*repeats)) {
      if (r < 0)
        return shapeError(loc, getOperationName(), "repeat ", i, " is ", r);
      if (ShapedType::isDynamic((*input)[i]))
        continue;
      if (llvm::MulOverflow((*input)[i], r, out[i]))
        return shapeError(loc, getOperationName(), "dim ", i, " of size ",
                          (*input)[i], " repeated ", r,
                          " times overflows a 64-bit size");
    }
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ReverseSequenceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  StringRef name = getOperationName();
  auto shape = getTensorShape(adaptor.getInput());
  int64_t batch = static_cast<int64_t>(adaptor.getBatchAxis());
  int64_t time = static_cast<int64_t>(adaptor.getTimeAxis());
  if (!((batch == 0 && time == 1) || (batch == 1 && time == 0)))
    return shapeError(loc, name, "batch_axis and time_axis must be 0 and 1 "
                                 "(in either order), got ", batch, " and ",
                      time);
  if (shape && shape->size() < 2)
    return shapeError(loc, name, "the input must have rank >= 2");
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  if (!isScalarLike(adaptor.getAxis()))
    return shapeError(loc, getOperationName(), "axis must be a scalar");
  auto shape = getTensorShape(adaptor.getInput());
  if (auto axis = getConstantInts(adaptor.getAxis()); axis && shape) {
    auto a = normalizeAxis((*axis)[0], shape->size());
    if (!a)
      return shapeError(loc, getOperationName(), a.takeError());
  }
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  Type i64 = IntegerType::get(ctx, 64);
  auto shape = getTensorShape(adaptor.getInput());
  if (!shape) {
    (void)pushTensor(types, std::nullopt, element);
    return pushTensor(types, std::nullopt, i64);
  }
  auto axis = normalizeAxis(adaptor.getAxis(), shape->size());
  if (!axis)
    return shapeError(loc, getOperationName(), axis.takeError());
  SmallVector<int64_t> out(*shape);
  out[*axis] = kDyn;
  if (auto k = getConstantInts(adaptor.getK())) {
    if (k->size() != 1 || (*k)[0] < 0)
      return shapeError(loc, getOperationName(),
                        "k must be one non-negative value");
    int64_t dim = (*shape)[*axis];
    if (!ShapedType::isDynamic(dim) && (*k)[0] > dim)
      return shapeError(loc, getOperationName(), "k = ", (*k)[0],
                        " exceeds the axis size ", dim);
    out[*axis] = (*k)[0];
  }
  (void)pushTensor(types, ArrayRef<int64_t>(out), element);
  return pushTensor(types, ArrayRef<int64_t>(out), i64);
}

namespace {
/// DepthToSpace (`toSpace`) and SpaceToDepth on NCHW.
LogicalResult inferBlockRearrange(OptLoc loc, StringRef name, Value input,
                                  int64_t block, bool toSpace, Types &types) {
  Type element = getElementType(input);
  if (block <= 0)
    return shapeError(loc, name, "blocksize must be positive, got ", block);
  auto shape = getTensorShape(input);
  if (!shape)
    return pushTensor(types, std::nullopt, element);
  if (shape->size() != 4)
    return shapeError(loc, name, "expects a 4-D NCHW input, got rank ",
                      shape->size());
  SmallVector<int64_t> out(*shape);
  auto scale = [&](int64_t d, bool up) {
    return ShapedType::isDynamic(d) ? kDyn : up ? d * block : d / block;
  };
  int64_t c = (*shape)[1];
  if (toSpace) {
    if (!ShapedType::isDynamic(c) && c % (block * block) != 0)
      return shapeError(loc, name, "channels ", c,
                        " are not divisible by blocksize^2 = ", block * block);
    out[1] = ShapedType::isDynamic(c) ? kDyn : c / (block * block);
    out[2] = scale((*shape)[2], true);
    out[3] = scale((*shape)[3], true);
  } else {
    for (int i = 2; i < 4; ++i)
      if (!ShapedType::isDynamic((*shape)[i]) && (*shape)[i] % block != 0)
        return shapeError(loc, name, "spatial dim ", (*shape)[i],
                          " is not divisible by blocksize ", block);
    out[1] = ShapedType::isDynamic(c) ? kDyn : c * block * block;
    out[2] = scale((*shape)[2], false);
    out[3] = scale((*shape)[3], false);
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}
} // namespace

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                               Adaptor adaptor, Types &types) {
  StringRef mode = adaptor.getMode();
  if (mode != "DCR" && mode != "CRD")
    return shapeError(loc, getOperationName(), "mode must be DCR or CRD, got '",
                      mode, "'");
  return inferBlockRearrange(loc, getOperationName(), adaptor.getInput(),
                             adaptor.getBlocksize(), /*toSpace=*/true, types);
}

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                               Adaptor adaptor, Types &types) {
  return inferBlockRearrange(loc, getOperationName(), adaptor.getInput(),
                             adaptor.getBlocksize(), /*toSpace=*/false, types);
}
