//===- GraphControlFlow.cpp - Verifiers of If and Loop --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// True when `a` and `b` are tensors of one element type and compatible
/// shapes.
/// Checks that `yield` yields values compatible with `expected`.
LogicalResult checkYield(Operation *op, StringRef what, YieldOp yield,
                         TypeRange expected) {
  if (yield.getValues().size() != expected.size())
    return op->emitOpError() << what << " yields " << yield.getValues().size()
                             << " values, expected " << expected.size();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues().getTypes(), expected)))
    if (!areCompatibleValueTypes(std::get<0>(pair), std::get<1>(pair)))
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
  return !shaped ||
         getNumElements(shaped.getShape()) == std::optional<int64_t>(1);
}
} // namespace

LogicalResult IfOp::verify() {
  if (!isScalarBoolOrI64(getCondition().getType()))
    return emitOpError("condition must hold one element, got ")
           << getCondition().getType();
  for (auto [name, region] :
       {std::pair<StringRef, Region *>{"then branch", &getThenBranch()},
        {"else branch", &getElseBranch()}}) {
    YieldOp yield = getYield(*region);
    if (!yield)
      return emitOpError() << name << " does not end in mlc_graph.yield";
    if (failed(checkYield(*this, name, yield, getResultTypes())))
      return failure();
  }
  return success();
}

LogicalResult IfOp::buildFailingBranch(OpBuilder &builder, Location loc,
                                       Region &branch, TypeRange types,
                                       StringRef message) {
  for (Type type : types)
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        !tensor || !tensor.hasStaticShape())
      return failure();
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&branch);
  Value never =
      arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false));
  cf::AssertOp::create(builder, loc, never, message);
  SmallVector<Value> zeros;
  for (Type type : types) {
    auto tensor = cast<RankedTensorType>(type);
    zeros.push_back(ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(tensor,
                               builder.getZeroAttr(tensor.getElementType()))));
  }
  YieldOp::create(builder, loc, zeros);
  return success();
}

LogicalResult LoopOp::verify() {
  Block &body = getBody().front();
  size_t carried = getInitial().size();
  if (getNumResults() < carried)
    return emitOpError("has ") << getNumResults() << " results but " << carried
                               << " carried values";
  if (body.getNumArguments() != carried + 2)
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments, expected " << carried + 2
           << " (iteration number, condition, carried values)";
  for (Value v : {getMaxTripCount(), getCondition()})
    if (v && !isScalarBoolOrI64(v.getType()))
      return emitOpError("trip count and condition must hold one element");
  for (size_t i = 0; i < carried; ++i) {
    Type init = getInitial()[i].getType();
    if (!areCompatibleValueTypes(init, body.getArgument(i + 2).getType()) ||
        !areCompatibleValueTypes(init, getResult(i).getType()))
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
    if (!areCompatibleValueTypes(yield.getValues()[i + 1].getType(),
                                 getResult(i).getType()))
      return emitOpError("body yields ")
             << yield.getValues()[i + 1].getType() << " for carried value " << i
             << ", incompatible with " << getResult(i).getType();
  return success();
}

LogicalResult ScanOp::verify() {
  int64_t numInputs = getInputs().size();
  int64_t scanned = getNumScanInputs();
  if (scanned < 1 || scanned > numInputs)
    return emitOpError("num_scan_inputs = ")
           << scanned << " must be in [1, " << numInputs << "]";
  int64_t states = getNumStates();
  int64_t scanOutputs = static_cast<int64_t>(getNumResults()) - states;
  if (scanOutputs < 0)
    return emitOpError("has ") << getNumResults() << " results but " << states
                               << " state variables";
  auto checkCount = [&](std::optional<ArrayRef<int64_t>> values, StringRef what,
                        int64_t expected) -> LogicalResult {
    if (values && static_cast<int64_t>(values->size()) != expected)
      return emitOpError() << what << " has " << values->size()
                           << " entries, expected " << expected;
    return success();
  };
  if (failed(checkCount(getScanInputAxes(), "scan_input_axes", scanned)) ||
      failed(checkCount(getScanInputDirections(), "scan_input_directions",
                        scanned)) ||
      failed(
          checkCount(getScanOutputAxes(), "scan_output_axes", scanOutputs)) ||
      failed(checkCount(getScanOutputDirections(), "scan_output_directions",
                        scanOutputs)))
    return failure();
  Block &body = getBody().front();
  if (static_cast<int64_t>(body.getNumArguments()) != numInputs)
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments, expected " << numInputs;
  YieldOp yield = getYield(getBody());
  if (!yield)
    return emitOpError("body does not end in mlc_graph.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values, expected "
           << getNumResults();
  for (int64_t i = 0; i < states; ++i)
    if (!areCompatibleValueTypes(getInputs()[i].getType(),
                                 getResult(i).getType()))
      return emitOpError("state ") << i << " changes type";
  return success();
}

LogicalResult SequenceMapOp::verify() {
  Block &body = getBody().front();
  size_t inputs = 1 + getAdditionalInputs().size();
  if (body.getNumArguments() != inputs)
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments, expected " << inputs;
  for (auto [i, input] : llvm::enumerate(getOperands())) {
    Type expected = input.getType();
    if (auto sequence = dyn_cast<SequenceType>(expected))
      expected = sequence.getTensorType();
    if (!areCompatibleValueTypes(expected, body.getArgument(i).getType()))
      return emitOpError("body argument ")
             << i << " has type " << body.getArgument(i).getType()
             << ", incompatible with " << expected;
  }
  YieldOp yield = getYield(getBody());
  if (!yield)
    return emitOpError("body does not end in mlc_graph.yield");
  SmallVector<Type> elements;
  for (Type t : getResultTypes())
    elements.push_back(cast<SequenceType>(t).getTensorType());
  return checkYield(*this, "body", yield, elements);
}
