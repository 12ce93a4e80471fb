//===- GraphSpatialShapes.cpp - Shape functions of GraphSpatialOps.td -----===//
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

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  int64_t group = adaptor.getGroup();
  if (group <= 0)
    return shapeError(loc, name, "group must be positive, got ", group);
  auto x = getTensorShape(adaptor.getInput());
  auto w = getTensorShape(adaptor.getWeight());
  if (!x || !w)
    return pushTensor(types, std::nullopt, element);
  if (x->size() < 3 || w->size() != x->size())
    return shapeError(loc, name,
                      "expects input and weight of one rank >= 3, "
                      "got ",
                      x->size(), " and ", w->size());
  size_t n = x->size() - 2;
  int64_t c = (*x)[1];
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic((*w)[0]) &&
      c != (*w)[0])
    return shapeError(loc, name, "input has ", c, " channels but weight ",
                      formatShape(*w), " expects ", (*w)[0]);
  int64_t m = kDyn;
  if (!ShapedType::isDynamic((*w)[1]) && llvm::MulOverflow((*w)[1], group, m))
    return shapeError(loc, name, "group ", group, " times ", (*w)[1],
                      " output channels per group overflows a 64-bit size");
  if (failed(checkChannelParam(loc, name, "bias", adaptor.getBias(), m)))
    return failure();
  auto attrOr = [&](std::optional<ArrayRef<int64_t>> a, size_t size,
                    StringRef what,
                    int64_t fill) -> FailureOr<SmallVector<int64_t>> {
    if (!a)
      return SmallVector<int64_t>(size, fill);
    if (a->size() != size) {
      (void)shapeError(loc, name, "expects ", size, " ", what, ", got ",
                       a->size());
      return failure();
    }
    return SmallVector<int64_t>(*a);
  };
  auto strides = attrOr(adaptor.getStrides(), n, "strides", 1);
  auto dilations = attrOr(adaptor.getDilations(), n, "dilations", 1);
  auto pads = attrOr(adaptor.getPads(), 2 * n, "pads", 0);
  auto outPad = attrOr(adaptor.getOutputPadding(), n, "output_padding", 0);
  if (failed(strides) || failed(dilations) || failed(pads) || failed(outPad))
    return failure();
  SmallVector<int64_t> out = {(*x)[0], m};
  if (std::optional<ArrayRef<int64_t>> shape = adaptor.getOutputShape()) {
    // output_shape may list the spatial dims only, or N and C too.
    ArrayRef<int64_t> spatial = *shape;
    if (spatial.size() == n + 2)
      spatial = spatial.drop_front(2);
    if (spatial.size() != n)
      return shapeError(loc, name, "output_shape has ", shape->size(),
                        " entries, expected ", n);
    llvm::append_range(out, spatial);
    return pushTensor(types, ArrayRef<int64_t>(out), element);
  }
  AutoPad autoPad = adaptor.getAutoPad();
  for (size_t i = 0; i < n; ++i) {
    int64_t in = (*x)[i + 2], k = (*w)[i + 2];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      out.push_back(kDyn);
      continue;
    }
    int64_t s = (*strides)[i], d = (*dilations)[i];
    if (s <= 0 || d <= 0)
      return shapeError(loc, name, "strides and dilations must be positive");
    // s * (in - 1) + outPad + (k - 1) * d + 1, then the pads, without
    // overflow: hostile strides, dilations and pads are an error.
    int64_t a, b, full, same, dim;
    bool overflow = llvm::MulOverflow(s, in - 1, a) ||
                    llvm::MulOverflow(k - 1, d, b) ||
                    llvm::AddOverflow(a, b, full) ||
                    llvm::AddOverflow(full, (*outPad)[i], full) ||
                    llvm::AddOverflow(full, int64_t(1), full) ||
                    llvm::MulOverflow(in, s, same);
    if (autoPad == AutoPad::SameUpper || autoPad == AutoPad::SameLower)
      dim = same;
    else if (autoPad == AutoPad::Valid)
      dim = full;
    else
      overflow = overflow || llvm::SubOverflow(full, (*pads)[i], dim) ||
                 llvm::SubOverflow(dim, (*pads)[i + n], dim);
    if (overflow)
      return shapeError(loc, name, "spatial dim ", i,
                        " overflows a 64-bit size");
    if (dim <= 0)
      return shapeError(loc, name, "spatial dim ", i, " would be ", dim);
    out.push_back(dim);
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  StringRef mode = adaptor.getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return shapeError(loc, name, "unknown mode '", mode, "'");
  Type element = getElementType(adaptor.getInput());
  auto input = getTensorShape(adaptor.getInput());
  if (adaptor.getScales() && adaptor.getSizes())
    return shapeError(loc, name, "takes scales or sizes, not both");
  if (!input)
    return pushTensor(types, std::nullopt, element);
  size_t rank = input->size();
  SmallVector<int64_t> out(rank, kDyn);
  if (Value sizesValue = adaptor.getSizes()) {
    if (auto sizes = getConstantInts(sizesValue)) {
      if (sizes->size() != rank)
        return shapeError(loc, name, "expects ", rank, " sizes, got ",
                          sizes->size());
      out.assign(sizes->begin(), sizes->end());
    }
  } else if (Value scalesValue = adaptor.getScales()) {
    if (auto scales = getConstantFloats(scalesValue)) {
      if (scales->empty()) // An empty scales input means "use sizes".
        return pushTensor(types, ArrayRef<int64_t>(out), element);
      if (scales->size() != rank)
        return shapeError(loc, name, "expects ", rank, " scales, got ",
                          scales->size());
      for (size_t i = 0; i < rank; ++i) {
        if ((*scales)[i] <= 0)
          return shapeError(loc, name, "scale ", i, " is not positive");
        if (ShapedType::isDynamic((*input)[i]))
          continue;
        double size = std::floor((*input)[i] * (*scales)[i]);
        if (!(size < 0x1p62))
          return shapeError(loc, name, "scale ", (*scales)[i], " makes dim ",
                            i, " of size ", (*input)[i],
                            " larger than a 64-bit size");
        out[i] = static_cast<int64_t>(size);
      }
    }
  } else {
    return shapeError(loc, name, "needs scales or sizes");
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}
