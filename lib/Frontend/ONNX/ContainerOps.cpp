//===- ContainerOps.cpp - ONNX sequence and optional ops ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence
// (opset 11), Optional, OptionalHasElement, OptionalGetElement (opset 15)
// and SequenceMap (opset 17) onto the graph dialect's sequence and optional
// ops.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// Fails unless input `i` is a sequence.
LogicalResult expectSequence(NodeImporter &n, size_t i) {
  if (isa<SequenceType>(n.getInput(i).getType()))
    return success();
  return n.fail("input " + llvm::Twine(i) + " must be a sequence");
}

/// Fails unless input `i` is a tensor.
LogicalResult expectTensor(NodeImporter &n, size_t i) {
  if (isa<TensorType>(n.getInput(i).getType()))
    return success();
  return n.fail("input " + llvm::Twine(i) + " must be a tensor");
}

LogicalResult convertSequenceEmpty(NodeImporter &n) {
  if (failed(n.expectInputs(0, 0)))
    return failure();
  int64_t dtype = n.getInt("dtype", 1);
  Type element = getElementType(n.builder.getContext(), dtype);
  if (!element)
    return n.fail("dtype " + getDataTypeName(dtype) + " is not supported");
  n.results.push_back(SequenceEmptyOp::create(
      n.builder, n.loc,
      SequenceType::get(n.builder.getContext(),
                        UnrankedTensorType::get(element))));
  return success();
}

LogicalResult convertSequenceConstruct(NodeImporter &n) {
  if (n.getNumInputs() == 0)
    return n.fail("needs at least one tensor");
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.getNumInputs(); ++i) {
    if (!n.hasInput(i) || failed(expectTensor(n, i)))
      return n.fail("input " + llvm::Twine(i) + " must be a tensor");
    inputs.push_back(n.getInput(i));
  }
  return n.emit<SequenceConstructOp>(inputs);
}

LogicalResult convertSequenceInsert(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)) || failed(expectSequence(n, 0)) ||
      failed(expectTensor(n, 1)))
    return failure();
  return n.emit<SequenceInsertOp>(n.getInput(0), n.getInput(1), n.getInput(2));
}

LogicalResult convertSequenceAt(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)) || failed(expectSequence(n, 0)))
    return failure();
  return n.emit<SequenceAtOp>(n.getInput(0), n.getInput(1));
}

LogicalResult convertSequenceErase(NodeImporter &n) {
  if (failed(n.expectInputs(1, 2)) || failed(expectSequence(n, 0)))
    return failure();
  return n.emit<SequenceEraseOp>(n.getInput(0), n.getInput(1));
}

LogicalResult convertSequenceLength(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)) || failed(expectSequence(n, 0)))
    return failure();
  return n.emit<SequenceLengthOp>(n.getInput(0));
}

LogicalResult convertSplitToSequence(NodeImporter &n) {
  if (failed(n.expectInputs(1, 2)) || failed(expectTensor(n, 0)))
    return failure();
  Value split = n.getInput(1);
  if (split) {
    auto type = dyn_cast<RankedTensorType>(split.getType());
    if (type && type.getRank() > 1)
      return n.fail("split must be a scalar or 1-D");
  }
  return n.emit<SplitToSequenceOp>(
      n.getInput(0), split, n.builder.getI64IntegerAttr(n.getInt("axis", 0)),
      n.builder.getBoolAttr(n.getInt("keepdims", 1) != 0));
}

LogicalResult convertConcatFromSequence(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)) || failed(expectSequence(n, 0)))
    return failure();
  if (!n.getAttr("axis"))
    return n.fail("axis is required");
  return n.emit<ConcatFromSequenceOp>(
      n.getInput(0), n.builder.getI64IntegerAttr(n.getInt("axis", 0)),
      n.builder.getBoolAttr(n.getInt("new_axis", 0) != 0));
}

/// Optional: of its input, or empty of the type attribute's type.
LogicalResult convertOptional(NodeImporter &n, const onnx::TypeProto *type) {
  Value input = n.getInput(0);
  Type valueType = input ? input.getType() : Type();
  if (!input) {
    if (!type)
      return n.fail("an empty Optional needs the type attribute");
    if (type->has_tensor_type()) {
      Type element = getElementType(n.builder.getContext(),
                                    type->tensor_type().elem_type());
      if (element)
        valueType = UnrankedTensorType::get(element);
    } else if (type->has_sequence_type() &&
               type->sequence_type().elem_type().has_tensor_type()) {
      Type element = getElementType(
          n.builder.getContext(),
          type->sequence_type().elem_type().tensor_type().elem_type());
      if (element)
        valueType = SequenceType::get(n.builder.getContext(),
                                      UnrankedTensorType::get(element));
    }
    if (!valueType)
      return n.fail("the type attribute must be a tensor or a sequence of "
                    "tensors of a supported element type");
  } else if (!isa<TensorType, SequenceType>(valueType)) {
    return n.fail("input must be a tensor or a sequence");
  }
  n.results.push_back(OptionalOp::create(
      n.builder, n.loc, OptionalType::get(n.builder.getContext(), valueType),
      input));
  return success();
}

