//===- GraphControlFlow.cpp - Verifiers of If and Loop --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// True when `a` and `b` are tensors of one element type and compatible
/// shapes.
bool areCompatible(Type a, Type b) {
  auto ta = dyn_cast<TensorType>(a);
  auto tb = dyn_cast<TensorType>(b);
  return ta && tb && ta.getElementType() == tb.getElementType() &&
         succeeded(verifyCompatibleShape(ta, tb));
}

/// Checks that `yield` yields values compatible with `expected`.
LogicalResult checkYield(Operation *op, StringRef what, YieldOp yield,
                         TypeRange expected) {
  if (yield.getValues().size() != expected.size())
    return op->emitOpError() << what << " yields " << yield.getValues().size()
                             << " values, expected " << expected.size();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues().getTypes(), expected)))
    if (!areCompatible(std::get<0>(pair), std::get<1>(pair)))
      return op->emitOpError()
             << what << " yields " << std::get<0>(pair) << " as value " << i
             << ", incompatible with " << std::get<1>(pair);
  return success();
}

YieldOp getYield(Region &region) {
  return dyn_cast<YieldOp>(region.front().getTerminator());
}

bool isScalarBoolOrI64(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return !shaped || getNumElements(shaped.getShape()) ==
                        std::optional<int64_t>(1);
}
} // namespace

LogicalResult IfOp::verify() {
  if (!isScalarBoolOrI64(getCondition().getType()))
    return emitOpError("condition must hold one element, got ")
           << getCondition().getType();
  for (auto [name, region] : {std::pair<StringRef, Region *>{"then branch",
                                                             &getThenBranch()},
                              {"else branch", &getElseBranch()}}) {
    YieldOp yield = getYield(*region);
    if (!yield)
      return emitOpError() << name << " does not end in mlc_graph.yield";
    if (failed(checkYield(*this, name, yield, getResultTypes())))
      return failure();
  }
  return success();
}

LogicalResult LoopOp::verify() {
  Block &body = getBody().front();
  size_t carried = getInitial().size();
  if (getNumResults() < carried)
    return emitOpError("has ") << getNumResults() << " results but "
                               << carried << " carried values";
  if (body.getNumArguments() != carried + 2)
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments, expected " << carried + 2
           << " (iteration number, condition, carried values)";
  for (Value v : {getMaxTripCount(), getCondition()})
    if (v && !isScalarBoolOrI64(v.getType()))
      return emitOpError("trip count and condition must hold one element");
  for (size_t i = 0; i < carried; ++i) {
    Type init = getInitial()[i].getType();
    if (!areCompatible(init, body.getArgument(i + 2).getType()) ||
        !areCompatible(init, getResult(i).getType()))
      return emitOpError("carried value ")
             << i << " has type " << init
             << ", incompatible with its body argument or result";
  }
  YieldOp yield = getYield(getBody());
  if (!yield)
    return emitOpError("body does not end in mlc_graph.yield");
  if (yield.getValues().size() != getNumResults() + 1)
    return emitOpError("body yields ")
           << yield.getValues().size() << " values, expected "
           << getNumResults() + 1
           << " (condition, carried values, scan outputs)";
  for (size_t i = 0; i < carried; ++i)
    if (!areCompatible(yield.getValues()[i + 1].getType(),
                       getResult(i).getType()))
      return emitOpError("body yields ")
             << yield.getValues()[i + 1].getType() << " for carried value "
             << i << ", incompatible with " << getResult(i).getType();
  return success();
}
