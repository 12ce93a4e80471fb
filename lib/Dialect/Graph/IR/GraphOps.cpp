//===- GraphOps.cpp - mlc_graph op shape functions ------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shape functions (`inferReturnTypes`) of the graph ops that are not defined
// inline in TableGen. They double as verifiers: every invalid combination of
// shapes and attributes is reported here, at the op's location, with the op
// name and the offending values.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "GraphShapeHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

#define GET_OP_CLASSES
#include "mlc/Dialect/Graph/IR/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

WindowPadding mlc::graph::getWindowPadding(AutoPad autoPad) {
  switch (autoPad) {
  case AutoPad::SameUpper:
    return WindowPadding::SameUpper;
  case AutoPad::SameLower:
    return WindowPadding::SameLower;
  case AutoPad::Valid:
    return WindowPadding::Valid;
  case AutoPad::NotSet:
    break;
  }
  return WindowPadding::Explicit;
}

LogicalResult mlc::graph::detail::inferWindow(
    OptLoc loc, StringRef opName, ArrayRef<int64_t> spatial,
    ArrayRef<int64_t> kernel, std::optional<ArrayRef<int64_t>> strides,
    std::optional<ArrayRef<int64_t>> pads,
    std::optional<ArrayRef<int64_t>> dilations, AutoPad autoPad, bool ceilMode,
    SmallVectorImpl<int64_t> &out) {
  size_t n = spatial.size();
  if (kernel.size() != n)
    return shapeError(loc, opName, "kernel has ", kernel.size(),
                      " spatial dims but the input has ", n);
  if (strides && strides->size() != n)
    return shapeError(loc, opName, "expects ", n, " strides, got ",
                      strides->size());
  if (dilations && dilations->size() != n)
    return shapeError(loc, opName, "expects ", n, " dilations, got ",
                      dilations->size());
  if (pads && pads->size() != 2 * n)
    return shapeError(loc, opName, "expects ", 2 * n,
                      " pads (begins then ends), got ", pads->size());
  if (pads && autoPad != AutoPad::NotSet)
    return shapeError(loc, opName, "has both explicit pads and auto_pad");
  for (size_t i = 0; i < n; ++i) {
    if (ShapedType::isDynamic(kernel[i])) {
      out.push_back(kDyn);
      continue;
    }
    WindowDim dim;
    dim.input = spatial[i];
    dim.kernel = kernel[i];
    dim.stride = strides ? (*strides)[i] : 1;
    dim.dilation = dilations ? (*dilations)[i] : 1;
    dim.padBegin = pads ? (*pads)[i] : 0;
    dim.padEnd = pads ? (*pads)[i + n] : 0;
    auto r = computeWindowDim(dim, getWindowPadding(autoPad), ceilMode);
    if (!r)
      return shapeError(loc, opName, "spatial dim ", i, ": ",
                        llvm::toString(r.takeError()));
    out.push_back(r->output);
  }
  return success();
}

