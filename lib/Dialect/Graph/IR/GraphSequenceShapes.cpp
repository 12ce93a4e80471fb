//===- GraphSequenceShapes.cpp - Shape functions of GraphSequenceOps.td ---===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// Checks `value`'s dim `i` against `expected` when both are known.
LogicalResult checkDim(OptLoc loc, StringRef opName, StringRef what,
                       ArrayRef<int64_t> shape, size_t i, int64_t expected) {
  if (i >= shape.size() || ShapedType::isDynamic(shape[i]) ||
      ShapedType::isDynamic(expected) || shape[i] == expected)
    return success();
  return shapeError(loc, opName, what, " has dim ", i, " = ", shape[i],
                    ", expected ", expected);
}

/// Shared shape function of RNN (1 gate), GRU (3) and LSTM (4).
template <typename Adaptor>
LogicalResult inferRecurrent(OptLoc loc, StringRef name, Adaptor adaptor,
                             int64_t gates, int64_t activationsPerDirection,
                             unsigned numResults, Types &types) {
  int64_t hidden = adaptor.getHiddenSize();
  if (hidden <= 0)
    return shapeError(loc, name, "hidden_size must be positive, got ", hidden);
  StringRef direction = adaptor.getDirection();
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return shapeError(loc, name, "unknown direction '", direction, "'");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  int64_t layout = adaptor.getLayout();
  if (layout != 0 && layout != 1)
    return shapeError(loc, name, "layout must be 0 or 1, got ", layout);
  if (std::optional<ArrayAttr> acts = adaptor.getActivations()) {
    if (static_cast<int64_t>(acts->size()) != dirs * activationsPerDirection)
      return shapeError(loc, name, "expects ", dirs * activationsPerDirection,
                        " activations, got ", acts->size());
    for (Attribute a : *acts) {
      StringRef act = cast<StringAttr>(a).getValue();
      if (!llvm::is_contained({"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu",
                               "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
                               "Elu", "Softsign", "Softplus"},
                              act))
        return shapeError(loc, name, "unknown activation '", act, "'");
    }
  }
  Type element = getElementType(adaptor.getInput());
  int64_t seq = kDyn, batch = kDyn, inputSize = kDyn;
  if (auto x = getTensorShape(adaptor.getInput())) {
    if (x->size() != 3)
      return shapeError(loc, name, "expects a 3-D input, got rank ", x->size());
    seq = (*x)[layout == 0 ? 0 : 1];
    batch = (*x)[layout == 0 ? 1 : 0];
    inputSize = (*x)[2];
  }
  auto checkRank = [&](StringRef what, Value v, size_t rank) -> LogicalResult {
    auto shape = v ? getTensorShape(v) : std::nullopt;
    if (shape && shape->size() != rank)
      return shapeError(loc, name, what, " must have rank ", rank, ", got ",
                        shape->size());
    return success();
  };
  if (failed(checkRank("weight", adaptor.getWeight(), 3)) ||
      failed(checkRank("recurrence", adaptor.getRecurrence(), 3)) ||
      failed(checkRank("bias", adaptor.getBias(), 2)))
    return failure();
  if (auto w = getTensorShape(adaptor.getWeight()))
    if (failed(checkDim(loc, name, "weight", *w, 0, dirs)) ||
        failed(checkDim(loc, name, "weight", *w, 1, gates * hidden)) ||
        failed(checkDim(loc, name, "weight", *w, 2, inputSize)))
      return failure();
  if (auto r = getTensorShape(adaptor.getRecurrence()))
    if (failed(checkDim(loc, name, "recurrence", *r, 0, dirs)) ||
        failed(checkDim(loc, name, "recurrence", *r, 1, gates * hidden)) ||
        failed(checkDim(loc, name, "recurrence", *r, 2, hidden)))
      return failure();
  if (Value b = adaptor.getBias())
    if (auto bs = getTensorShape(b))
      if (failed(checkDim(loc, name, "bias", *bs, 1, 2 * gates * hidden)))
        return failure();
  SmallVector<int64_t> y = layout == 0
                               ? SmallVector<int64_t>{seq, dirs, batch, hidden}
                               : SmallVector<int64_t>{batch, seq, dirs, hidden};
  SmallVector<int64_t> last = layout == 0
                                  ? SmallVector<int64_t>{dirs, batch, hidden}
                                  : SmallVector<int64_t>{batch, dirs, hidden};
  (void)pushTensor(types, ArrayRef<int64_t>(y), element);
  for (unsigned i = 1; i < numResults; ++i)
    (void)pushTensor(types, ArrayRef<int64_t>(last), element);
  return success();
}
} // namespace

