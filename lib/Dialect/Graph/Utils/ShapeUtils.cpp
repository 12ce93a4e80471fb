//===- ShapeUtils.cpp - Shape arithmetic for ONNX semantics ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using mlir::ShapedType;

namespace {
Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}
bool isDynamic(int64_t d) { return ShapedType::isDynamic(d); }
} // namespace

std::string mlc::graph::formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  raw_string_ostream os(s);
  if (shape.empty())
    return "scalar";
  interleave(
      shape, os,
      [&](int64_t d) {
        if (isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return s;
}

Expected<SmallVector<int64_t>>
mlc::graph::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l == 1) {
      result[i] = r;
    } else if (r == 1) {
      result[i] = l;
    } else if (isDynamic(l)) {
      result[i] = r;
    } else if (isDynamic(r) || l == r) {
      result[i] = l;
    } else {
      return makeError("shapes " + formatShape(lhs) + " and " +
                       formatShape(rhs) + " do not broadcast (dim " + Twine(i) +
                       ": " + Twine(l) + " vs " + Twine(r) + ")");
    }
  }
  return result;
}

Expected<int64_t> mlc::graph::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return makeError("axis " + Twine(axis) + " is out of range for rank " +
                     Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

Expected<SmallVector<int64_t>> mlc::graph::normalizeAxes(ArrayRef<int64_t> axes,
                                                         int64_t rank) {
  SmallVector<int64_t> result;
  SmallVector<bool> seen(rank, false);
  for (int64_t axis : axes) {
    Expected<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return a.takeError();
    if (seen[*a])
      return makeError("axis " + Twine(axis) + " is repeated");
    seen[*a] = true;
    result.push_back(*a);
  }
  return result;
}

Expected<mlc::graph::WindowResult>
mlc::graph::computeWindowDim(const WindowDim &dim, WindowPadding padding,
                             bool ceilMode) {
  if (dim.kernel <= 0 || dim.stride <= 0 || dim.dilation <= 0)
    return makeError("kernel size, stride and dilation must be positive (got " +
                     Twine(dim.kernel) + ", " + Twine(dim.stride) + ", " +
                     Twine(dim.dilation) + ")");
  if (dim.padBegin < 0 || dim.padEnd < 0)
    return makeError("pads must be non-negative (got " + Twine(dim.padBegin) +
                     ", " + Twine(dim.padEnd) + ")");
  int64_t effectiveKernel = (dim.kernel - 1) * dim.dilation + 1;
  WindowResult result;
  if (isDynamic(dim.input)) {
    result.output = ShapedType::kDynamic;
    if (padding == WindowPadding::Explicit) {
      result.padBegin = dim.padBegin;
      result.padEnd = dim.padEnd;
    }
    return result;
  }
  if (dim.input < 0)
    return makeError("negative input size " + Twine(dim.input));
  switch (padding) {
  case WindowPadding::Valid: {
    if (dim.input < effectiveKernel)
      break;
    int64_t span = dim.input - effectiveKernel;
    result.output =
        (ceilMode ? divideCeil(span, dim.stride) : span / dim.stride) + 1;
    // With ceil_mode (as ONNX Runtime applies it to VALID too) the last
    // window must start inside the input.
    if (ceilMode && (result.output - 1) * dim.stride >= dim.input)
      --result.output;
    return result;
  }
  case WindowPadding::SameUpper:
  case WindowPadding::SameLower: {
    result.output = divideCeil(dim.input, dim.stride);
    int64_t total = std::max<int64_t>(0, (result.output - 1) * dim.stride +
                                             effectiveKernel - dim.input);
    int64_t small = total / 2;
    result.padBegin =
        padding == WindowPadding::SameUpper ? small : total - small;
    result.padEnd = total - result.padBegin;
    return result;
  }
  case WindowPadding::Explicit: {
    int64_t padded = dim.input + dim.padBegin + dim.padEnd;
    if (padded < effectiveKernel)
      break;
    int64_t span = padded - effectiveKernel;
    result.output =
        (ceilMode ? divideCeil(span, dim.stride) : span / dim.stride) + 1;
    // ONNX: with ceil_mode the last window must start inside the input or
    // the begin padding.
    if (ceilMode &&
        (result.output - 1) * dim.stride >= dim.input + dim.padBegin)
      --result.output;
    result.padBegin = dim.padBegin;
    result.padEnd = dim.padEnd;
    return result;
  }
  }
  return makeError("window of size " + Twine(effectiveKernel) +
                   " does not fit the padded input of size " +
                   Twine(dim.input + dim.padBegin + dim.padEnd));
}

std::optional<int64_t> mlc::graph::getNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (isDynamic(d) || d < 0)
      return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

Expected<SmallVector<int64_t>>
mlc::graph::resolveReshape(ArrayRef<int64_t> input, ArrayRef<int64_t> target,
                           bool allowZero) {
  SmallVector<int64_t> result;
  int inferredIndex = -1;
  for (auto [i, d] : enumerate(target)) {
    if (ShapedType::isDynamic(d)) {
      // Known only at run time.
      result.push_back(ShapedType::kDynamic);
    } else if (d == -1) {
      if (inferredIndex >= 0)
        return makeError("shape " + formatShape(target) +
                         " has more than one -1");
      inferredIndex = i;
      result.push_back(ShapedType::kDynamic);
    } else if (d == 0 && !allowZero) {
      if (i >= input.size())
        return makeError("shape entry " + Twine(i) +
                         " is 0 but the input has rank " + Twine(input.size()));
      result.push_back(input[i]);
    } else if (d < 0) {
      return makeError("shape entry " + Twine(i) + " is " + Twine(d));
    } else {
      result.push_back(d);
    }
  }
  std::optional<int64_t> inCount = getNumElements(input);
  if (inferredIndex >= 0) {
    SmallVector<int64_t> known(result);
    known[inferredIndex] = 1;
    std::optional<int64_t> knownCount = getNumElements(known);
    if (inCount && knownCount) {
      if (*knownCount == 0 || *inCount % *knownCount != 0)
        return makeError("cannot reshape " + formatShape(input) + " to " +
                         formatShape(target));
      result[inferredIndex] = *inCount / *knownCount;
    }
    return result;
  }
  std::optional<int64_t> outCount = getNumElements(result);
  if (inCount && outCount && *inCount != *outCount)
    return makeError("cannot reshape " + formatShape(input) + " (" +
                     Twine(*inCount) + " elements) to " + formatShape(result) +
                     " (" + Twine(*outCount) + " elements)");
  return result;
}

std::optional<SmallVector<int64_t>> mlc::graph::joinShapes(ArrayRef<int64_t> a,
                                                           ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a, b))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return dims;
}
