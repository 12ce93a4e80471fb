//===- ControlFlowOps.cpp - ONNX If and Loop ------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// If and Loop import their subgraph attributes into regions. Result types
// are the join of what the subgraphs produce: where they disagree on a dim,
// it becomes dynamic.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// The most static type compatible with both `a` and `b` (same element
/// type required), or null.
Type join(Type a, Type b) {
  MLIRContext *ctx = a.getContext();
  if (auto sa = dyn_cast<SequenceType>(a)) {
    auto sb = dyn_cast<SequenceType>(b);
    Type element = sb ? join(sa.getTensorType(), sb.getTensorType()) : Type();
    return element ? SequenceType::get(ctx, cast<TensorType>(element)) : Type();
  }
  if (auto oa = dyn_cast<OptionalType>(a)) {
    auto ob = dyn_cast<OptionalType>(b);
    Type value = ob ? join(oa.getValueType(), ob.getValueType()) : Type();
    return value ? OptionalType::get(ctx, value) : Type();
  }
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType())
    return {};
  if (ta.hasRank() && tb.hasRank())
    if (auto dims = joinShapes(ta.getShape(), tb.getShape()))
      return RankedTensorType::get(*dims, ta.getElementType());
  return UnrankedTensorType::get(ta.getElementType());
}

/// `type` with every dim dynamic (rank kept): what a loop-carried value may
/// be on any iteration.
Type relax(Type type) {
  if (auto sequence = dyn_cast<SequenceType>(type))
    return SequenceType::get(type.getContext(),
                             cast<TensorType>(relax(sequence.getTensorType())));
  if (auto optional = dyn_cast<OptionalType>(type))
    return OptionalType::get(type.getContext(), relax(optional.getValueType()));
  auto t = cast<TensorType>(type);
  if (!t.hasRank())
    return t;
  return RankedTensorType::get(
      SmallVector<int64_t>(t.getRank(), ShapedType::kDynamic),
      t.getElementType());
}

const onnx::GraphProto *getGraphAttr(NodeImporter &n, llvm::StringRef name) {
  const onnx::AttributeProto *attr = n.getAttr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

LogicalResult convertIf(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  const onnx::GraphProto *thenGraph = getGraphAttr(n, "then_branch");
  const onnx::GraphProto *elseGraph = getGraphAttr(n, "else_branch");
  if (!thenGraph || !elseGraph)
    return n.fail("then_branch and else_branch are required");
  Region thenRegion, elseRegion;
  auto thenValues = n.subgraphs->importSubgraph(*thenGraph, thenRegion, {});
  if (failed(thenValues))
    return failure();
  auto elseValues = n.subgraphs->importSubgraph(*elseGraph, elseRegion, {});
  if (failed(elseValues))
    return failure();
  if (thenValues->size() != elseValues->size())
    return n.fail("the branches have " + llvm::Twine(thenValues->size()) +
                  " and " + llvm::Twine(elseValues->size()) + " outputs");
  SmallVector<Type> types;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(*thenValues, *elseValues))) {
    Type type = join(std::get<0>(pair).getType(), std::get<1>(pair).getType());
    if (!type)
      return n.fail("branch output " + llvm::Twine(i) +
                    " has different element types in the two branches");
    types.push_back(type);
  }
  for (auto [region, values] : {std::pair{&thenRegion, &*thenValues},
                                std::pair{&elseRegion, &*elseValues}}) {
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.setInsertionPointToEnd(&region->front());
    YieldOp::create(n.builder, n.loc, *values);
  }
  OperationState state(n.loc, IfOp::getOperationName());
  IfOp::build(n.builder, state, types, n.getInput(0));
  state.regions[0]->takeBody(thenRegion);
  state.regions[1]->takeBody(elseRegion);
  llvm::append_range(n.results, n.builder.create(state)->getResults());
  return success();
}