LogicalResult RNNOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  return inferRecurrent(loc, getOperationName(), adaptor, 1, 1, 2, types);
}

LogicalResult GRUOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  return inferRecurrent(loc, getOperationName(), adaptor, 3, 2, 2, types);
}

LogicalResult LSTMOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  return inferRecurrent(loc, getOperationName(), adaptor, 4, 3, 3, types);
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return shapeError(loc, name, "expects at least one input");
  Type element = getElementType(inputs.front());
  std::string equation;
  for (char c : adaptor.getEquation())
    if (!llvm::isSpace(c))
      equation += c;
  auto [lhs, rhs] = StringRef(equation).split("->");
  bool explicitOutput = StringRef(equation).contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size())
    return shapeError(loc, name, "equation '", adaptor.getEquation(), "' has ",
                      terms.size(), " operand terms for ", inputs.size(),
                      " inputs");
  std::map<char, int64_t> sizes;
  std::map<char, int> counts;
  SmallVector<int64_t> ellipsis;
  bool hasEllipsis = false;
  for (auto [term, value] : llvm::zip(terms, inputs)) {
    if (getElementType(value) != element)
      return shapeError(loc, name, "inputs differ in element type");
    auto shape = getTensorShape(value);
    if (!shape)
      return pushTensor(types, std::nullopt, element);
    size_t dots = term.find("...");
    std::string letters = term.str();
    if (dots != StringRef::npos)
      letters.erase(dots, 3);
    for (char c : letters)
      if (!llvm::isAlpha(c))
        return shapeError(loc, name, "bad character '", std::string(1, c),
                          "' in equation '", adaptor.getEquation(), "'");
    int64_t extra = static_cast<int64_t>(shape->size()) -
                    static_cast<int64_t>(letters.size());
    if (extra < 0 || (dots == StringRef::npos && extra != 0))
      return shapeError(loc, name, "term '", term, "' does not match rank ",
                        shape->size());
    size_t pos = 0;
    for (size_t i = 0; i < term.size();) {
      if (term.substr(i).starts_with("...")) {
        hasEllipsis = true;
        auto bc = broadcastShapes(ellipsis, shape->slice(pos, extra));
        if (!bc)
          return shapeError(loc, name, bc.takeError());
        ellipsis = *bc;
        pos += extra;
        i += 3;
        continue;
      }
      char c = term[i++];
      int64_t d = (*shape)[pos++];
      ++counts[c];
      auto [it, inserted] = sizes.emplace(c, d);
      if (!inserted && !ShapedType::isDynamic(d) &&
          !ShapedType::isDynamic(it->second) && it->second != d)
        return shapeError(loc, name, "index '", std::string(1, c),
                          "' has sizes ", it->second, " and ", d);
      if (ShapedType::isDynamic(it->second))
        it->second = d;
    }
  }
  SmallVector<int64_t> out;
  if (explicitOutput) {
    for (size_t i = 0; i < rhs.size();) {
      if (rhs.substr(i).starts_with("...")) {
        llvm::append_range(out, ellipsis);
        i += 3;
        continue;
      }
      char c = rhs[i++];
      auto it = sizes.find(c);
      if (it == sizes.end())
        return shapeError(loc, name, "output index '", std::string(1, c),
                          "' appears in no input");
      out.push_back(it->second);
    }
  } else {
    if (hasEllipsis)
      llvm::append_range(out, ellipsis);
    for (auto [c, n] : counts)
      if (n == 1)
        out.push_back(sizes[c]);
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getData());
  auto data = getTensorShape(adaptor.getData());
  auto indices = getTensorShape(adaptor.getIndices());
  if (!data || !indices || indices->empty() ||
      ShapedType::isDynamic(indices->back()))
    return pushTensor(types, std::nullopt, element);
  int64_t b = adaptor.getBatchDims(), k = indices->back();
  int64_t r = data->size(), q = indices->size();
  if (b < 0 || b >= std::min(r, q))
    return shapeError(loc, name, "batch_dims ", b, " must be below the ranks");
  if (k < 1 || k > r - b)
    return shapeError(loc, name, "index tuples of length ", k,
                      " do not fit data of rank ", r, " with batch_dims ", b);
  SmallVector<int64_t> out(indices->drop_back());
  llvm::append_range(out, data->drop_front(b + k));
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &types) {
  StringRef reduction = adaptor.getReduction();
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, reduction))
    return shapeError(loc, getOperationName(), "unknown reduction '", reduction,
                      "'");
  if (getElementType(adaptor.getUpdates()) != getElementType(adaptor.getData()))
    return shapeError(loc, getOperationName(),
                      "updates and data differ in element type");
  types.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult NonZeroOp::inferReturnTypes(MLIRContext *ctx, OptLoc,
                                          Adaptor adaptor, Types &types) {
  auto shape = getTensorShape(adaptor.getInput());
  int64_t rank = shape ? static_cast<int64_t>(shape->size()) : kDyn;
  return pushTensor(types, ArrayRef<int64_t>({rank, kDyn}),
                    IntegerType::get(ctx, 64));
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  if (adaptor.getSize() <= 0)
    return shapeError(loc, getOperationName(), "size must be positive");
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  StringRef mode = adaptor.getMode(), padding = adaptor.getPaddingMode();
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return shapeError(loc, name, "unknown mode '", mode, "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return shapeError(loc, name, "unknown padding_mode '", padding, "'");
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto grid = dyn_cast<RankedTensorType>(adaptor.getGrid().getType());
  if (!x || !grid)
    return shapeError(loc, name, "needs ranked operands");
  if (x.getRank() != 4 || grid.getRank() != 4)
    return shapeError(loc, name, "only 2-D sampling (rank-4 X and grid) is "
                                 "supported");
  if (failed(checkDim(loc, name, "grid", grid.getShape(), 3, 2)) ||
      failed(checkDim(loc, name, "grid", grid.getShape(), 0, x.getDimSize(0))))
    return failure();
  types.push_back(RankedTensorType::get({x.getDimSize(0), x.getDimSize(1),
                                         grid.getDimSize(1),
                                         grid.getDimSize(2)},
                                        x.getElementType()));
  return success();
}

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  StringRef mode = adaptor.getMode();
  StringRef transform = adaptor.getCoordinateTransformationMode();
  if (mode != "avg" && mode != "max")
    return shapeError(loc, name, "unknown mode '", mode, "'");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return shapeError(loc, name, "unknown coordinate_transformation_mode '",
                      transform, "'");
  int64_t oh = adaptor.getOutputHeight(), ow = adaptor.getOutputWidth();
  if (oh <= 0 || ow <= 0 || static_cast<int64_t>(adaptor.getSamplingRatio()) < 0)
    return shapeError(loc, name, "output sizes must be positive and "
                                 "sampling_ratio non-negative");
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto rois = dyn_cast<RankedTensorType>(adaptor.getRois().getType());
  if (!x || !rois || x.getRank() != 4 || rois.getRank() != 2)
    return shapeError(loc, name, "needs X of rank 4 and rois of rank 2");
  if (failed(checkDim(loc, name, "rois", rois.getShape(), 1, 4)))
    return failure();
  types.push_back(RankedTensorType::get(
      {rois.getDimSize(0), x.getDimSize(1), oh, ow}, x.getElementType()));
  return success();
}