LogicalResult convertOptionalNode(NodeImporter &n) {
  if (failed(n.expectInputs(0, 1)))
    return failure();
  const onnx::AttributeProto *type = n.getAttr("type");
  return convertOptional(n, type && type->has_tp() ? &type->tp() : nullptr);
}

/// OptionalHasElement; opset 18 also takes a plain tensor or sequence,
/// which always has one.
LogicalResult convertOptionalHasElement(NodeImporter &n) {
  if (failed(n.expectInputs(0, 1)))
    return failure();
  Type i1 = n.builder.getI1Type();
  if (!n.hasInput(0) || !isa<OptionalType>(n.getInput(0).getType())) {
    if (n.opset < 18)
      return n.fail("input must be an optional");
    n.results.push_back(n.getScalarConstant(i1, n.hasInput(0) ? 1 : 0));
    return success();
  }
  n.results.push_back(OptionalHasElementOp::create(
      n.builder, n.loc, RankedTensorType::get({}, i1), n.getInput(0)));
  return success();
}

/// OptionalGetElement; opset 18 also takes a plain tensor or sequence,
/// returned as it is.
LogicalResult convertOptionalGetElement(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  auto optional = dyn_cast<OptionalType>(n.getInput(0).getType());
  if (!optional) {
    if (n.opset < 18)
      return n.fail("input must be an optional");
    n.results.push_back(n.getInput(0));
    return success();
  }
  n.results.push_back(OptionalGetElementOp::create(
      n.builder, n.loc, optional.getValueType(), n.getInput(0)));
  return success();
}
/// SequenceMap: the body's arguments are the elements of the sequence
/// inputs and the tensor inputs themselves; each yielded tensor makes one
/// output sequence.
LogicalResult convertSequenceMap(NodeImporter &n) {
  if (n.getNumInputs() == 0 || failed(expectSequence(n, 0)))
    return n.fail("needs an input sequence");
  const onnx::AttributeProto *body = n.getAttr("body");
  if (!body || !body->has_g())
    return n.fail("body is required");
  SmallVector<Value> additional;
  SmallVector<Type> argTypes;
  for (size_t i = 0; i < n.getNumInputs(); ++i) {
    Value input = n.getInput(i);
    if (!input)
      return n.fail("input " + llvm::Twine(i) + " is absent");
    if (i > 0)
      additional.push_back(input);
    if (auto sequence = dyn_cast<SequenceType>(input.getType()))
      argTypes.push_back(sequence.getTensorType());
    else if (isa<TensorType>(input.getType()))
      argTypes.push_back(input.getType());
    else
      return n.fail("input " + llvm::Twine(i) +
                    " must be a tensor or a sequence");
  }
  Region region;
  auto outputs = n.subgraphs->importSubgraph(body->g(), region, argTypes);
  if (failed(outputs))
    return failure();
  SmallVector<Type> types;
  for (auto [i, v] : llvm::enumerate(*outputs)) {
    auto tensor = dyn_cast<TensorType>(v.getType());
    if (!tensor)
      return n.fail("body output " + llvm::Twine(i) + " is not a tensor");
    types.push_back(SequenceType::get(n.builder.getContext(), tensor));
  }
  {
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.setInsertionPointToEnd(&region.front());
    YieldOp::create(n.builder, n.loc, *outputs);
  }
  OperationState state(n.loc, SequenceMapOp::getOperationName());
  SequenceMapOp::build(n.builder, state, types, n.getInput(0), additional);
  state.regions[0]->takeBody(region);
  llvm::append_range(n.results, n.builder.create(state)->getResults());
  return success();
}
} // namespace

void mlc::onnx_import::addContainerConverters(ConverterTable &t) {
  t.add("SequenceMap", 17, convertSequenceMap, Accepts::Anything);
  t.add("SequenceEmpty", 11, convertSequenceEmpty);
  t.add("SequenceConstruct", 11, convertSequenceConstruct, Accepts::Strings);
  t.add("SequenceInsert", 11, convertSequenceInsert, Accepts::Anything);
  t.add("SequenceAt", 11, convertSequenceAt, Accepts::Containers);
  t.add("SequenceErase", 11, convertSequenceErase, Accepts::Containers);
  t.add("SequenceLength", 11, convertSequenceLength, Accepts::Containers);
  t.add("SplitToSequence", 11, convertSplitToSequence);
  t.add("ConcatFromSequence", 11, convertConcatFromSequence,
        Accepts::Containers);
  t.add("Optional", 15, convertOptionalNode, Accepts::Anything);
  t.add("OptionalHasElement", 15, convertOptionalHasElement, Accepts::Anything);
  t.add("OptionalGetElement", 15, convertOptionalGetElement, Accepts::Anything);
}
