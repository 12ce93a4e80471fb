//===- GraphDataMovement.cpp - Shape functions of data-movement ops -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Slice, Gather,
// Pad, Expand and Shape. Where a shape-like operand is a constant the result
// is static; otherwise the rank is kept and the unknown dims are dynamic.
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// Length of a 1-D shape-like operand when static, else nullopt.
std::optional<int64_t> getStaticLength(Value v) {
  auto shape = getTensorShape(v);
  if (!shape || shape->size() != 1 || ShapedType::isDynamic((*shape)[0]))
    return std::nullopt;
  return (*shape)[0];
}

/// Checks that a shape-like operand is 1-D.
LogicalResult checkVector(OptLoc loc, StringRef opName, StringRef name,
                          Value v) {
  if (!v)
    return success();
  auto shape = getTensorShape(v);
  if (shape && shape->size() != 1)
    return shapeError(loc, opName, "expects ", name, " to be 1-D, got rank ",
                      shape->size());
  return success();
}

/// Returns the permutation of a transpose (reversal when absent).
SmallVector<int64_t> getPermutation(std::optional<ArrayRef<int64_t>> perm,
                                    int64_t rank) {
  if (perm)
    return SmallVector<int64_t>(*perm);
  return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
}
} // namespace

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  if (failed(checkVector(loc, name, "shape", adaptor.getShape())))
    return failure();
  auto input = getTensorShape(adaptor.getInput());
  // Elements known only at run time give dims known only at run time.
  auto target = getPartialInts(adaptor.getShape());
  if (input && target) {
    auto out = resolveReshape(*input, *target, adaptor.getAllowzero());
    if (!out)
      return shapeError(loc, name, out.takeError());
    return pushTensor(types, ArrayRef<int64_t>(*out), element);
  }
  if (std::optional<int64_t> rank = getStaticLength(adaptor.getShape()))
    return pushTensor(types, ArrayRef(SmallVector<int64_t>(*rank, kDyn)),
                      element);
  return pushTensor(types, std::nullopt, element);
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, ArrayRef<int64_t>({kDyn, kDyn}), element);
  int64_t rank = input->size(), axis = adaptor.getAxis();
  // Flatten accepts axis == rank (everything goes to the outer dim).
  if (axis < -rank || axis > rank)
    return shapeError(loc, getOperationName(), "axis ", axis,
                      " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  auto product = [](ArrayRef<int64_t> dims) -> int64_t {
    std::optional<int64_t> n = getNumElements(dims);
    return n ? *n : kDyn;
  };
  SmallVector<int64_t> out = {product(input->take_front(axis)),
                              product(input->drop_front(axis))};
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = input->size();
  GivenAxes given = getGivenAxes(adaptor.getAxes(), adaptor.getDynamicAxes());
  if (given.given && !given.values) {
    // Axes known at run time only: the rank follows from how many.
    if (given.count == kDyn)
      return pushTensor(types, std::nullopt, element);
    if (given.count > rank)
      return shapeError(loc, getOperationName(), "cannot squeeze ", given.count,
                        " dims of a rank-", rank, " input");
    return pushTensor(
        types,
        ArrayRef<int64_t>(SmallVector<int64_t>(rank - given.count, kDyn)),
        element);
  }
  SmallVector<bool> drop(rank, false);
  if (given.values) {
    auto axes = normalizeAxes(*given.values, rank);
    if (!axes)
      return shapeError(loc, getOperationName(), axes.takeError());
    for (int64_t a : *axes) {
      int64_t d = (*input)[a];
      if (!ShapedType::isDynamic(d) && d != 1)
        return shapeError(loc, getOperationName(), "cannot squeeze dim ", a,
                          " of size ", d);
      drop[a] = true;
    }
  } else {
    // Without axes the result rank depends on the dynamic dims.
    if (llvm::any_of(*input, ShapedType::isDynamic))
      return pushTensor(types, std::nullopt, element);
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = (*input)[i] == 1;
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back((*input)[i]);
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult SqueezeOp::verify() {
  return verifyAxesForms(*this, /*required=*/false);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  GivenAxes given = getGivenAxes(adaptor.getAxes(), adaptor.getDynamicAxes());
  if (!input || given.count == kDyn)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = input->size() + given.count;
  if (!given.values)
    return pushTensor(
        types, ArrayRef<int64_t>(SmallVector<int64_t>(rank, kDyn)), element);
  auto axes = normalizeAxes(*given.values, rank);
  if (!axes)
    return shapeError(loc, getOperationName(), axes.takeError());
  SmallVector<int64_t> out(rank, 1);
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes)
    inserted[a] = true;
  for (int64_t i = 0, j = 0; i < rank; ++i)
    if (!inserted[i])
      out[i] = (*input)[j++];
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult UnsqueezeOp::verify() {
  return verifyAxesForms(*this, /*required=*/true);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = input->size();
  SmallVector<int64_t> perm = getPermutation(adaptor.getPerm(), rank);
  if (static_cast<int64_t>(perm.size()) != rank)
    return shapeError(loc, getOperationName(), "perm has ", perm.size(),
                      " entries but the input has rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return shapeError(loc, getOperationName(), "perm [",
                        llvm::make_range(perm.begin(), perm.end()),
                        "] is not a permutation of [0, ", rank, ")");
    seen[p] = true;
    out.push_back((*input)[p]);
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return shapeError(loc, name, "expects at least one input");
  Type element = getElementType(inputs.front());
  std::optional<SmallVector<int64_t>> out;
  int64_t axis = 0;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (getElementType(v) != element)
      return shapeError(loc, name, "input ", i, " has element type ",
                        getElementType(v), ", expected ", element);
    auto shape = getTensorShape(v);
    if (!shape)
      return pushTensor(types, std::nullopt, element);
    if (!out) {
      auto a = normalizeAxis(adaptor.getAxis(), shape->size());
      if (!a)
        return shapeError(loc, name, a.takeError());
      axis = *a;
      out = SmallVector<int64_t>(*shape);
      continue;
    }
    if (shape->size() != out->size())
      return shapeError(loc, name, "input ", i, " has rank ", shape->size(),
                        ", expected ", out->size());
    for (auto [d, dim] : llvm::enumerate(*shape)) {
      int64_t &acc = (*out)[d];
      if (static_cast<int64_t>(d) == axis) {
        acc = ShapedType::isDynamic(acc) || ShapedType::isDynamic(dim)
                  ? kDyn
                  : acc + dim;
      } else if (ShapedType::isDynamic(acc)) {
        acc = dim;
      } else if (!ShapedType::isDynamic(dim) && dim != acc) {
        return shapeError(loc, name, "input ", i, " has size ", dim, " in dim ",
                          d, ", expected ", acc);
      }
    }
  }
  return pushTensor(types, ArrayRef<int64_t>(*out), element);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  for (auto [label, v] :
       {std::pair<StringRef, Value>{"starts", adaptor.getStarts()},
        {"ends", adaptor.getEnds()},
        {"axes", adaptor.getAxes()},
        {"steps", adaptor.getSteps()}})
    if (failed(checkVector(loc, name, label, v)))
      return failure();
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = input->size();
  auto starts = getConstantInts(adaptor.getStarts());
  auto ends = getConstantInts(adaptor.getEnds());
  std::optional<SmallVector<int64_t>> axes =
      adaptor.getAxes() ? getConstantInts(adaptor.getAxes())
                        : std::optional(llvm::to_vector(llvm::seq<int64_t>(
                              0, starts ? starts->size() : rank)));
  std::optional<SmallVector<int64_t>> steps =
      adaptor.getSteps()
          ? getConstantInts(adaptor.getSteps())
          : std::optional<SmallVector<int64_t>>(
                SmallVector<int64_t>(axes ? axes->size() : 0, 1));
  SmallVector<int64_t> out(*input);
  if (!axes) // Any dim may be sliced.
    return pushTensor(types, ArrayRef(SmallVector<int64_t>(rank, kDyn)),
                      element);
  auto normalized = normalizeAxes(*axes, rank);
  if (!normalized)
    return shapeError(loc, name, normalized.takeError());
  size_t n = normalized->size();
  if ((starts && starts->size() != n) || (ends && ends->size() != n) ||
      (steps && steps->size() != n))
    return shapeError(loc, name,
                      "starts, ends, axes and steps must have one length");
  for (auto [i, axis] : llvm::enumerate(*normalized)) {
    int64_t dim = (*input)[axis];
    if (steps && (*steps)[i] == 0)
      return shapeError(loc, name, "step ", i, " is 0");
    if (!starts || !ends || !steps || ShapedType::isDynamic(dim)) {
      out[axis] = kDyn;
      continue;
    }
    int64_t s = (*starts)[i], e = (*ends)[i], st = (*steps)[i];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    int64_t size;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size = s > e ? (s - e - st - 1) / -st : 0;
    }
    out[axis] = size;
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getData());
  auto data = getTensorShape(adaptor.getData());
  auto indices = getTensorShape(adaptor.getIndices());
  if (!data || !indices)
    return pushTensor(types, std::nullopt, element);
  auto axis = normalizeAxis(adaptor.getAxis(), data->size());
  if (!axis)
    return shapeError(loc, getOperationName(), axis.takeError());
  // Constant indices must be in range (at run time they are clamped).
  int64_t extent = (*data)[*axis];
  if (auto values = getConstantInts(adaptor.getIndices());
      values && !ShapedType::isDynamic(extent))
    for (int64_t v : *values)
      if (v < -extent || v >= extent)
        return shapeError(loc, getOperationName(), "index ", v,
                          " is out of range for axis ", *axis, " of size ",
                          extent);
  SmallVector<int64_t> out(data->take_front(*axis));
  llvm::append_range(out, *indices);
  llvm::append_range(out, data->drop_front(*axis + 1));
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  if (failed(checkVector(loc, name, "pads", adaptor.getPads())))
    return failure();
  if (Value value = adaptor.getConstantValue()) {
    if (getElementType(value) != element)
      return shapeError(loc, name, "constant_value has element type ",
                        getElementType(value), ", expected ", element);
    auto shape = getTensorShape(value);
    if (shape && getNumElements(*shape) != std::optional<int64_t>(1))
      return shapeError(loc, name, "constant_value must hold one element");
  }
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = input->size();
  std::optional<int64_t> length = getStaticLength(adaptor.getPads());
  if (length && *length != 2 * rank)
    return shapeError(loc, name, "expects ", 2 * rank, " pads, got ", *length);
  SmallVector<int64_t> out(rank, kDyn);
  if (auto pads = getConstantInts(adaptor.getPads())) {
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = (*input)[i];
      if (ShapedType::isDynamic(d))
        continue;
      if (llvm::AddOverflow(d, (*pads)[i], out[i]) ||
          llvm::AddOverflow(out[i], (*pads)[i + rank], out[i]))
        return shapeError(loc, name, "pads of dim ", i,
                          " overflow a 64-bit size");
      if (out[i] < 0)
        return shapeError(loc, name, "pads crop dim ", i, " of size ", d,
                          " below zero");
    }
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  if (failed(checkVector(loc, name, "shape", adaptor.getShape())))
    return failure();
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  if (auto target = getConstantInts(adaptor.getShape())) {
    auto out = broadcastShapes(*input, *target);
    if (!out)
      return shapeError(loc, name, out.takeError());
    return pushTensor(types, ArrayRef<int64_t>(*out), element);
  }
  // A shape computed at run time whose entries are partly known (PyTorch's
  // expand exports its target from Shape ops): numpy broadcasting where an
  // entry is known. A dim of the input known only at run time keeps its
  // size (the lowering does not broadcast it).
  if (auto target = getPartialInts(adaptor.getShape())) {
    int64_t n = input->size(), k = target->size();
    int64_t rank = std::max(n, k);
    SmallVector<int64_t> out(rank, kDyn);
    for (int64_t m = 0; m < rank; ++m) {
      int64_t j = m - (rank - n), t = m - (rank - k);
      int64_t size = j >= 0 ? (*input)[j] : 1;
      int64_t want = t >= 0 ? (*target)[t] : 1;
      if (size == 1)
        out[m] = want;
      else if (!ShapedType::isDynamic(size))
        out[m] = size;
      else if (!ShapedType::isDynamic(want) && want > 1)
        out[m] = want;
    }
    return pushTensor(types, ArrayRef<int64_t>(out), element);
  }
  if (std::optional<int64_t> length = getStaticLength(adaptor.getShape())) {
    int64_t rank = std::max<int64_t>(*length, input->size());
    return pushTensor(types, ArrayRef(SmallVector<int64_t>(rank, kDyn)),
                      element);
  }
  return pushTensor(types, std::nullopt, element);
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx, OptLoc,
                                        Adaptor adaptor, Types &types) {
  Type i64 = IntegerType::get(ctx, 64);
  auto input = getTensorShape(adaptor.getInput());
  if (!input)
    return pushTensor(types, ArrayRef<int64_t>({kDyn}), i64);
  int64_t rank = input->size();
  auto clampAxis = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
  };
  int64_t start = clampAxis(adaptor.getStart());
  int64_t end = clampAxis(adaptor.getEnd() ? *adaptor.getEnd() : rank);
  return pushTensor(
      types, ArrayRef<int64_t>({std::max<int64_t>(0, end - start)}), i64);
}