LogicalResult DFTOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x)
    return shapeError(loc, name, "needs a ranked input");
  int64_t rank = x.getRank();
  if (rank < 3)
    return shapeError(loc, name, "the input needs rank >= 3, got ", rank);
  int64_t last = x.getDimSize(rank - 1);
  if (!ShapedType::isDynamic(last) && last != 1 && last != 2)
    return shapeError(loc, name, "the last dim must be 1 (real) or 2 "
                                 "(complex), got ", last);
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0)
    axis += rank;
  if (axis < 1 || axis > rank - 2)
    return shapeError(loc, name, "axis ", adaptor.getAxis(),
                      " is not a signal dim of a rank-", rank, " input");
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = 2;
  if (adaptor.getOnesided() && !ShapedType::isDynamic(shape[axis]))
    shape[axis] = shape[axis] / 2 + 1;
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult DetOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x)
    return shapeError(loc, name, "needs a ranked input");
  int64_t rank = x.getRank();
  if (rank < 2)
    return shapeError(loc, name, "the input needs rank >= 2, got ", rank);
  if (failed(checkDim(loc, name, "input", x.getShape(), rank - 1,
                      x.getDimSize(rank - 2))))
    return failure();
  types.push_back(
      RankedTensorType::get(x.getShape().drop_back(2), x.getElementType()));
  return success();
}

LogicalResult RandomOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  StringRef distribution = adaptor.getDistribution();
  if (distribution != "normal" && distribution != "uniform")
    return shapeError(loc, name, "unknown distribution '", distribution, "'");
  Type element = adaptor.getDtype();
  if (!isa<FloatType>(element))
    return shapeError(loc, name, "dtype must be a float type, got ", element);
  if (Value like = adaptor.getLike())
    return pushTensor(types, getTensorShape(like), element);
  std::optional<ArrayRef<int64_t>> shape = adaptor.getShape();
  if (!shape)
    return shapeError(loc, name, "needs a shape or a 'like' operand");
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return shapeError(loc, name, "shape has a negative dim");
  return pushTensor(types, *shape, element);
}