namespace {
/// Shared shape function of MaxPool and AveragePool.
template <typename Adaptor>
LogicalResult inferPool(OptLoc loc, StringRef opName, Adaptor adaptor,
                        Types &types) {
  Value input = adaptor.getInput();
  auto shape = getTensorShape(input);
  if (!shape)
    return pushTensor(types, std::nullopt, getElementType(input));
  if (shape->size() < 3)
    return shapeError(loc, opName,
                      "expects an input of rank >= 3 (N, C, "
                      "spatial...), got rank ",
                      shape->size());
  SmallVector<int64_t> out(shape->take_front(2));
  if (failed(inferWindow(loc, opName, shape->drop_front(2),
                         adaptor.getKernelShape(), adaptor.getStrides(),
                         adaptor.getPads(), adaptor.getDilations(),
                         adaptor.getAutoPad(), adaptor.getCeilMode(), out)))
    return failure();
  return pushTensor(types, ArrayRef<int64_t>(out), getElementType(input));
}

/// The value of an optional boolean attribute, or its ONNX default when a
/// builder left it unset.
inline bool getBoolOr(BoolAttr attr, bool defaultValue) {
  return attr ? attr.getValue() : defaultValue;
}

/// Shared shape function of the Reduce* ops.
template <typename Adaptor>
LogicalResult inferReduce(OptLoc loc, StringRef opName, Adaptor adaptor,
                          Types &types) {
  Value input = adaptor.getInput();
  auto shape = getTensorShape(input);
  Type element = getElementType(input);
  GivenAxes given = getGivenAxes(adaptor.getAxes(), adaptor.getDynamicAxes());
  bool keepdims = getBoolOr(adaptor.getKeepdimsAttr(), true);
  bool noop = getBoolOr(adaptor.getNoopWithEmptyAxesAttr(), false);
  if (given.given && !given.values) {
    // Axes known at run time only: the rank is known when dims are kept
    // (size-1 dims stay 1 either way) or from how many axes there are.
    if (!shape)
      return pushTensor(types, std::nullopt, element);
    int64_t rank = shape->size();
    if (keepdims) {
      SmallVector<int64_t> out;
      for (int64_t d : *shape)
        out.push_back(d == 1 ? 1 : kDyn);
      return pushTensor(types, ArrayRef<int64_t>(out), element);
    }
    if (given.count == kDyn || (given.count == 0 && noop))
      return pushTensor(types, std::nullopt, element);
    if (given.count > rank)
      return shapeError(loc, opName, given.count, " axes for rank ", rank);
    int64_t outRank = given.count == 0 ? 0 : rank - given.count;
    return pushTensor(
        types, ArrayRef<int64_t>(SmallVector<int64_t>(outRank, kDyn)), element);
  }
  bool noAxes = !given.values || given.values->empty();
  if (noAxes && noop) {
    types.push_back(input.getType());
    return success();
  }
  if (!shape)
    return pushTensor(types, std::nullopt, element);
  int64_t rank = shape->size();
  SmallVector<bool> reduced(rank, noAxes);
  if (!noAxes) {
    auto axes = normalizeAxes(*given.values, rank);
    if (!axes)
      return shapeError(loc, opName, axes.takeError());
    for (int64_t a : *axes)
      reduced[a] = true;
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      out.push_back((*shape)[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

/// Shared shape function of ArgMax and ArgMin.
template <typename Adaptor>
LogicalResult inferArgReduce(MLIRContext *ctx, OptLoc loc, StringRef opName,
                             Adaptor adaptor, Types &types) {
  Type i64 = IntegerType::get(ctx, 64);
  auto shape = getTensorShape(adaptor.getInput());
  if (!shape)
    return pushTensor(types, std::nullopt, i64);
  auto axis = normalizeAxis(adaptor.getAxis(), shape->size());
  if (!axis)
    return shapeError(loc, opName, axis.takeError());
  SmallVector<int64_t> out(*shape);
  if (getBoolOr(adaptor.getKeepdimsAttr(), true))
    out[*axis] = 1;
  else
    out.erase(out.begin() + *axis);
  return pushTensor(types, ArrayRef<int64_t>(out), i64);
}

/// Shared shape function of Softmax and LogSoftmax: checks the axis.
template <typename Adaptor>
LogicalResult inferSoftmax(OptLoc loc, StringRef opName, Adaptor adaptor,
                           Types &types) {
  if (auto shape = getTensorShape(adaptor.getInput())) {
    auto axis = normalizeAxis(adaptor.getAxis(), shape->size());
    if (!axis)
      return shapeError(loc, opName, axis.takeError());
  }
  types.push_back(adaptor.getInput().getType());
  return success();
}

/// Shared shape function of the global pools.
LogicalResult inferGlobalPool(OptLoc loc, StringRef opName, Value input,
                              Types &types) {
  auto shape = getTensorShape(input);
  if (!shape)
    return pushTensor(types, std::nullopt, getElementType(input));
  if (shape->size() < 3)
    return shapeError(loc, opName, "expects an input of rank >= 3, got rank ",
                      shape->size());
  SmallVector<int64_t> out(shape->size(), 1);
  out[0] = (*shape)[0];
  out[1] = (*shape)[1];
  return pushTensor(types, ArrayRef<int64_t>(out), getElementType(input));
}

} // namespace

LogicalResult mlc::graph::detail::checkChannelParam(OptLoc loc,
                                                    StringRef opName,
                                                    StringRef name, Value param,
                                                    int64_t channels) {
  if (!param)
    return success();
  auto shape = getTensorShape(param);
  if (!shape)
    return success();
  if (shape->size() != 1)
    return shapeError(loc, opName, "expects ", name, " to be 1-D, got rank ",
                      shape->size());
  if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic((*shape)[0]) &&
      (*shape)[0] != channels)
    return shapeError(loc, opName, "expects ", name, " of size ", channels,
                      " (the channel count), got ", (*shape)[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  for (auto [name, bound] :
       {std::pair<StringRef, Value>{"min", getMin()}, {"max", getMax()}}) {
    if (!bound)
      continue;
    auto shape = getTensorShape(bound);
    if (shape && getNumElements(*shape) != std::optional<int64_t>(1))
      return emitOpError("expects ")
             << name << " to be a scalar, got " << bound.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Constants, where, linear algebra
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor, Types &types) {
  auto type = dyn_cast<TensorType>(adaptor.getValue().getType());
  if (!type)
    return shapeError(loc, getOperationName(), "expects a tensor value");
  types.push_back(type);
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                        Adaptor adaptor, Types &types) {
  SmallVector<Type> partial;
  if (failed(inferBroadcastResultType(ctx, loc, getOperationName(),
                                      adaptor.getLhs().getType(),
                                      adaptor.getRhs().getType(),
                                      /*isPredicate=*/false, partial)))
    return failure();
  auto cond = getTensorShape(adaptor.getCondition());
  auto value = dyn_cast<RankedTensorType>(partial.front());
  if (!cond || !value)
    return pushTensor(types, std::nullopt, getElementType(adaptor.getLhs()));
  auto shape = broadcastShapes(*cond, value.getShape());
  if (!shape)
    return shapeError(loc, getOperationName(), shape.takeError());
  return pushTensor(types, ArrayRef<int64_t>(*shape), value.getElementType());
}

LogicalResult mlc::graph::detail::inferMatMulShape(OptLoc loc, StringRef name,
                                                   Value lhsValue,
                                                   Value rhsValue, Type element,
                                                   Types &types) {
  auto lhs = getTensorShape(lhsValue);
  auto rhs = getTensorShape(rhsValue);
  if (!lhs || !rhs)
    return pushTensor(types, std::nullopt, element);
  if (lhs->empty() || rhs->empty())
    return shapeError(loc, name, "operands must have rank >= 1");
  SmallVector<int64_t> a(*lhs), b(*rhs);
  bool promoteA = a.size() == 1, promoteB = b.size() == 1;
  if (promoteA)
    a.insert(a.begin(), 1);
  if (promoteB)
    b.push_back(1);
  int64_t k1 = a.back(), k2 = b[b.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return shapeError(loc, name, "contracting dims differ: lhs ",
                      formatShape(*lhs), " has K = ", k1, ", rhs ",
                      formatShape(*rhs), " has K = ", k2);
  auto batch =
      broadcastShapes(ArrayRef(a).drop_back(2), ArrayRef(b).drop_back(2));
  if (!batch)
    return shapeError(loc, name,
                      "batch dims: ", llvm::toString(batch.takeError()));
  SmallVector<int64_t> out(*batch);
  if (!promoteA)
    out.push_back(a[a.size() - 2]);
  if (!promoteB)
    out.push_back(b.back());
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getLhs());
  if (element != getElementType(adaptor.getRhs()))
    return shapeError(loc, getOperationName(), "operand element types differ");
  return inferMatMulShape(loc, getOperationName(), adaptor.getLhs(),
                          adaptor.getRhs(), element, types);
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  Type element = getElementType(adaptor.getA());
  if (element != getElementType(adaptor.getB()) ||
      (adaptor.getC() && element != getElementType(adaptor.getC())))
    return shapeError(loc, name, "operand element types differ");
  auto a = getTensorShape(adaptor.getA());
  auto b = getTensorShape(adaptor.getB());
  SmallVector<int64_t> out = {kDyn, kDyn};
  int64_t ka = kDyn, kb = kDyn;
  if (a) {
    if (a->size() != 2)
      return shapeError(loc, name, "expects A of rank 2, got rank ", a->size());
    out[0] = (*a)[adaptor.getTransA() ? 1 : 0];
    ka = (*a)[adaptor.getTransA() ? 0 : 1];
  }
  if (b) {
    if (b->size() != 2)
      return shapeError(loc, name, "expects B of rank 2, got rank ", b->size());
    out[1] = (*b)[adaptor.getTransB() ? 0 : 1];
    kb = (*b)[adaptor.getTransB() ? 1 : 0];
  }
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return shapeError(loc, name, "contracting dims differ: ", ka, " vs ", kb);
  if (auto c = adaptor.getC() ? getTensorShape(adaptor.getC()) : std::nullopt) {
    if (c->size() > 2)
      return shapeError(loc, name, "expects C of rank <= 2, got rank ",
                        c->size());
    // C broadcasts one way: to [M, N], never growing it.
    auto bc = broadcastShapes(*c, out);
    if (!bc || llvm::any_of(llvm::zip(*bc, out), [](auto p) {
          auto [x, y] = p;
          return !ShapedType::isDynamic(y) && x != y;
        }))
      return shapeError(loc, name, "C of shape ", formatShape(*c),
                        " does not broadcast to ", formatShape(out));
  }
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

LogicalResult mlc::graph::detail::inferConvShape(
    OptLoc loc, StringRef name, Value input, Value weight, Value bias,
    std::optional<ArrayRef<int64_t>> strides,
    std::optional<ArrayRef<int64_t>> pads,
    std::optional<ArrayRef<int64_t>> dilations, int64_t group, AutoPad autoPad,
    Type element, Types &types) {
  auto x = getTensorShape(input);
  auto w = getTensorShape(weight);
  if (group <= 0)
    return shapeError(loc, name, "group must be positive, got ", group);
  if (!x || !w)
    return pushTensor(types, std::nullopt, element);
  if (x->size() < 3)
    return shapeError(loc, name,
                      "expects an input of rank >= 3 (N, C, "
                      "spatial...), got rank ",
                      x->size());
  if (w->size() != x->size())
    return shapeError(loc, name, "weight rank ", w->size(),
                      " differs from input rank ", x->size());
  int64_t c = (*x)[1], m = (*w)[0], cPerGroup = (*w)[1];
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(cPerGroup) &&
      c != cPerGroup * group)
    return shapeError(loc, name, "input has ", c, " channels but weight ",
                      formatShape(*w), " with group = ", group, " expects ",
                      cPerGroup * group);
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return shapeError(loc, name, "output channels ", m,
                      " are not divisible by group = ", group);
  if (failed(checkChannelParam(loc, name, "bias", bias, m)))
    return failure();
  SmallVector<int64_t> out = {(*x)[0], m};
  if (failed(inferWindow(loc, name, x->drop_front(2), w->drop_front(2), strides,
                         pads, dilations, autoPad,
                         /*ceilMode=*/false, out)))
    return failure();
  return pushTensor(types, ArrayRef<int64_t>(out), element);
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &types) {
  Type element = getElementType(adaptor.getInput());
  if (element != getElementType(adaptor.getWeight()))
    return shapeError(loc, getOperationName(),
                      "input and weight element types differ");
  return inferConvShape(loc, getOperationName(), adaptor.getInput(),
                        adaptor.getWeight(), adaptor.getBias(),
                        adaptor.getStrides(), adaptor.getPads(),
                        adaptor.getDilations(), adaptor.getGroup(),
                        adaptor.getAutoPad(), element, types);
}

LogicalResult MaxPoolIndicesOp::inferReturnTypes(MLIRContext *context,
                                                 OptLoc loc, Adaptor adaptor,
                                                 Types &types) {
  if (failed(inferPool(loc, getOperationName(), adaptor, types)))
    return failure();
  auto pooled = cast<TensorType>(types.back());
  types.back() = pooled.clone(IntegerType::get(context, 64));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  return inferPool(loc, getOperationName(), adaptor, types);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                              Adaptor adaptor, Types &types) {
  return inferPool(loc, getOperationName(), adaptor, types);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                    Adaptor adaptor,
                                                    Types &types) {
  return inferGlobalPool(loc, getOperationName(), adaptor.getInput(), types);
}

LogicalResult GlobalMaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                Adaptor adaptor, Types &types) {
  return inferGlobalPool(loc, getOperationName(), adaptor.getInput(), types);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  int64_t channels = kDyn;
  if (auto x = getTensorShape(adaptor.getInput())) {
    if (x->size() < 2)
      return shapeError(loc, name, "expects an input of rank >= 2, got rank ",
                        x->size());
    channels = (*x)[1];
  }
  if (failed(checkChannelParam(loc, name, "scale", adaptor.getScale(),
                               channels)) ||
      failed(
          checkChannelParam(loc, name, "bias", adaptor.getBias(), channels)) ||
      failed(
          checkChannelParam(loc, name, "mean", adaptor.getMean(), channels)) ||
      failed(checkChannelParam(loc, name, "variance", adaptor.getVariance(),
                               channels)))
    return failure();
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                               Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  int64_t channels = kDyn;
  if (auto x = getTensorShape(adaptor.getInput())) {
    if (x->size() < 3)
      return shapeError(loc, name, "expects an input of rank >= 3, got rank ",
                        x->size());
    channels = (*x)[1];
  }
  if (failed(checkChannelParam(loc, name, "scale", adaptor.getScale(),
                               channels)) ||
      failed(checkChannelParam(loc, name, "bias", adaptor.getBias(), channels)))
    return failure();
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &types) {
  StringRef name = getOperationName();
  if (auto x = getTensorShape(adaptor.getInput())) {
    auto axis = normalizeAxis(adaptor.getAxis(), x->size());
    if (!axis)
      return shapeError(loc, name, axis.takeError());
    ArrayRef<int64_t> normalized = x->drop_front(*axis);
    for (Value param : {adaptor.getScale(), adaptor.getBias()}) {
      auto p = param ? getTensorShape(param) : std::nullopt;
      if (!p)
        continue;
      auto bc = broadcastShapes(*p, normalized);
      if (!bc || bc->size() != normalized.size())
        return shapeError(loc, name, "parameter of shape ", formatShape(*p),
                          " does not broadcast to the normalized shape ",
                          formatShape(normalized));
    }
  }
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                             Adaptor adaptor, Types &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

LogicalResult HardmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &types) {
  return inferSoftmax(loc, getOperationName(), adaptor, types);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

#define MLC_GRAPH_REDUCE_SHAPE_FN(OP)                                          \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor, Types &types) {          \
    return inferReduce(loc, getOperationName(), adaptor, types);               \
  }                                                                            \
  LogicalResult OP::verify() {                                                 \
    return verifyAxesForms(*this, /*required=*/false);                         \
  }
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceSumOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceMeanOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceMaxOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceMinOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceProdOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceL2Op)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceLogSumExpOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceLogSumOp)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceL1Op)
MLC_GRAPH_REDUCE_SHAPE_FN(ReduceSumSquareOp)
#undef MLC_GRAPH_REDUCE_SHAPE_FN

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  return inferArgReduce(ctx, loc, getOperationName(), adaptor, types);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                         Adaptor adaptor, Types &types) {
  return inferArgReduce(ctx, loc, getOperationName(), adaptor, types);
}
