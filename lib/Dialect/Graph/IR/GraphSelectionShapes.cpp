//===- GraphSelectionShapes.cpp - Shape functions of GraphSelectionOps.td -===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Sizes that values decide are `?` unless those values are constants.
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// The single value of a constant integer scalar (or 1-element tensor).
std::optional<int64_t> getConstantScalar(Value v) {
  std::optional<SmallVector<int64_t>> values = getConstantInts(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}
} // namespace

LogicalResult CompressOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getInput());
  auto condition = getTensorShape(adaptor.getCondition());
  if (condition && condition->size() != 1)
    return shapeError(loc, name, "condition must be 1-D, got rank ",
                      condition->size());
  auto input = getTensorShape(adaptor.getInput());
  std::optional<int64_t> axisAttr = adaptor.getAxis();
  if (axisAttr && !input)
    return pushTensor(types, std::nullopt, element);
  SmallVector<int64_t> out;
  int64_t axis = 0, dim = kDyn;
  if (axisAttr) {
    auto normalized = normalizeAxis(*axisAttr, input->size());
    if (!normalized)
      return shapeError(loc, name, normalized.takeError());
    axis = *normalized;
    out.assign(input->begin(), input->end());
    dim = out[axis];
  } else {
    out.push_back(kDyn);
    if (input)
      if (std::optional<int64_t> n = getNumElements(*input))
        dim = *n;
  }
  if (condition && !ShapedType::isDynamic((*condition)[0]) &&
      !ShapedType::isDynamic(dim) && (*condition)[0] > dim)
    return shapeError(loc, name, "condition has ", (*condition)[0],
                      " entries for ", dim, " slices");
  // A constant condition decides the size.
  out[axis] = kDyn;
  if (auto values = getConstantInts(adaptor.getCondition()))
    out[axis] = llvm::count_if(*values, [](int64_t v) { return v != 0; });
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult UniqueOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  Type i64 = IntegerType::get(ctx, 64);
  auto input = getTensorShape(adaptor.getInput());
  int64_t entries = kDyn;
  if (std::optional<int64_t> axisAttr = adaptor.getAxis()) {
    if (!input) {
      (void)pushTensor(types, std::nullopt, element);
    } else {
      auto axis = normalizeAxis(*axisAttr, input->size());
      if (!axis)
        return shapeError(loc, getOperationName(), axis.takeError());
      SmallVector<int64_t> out(*input);
      entries = out[*axis];
      out[*axis] = kDyn;
      (void)pushTensor(types, ArrayRef<int64_t>(out), element);
    }
  } else {
    if (input)
      if (std::optional<int64_t> n = getNumElements(*input))
        entries = *n;
    (void)pushTensor(types, ArrayRef<int64_t>({kDyn}), element);
  }
  (void)pushTensor(types, ArrayRef<int64_t>({kDyn}), i64);
  (void)pushTensor(types, ArrayRef<int64_t>({entries}), i64);
  return pushTensor(types, ArrayRef<int64_t>({kDyn}), i64);
}

LogicalResult NonMaxSuppressionOp::inferReturnTypes(MLIRContext *ctx,
                                                    OptLoc loc, Adaptor adaptor,
                                                    Types &types) {
  StringRef name = getOperationName();
  auto boxes = getTensorShape(adaptor.getBoxes());
  auto scores = getTensorShape(adaptor.getScores());
  if (boxes && (boxes->size() != 3 ||
                (!ShapedType::isDynamic((*boxes)[2]) && (*boxes)[2] != 4)))
    return shapeError(loc, name, "boxes must be [batch, boxes, 4], got ",
                      formatShape(*boxes));
  if (scores && scores->size() != 3)
    return shapeError(loc, name, "scores must be [batch, classes, boxes], got ",
                      formatShape(*scores));
  if (boxes && scores)
    for (auto [b, s] : {std::pair<int, int>{0, 0}, {1, 2}}) {
      int64_t x = (*boxes)[b], y = (*scores)[s];
      if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
        return shapeError(loc, name, "boxes ", formatShape(*boxes),
                          " and scores ", formatShape(*scores),
                          " disagree on the batch or box count");
    }
  return pushTensor(types, ArrayRef<int64_t>({kDyn, 3}),
                    IntegerType::get(ctx, 64));
}

LogicalResult STFTOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getSignal());
  auto signal = getTensorShape(adaptor.getSignal());
  if (signal &&
      (signal->size() != 3 || (!ShapedType::isDynamic((*signal)[2]) &&
                               (*signal)[2] != 1 && (*signal)[2] != 2)))
    return shapeError(loc, name, "signal must be [batch, length, 1 or 2], got ",
                      formatShape(*signal));
  int64_t frameLength = kDyn;
  if (Value length = adaptor.getFrameLength()) {
    if (std::optional<int64_t> n = getConstantScalar(length))
      frameLength = *n;
  } else if (Value window = adaptor.getWindow()) {
    if (auto w = getTensorShape(window); w && w->size() == 1)
      frameLength = (*w)[0];
  }
  std::optional<int64_t> step = getConstantScalar(adaptor.getFrameStep());
  if ((step && *step <= 0) ||
      (!ShapedType::isDynamic(frameLength) && frameLength <= 0))
    return shapeError(loc, name,
                      "frame_step and frame_length must be positive");
  int64_t batch = signal ? (*signal)[0] : kDyn;
  int64_t length = signal ? (*signal)[1] : kDyn;
  int64_t frames = kDyn, bins = kDyn;
  if (!ShapedType::isDynamic(frameLength)) {
    bins = adaptor.getOnesided() ? frameLength / 2 + 1 : frameLength;
    if (step && !ShapedType::isDynamic(length)) {
      if (length < frameLength)
        return shapeError(loc, name, "frame_length ", frameLength,
                          " exceeds the signal length ", length);
      frames = (length - frameLength) / *step + 1;
    }
  }
  return pushTensor(types, ArrayRef<int64_t>({batch, frames, bins, 2}),
                    element);
}

LogicalResult MelWeightMatrixOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  int64_t bins = kDyn, mels = kDyn;
  if (std::optional<int64_t> n = getConstantScalar(adaptor.getDftLength()))
    bins = *n / 2 + 1;
  if (std::optional<int64_t> n = getConstantScalar(adaptor.getNumMelBins())) {
    if (*n <= 0)
      return shapeError(loc, getOperationName(),
                        "num_mel_bins must be positive, got ", *n);
    mels = *n;
  }
  return pushTensor(types, ArrayRef<int64_t>({bins, mels}),
                    adaptor.getOutputType());
}

LogicalResult StringNormalizerOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                   Adaptor adaptor,
                                                   Types &types) {
  StringRef name = getOperationName();
  StringRef action = adaptor.getCaseChangeAction();
  if (action != "LOWER" && action != "UPPER" && action != "NONE")
    return shapeError(loc, name,
                      "case_change_action must be LOWER, UPPER or "
                      "NONE, got '",
                      action, "'");
  auto input = getTensorShape(adaptor.getInput());
  Type element = getElementType(adaptor.getInput());
  if (!input)
    return pushTensor(types, std::nullopt, element);
  if (input->empty() || input->size() > 2 ||
      (input->size() == 2 && !ShapedType::isDynamic((*input)[0]) &&
       (*input)[0] != 1))
    return shapeError(loc, name, "input must be [C] or [1, C], got ",
                      formatShape(*input));
  SmallVector<int64_t> out(*input);
  if (!adaptor.getStopwords().empty())
    out.back() = kDyn;
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}