LogicalResult convertLoop(NodeImporter &n) {
  const onnx::GraphProto *body = getGraphAttr(n, "body");
  if (!body)
    return n.fail("body is required");
  SmallVector<Value> initial;
  for (size_t i = 2; i < n.getNumInputs(); ++i) {
    if (!n.hasInput(i))
      return n.fail("loop-carried input " + llvm::Twine(i) + " is absent");
    initial.push_back(n.getInput(i));
  }
  MLIRContext *ctx = n.builder.getContext();
  SmallVector<Type> argTypes = {
      RankedTensorType::get({}, IntegerType::get(ctx, 64)),
      RankedTensorType::get({}, IntegerType::get(ctx, 1))};
  for (Value v : initial)
    argTypes.push_back(relax(v.getType()));
  Region region;
  auto outputs = n.subgraphs->importSubgraph(*body, region, argTypes);
  if (failed(outputs))
    return failure();
  size_t carried = initial.size();
  if (outputs->size() < carried + 1)
    return n.fail("body has " + llvm::Twine(outputs->size()) +
                  " outputs, expected at least " + llvm::Twine(carried + 1));
  SmallVector<Type> types;
  for (size_t i = 0; i < carried; ++i) {
    Type type = join(initial[i].getType(), (*outputs)[i + 1].getType());
    if (!type)
      return n.fail("carried value " + llvm::Twine(i) +
                    " changes element type in the body");
    types.push_back(type);
  }
  for (size_t i = carried + 1; i < outputs->size(); ++i) {
    auto t = dyn_cast<TensorType>((*outputs)[i].getType());
    if (!t)
      return n.fail("scan output " + llvm::Twine(i - carried - 1) +
                    " is not a tensor");
    if (!t.hasRank()) {
      types.push_back(t);
      continue;
    }
    SmallVector<int64_t> dims = {ShapedType::kDynamic};
    llvm::append_range(dims, t.getShape());
    types.push_back(RankedTensorType::get(dims, t.getElementType()));
  }
  {
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.setInsertionPointToEnd(&region.front());
    YieldOp::create(n.builder, n.loc, *outputs);
  }
  OperationState state(n.loc, LoopOp::getOperationName());
  LoopOp::build(n.builder, state, types, n.getInput(0), n.getInput(1), initial);
  state.regions[0]->takeBody(region);
  llvm::append_range(n.results, n.builder.create(state)->getResults());
  return success();
}
/// `axes[i]` normalized against `rank`, 0 when absent.
FailureOr<int64_t> getAxis(NodeImporter &n,
                           std::optional<ArrayRef<int64_t>> axes, size_t i,
                           int64_t rank) {
  int64_t axis = axes ? (*axes)[i] : 0;
  if (axis < -rank || axis >= rank) {
    (void)n.fail("scan axis " + llvm::Twine(axis) +
                 " is out of range for rank " + llvm::Twine(rank));
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

LogicalResult convertScan(NodeImporter &n) {
  if (n.opset < 9)
    return n.fail("Scan before opset 9 (with sequence_lens) is not supported");
  const onnx::GraphProto *body = getGraphAttr(n, "body");
  if (!body)
    return n.fail("body is required");
  int64_t scanned = n.getInt("num_scan_inputs", 0);
  int64_t total = n.getNumInputs();
  if (scanned < 1 || scanned > total)
    return n.fail("num_scan_inputs = " + llvm::Twine(scanned) +
                  " must be in [1, " + llvm::Twine(total) + "]");
  int64_t states = total - scanned;
  DenseI64ArrayAttr inAxes = n.getI64Array("scan_input_axes");
  DenseI64ArrayAttr outAxes = n.getI64Array("scan_output_axes");
  if (inAxes && static_cast<int64_t>(inAxes.size()) != scanned)
    return n.fail("scan_input_axes needs one entry per scan input");
  SmallVector<Value> inputs;
  SmallVector<Type> argTypes;
  int64_t length = ShapedType::kDynamic;
  for (int64_t i = 0; i < total; ++i) {
    if (!n.hasInput(i))
      return n.fail("input " + llvm::Twine(i) + " is absent");
    Value v = n.getInput(i);
    inputs.push_back(v);
    if (i < states) {
      argTypes.push_back(relax(v.getType()));
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return n.fail("scan inputs must have a known rank");
    auto axis =
        getAxis(n, inAxes ? std::optional(inAxes.asArrayRef()) : std::nullopt,
                i - states, t.getRank());
    if (failed(axis))
      return failure();
    if (!t.isDynamicDim(*axis))
      length = t.getDimSize(*axis);
    SmallVector<int64_t> dims(t.getShape());
    dims.erase(dims.begin() + *axis);
    argTypes.push_back(RankedTensorType::get(dims, t.getElementType()));
  }
  Region region;
  auto outputs = n.subgraphs->importSubgraph(*body, region, argTypes);
  if (failed(outputs))
    return failure();
  int64_t scanOutputs = static_cast<int64_t>(outputs->size()) - states;
  if (scanOutputs < 0)
    return n.fail("body has fewer outputs than state variables");
  if (outAxes && static_cast<int64_t>(outAxes.size()) != scanOutputs)
    return n.fail("scan_output_axes needs one entry per scan output");
  SmallVector<Type> types;
  for (int64_t i = 0; i < states; ++i) {
    Type type = join(inputs[i].getType(), (*outputs)[i].getType());
    if (!type)
      return n.fail("state " + llvm::Twine(i) + " changes element type");
    types.push_back(type);
  }
  for (int64_t k = 0; k < scanOutputs; ++k) {
    auto t = dyn_cast<RankedTensorType>((*outputs)[states + k].getType());
    if (!t)
      return n.fail("scan outputs must have a known rank");
    auto axis =
        getAxis(n, outAxes ? std::optional(outAxes.asArrayRef()) : std::nullopt,
                k, t.getRank() + 1);
    if (failed(axis))
      return failure();
    SmallVector<int64_t> dims(t.getShape());
    dims.insert(dims.begin() + *axis, length);
    types.push_back(RankedTensorType::get(dims, t.getElementType()));
  }
  {
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.setInsertionPointToEnd(&region.front());
    YieldOp::create(n.builder, n.loc, *outputs);
  }
  OperationState state(n.loc, ScanOp::getOperationName());
  ScanOp::build(n.builder, state, types, inputs,
                n.builder.getI64IntegerAttr(scanned), inAxes,
                n.getI64Array("scan_input_directions"), outAxes,
                n.getI64Array("scan_output_directions"));
  state.regions[0]->takeBody(region);
  llvm::append_range(n.results, n.builder.create(state)->getResults());
  return success();
}
} // namespace

void mlc::onnx_import::addControlFlowConverters(ConverterTable &t) {
  t.add("If", 1, convertIf);
  t.add("Loop", 1, convertLoop);
  t.add("Scan", 9, convertScan);
}
