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

#include "mlc/Dialect/Graph/Transforms/ConstantEvaluator.h"
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

/// Imports a Loop or Scan body whose arguments [first, first + count) are
/// carried from one iteration to the next (yielded as [firstYield,
/// firstYield + count)): with the initial values' exact types when the
/// body yields the same types back, else again with every dim dynamic, as
/// a value whose shape changes across iterations needs.
FailureOr<SmallVector<Value>>
importCarriedBody(NodeImporter &n, const onnx::GraphProto &body, Region &region,
                  SmallVector<Type> argTypes, size_t first, size_t count,
                  size_t firstYield) {
  {
    Region exact;
    auto outputs = n.subgraphs->importSubgraph(body, exact, argTypes);
    bool same = succeeded(outputs) && outputs->size() >= firstYield + count;
    for (size_t i = 0; same && i < count; ++i)
      same = (*outputs)[firstYield + i].getType() == argTypes[first + i];
    if (same) {
      region.takeBody(exact);
      return outputs;
    }
  }
  for (size_t i = 0; i < count; ++i)
    argTypes[first + i] = relax(argTypes[first + i]);
  return n.subgraphs->importSubgraph(body, region, argTypes);
}

const onnx::GraphProto *getGraphAttr(NodeImporter &n, llvm::StringRef name) {
  const onnx::AttributeProto *attr = n.getAttr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

/// Imports one If branch. A branch that cannot be imported (an op that
/// does not type-check at the shapes given, or that mlc does not convert)
/// prints nothing: it fails with the first error's text in `why`, so that
/// the caller can decide whether the failure matters.
FailureOr<SmallVector<Value>> importBranch(NodeImporter &n,
                                           const onnx::GraphProto &graph,
                                           Region &region, std::string &why) {
  ScopedDiagnosticHandler capture(
      n.builder.getContext(), [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Error)
          return failure();
        if (why.empty())
          why = diag.str();
        return success();
      });
  return n.subgraphs->importSubgraph(graph, region, {});
}

/// The value of `v` when it is computed from constants alone, a few ops
/// deep (exporters compute conditions from initializers and shapes), else
/// null. Nothing is rewritten.
DenseElementsAttr evaluateConstant(Value v, unsigned depth = 8) {
  Operation *def = v.getDefiningOp();
  if (auto constant = dyn_cast_or_null<ConstantOp>(def))
    return dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!def || depth == 0 || def->getNumResults() != 1 ||
      def->getNumRegions() != 0)
    return {};
  SmallVector<DenseElementsAttr> operands;
  for (Value operand : def->getOperands())
    operands.push_back(evaluateConstant(operand, depth - 1));
  // The op's own folder first (Shape folds from a static input type).
  SmallVector<Attribute> attrs(operands.begin(), operands.end());
  SmallVector<OpFoldResult> folded;
  if (succeeded(def->fold(attrs, folded)) && folded.size() == 1)
    if (auto attr = dyn_cast_if_present<Attribute>(folded[0]))
      if (auto value = dyn_cast<DenseElementsAttr>(attr))
        return value;
  return evaluateConstantOp(def, operands);
}

/// The branch an If takes when its condition is known at compile time.
std::optional<bool> getConstantCondition(Value condition) {
  DenseElementsAttr value = evaluateConstant(condition);
  if (!value || value.getNumElements() != 1 ||
      !value.getElementType().isInteger(1))
    return std::nullopt;
  return *value.getValues<bool>().begin();
}

/// An If. When its condition is a constant, only the branch taken is
/// imported. Otherwise both are; a branch that cannot be imported at the
/// shapes given (an exporter's guard for other sample rates or ranks)
/// becomes one that fails at run time, if it is ever taken, with the
/// reason, as ONNX Runtime only evaluates the branch taken. The compile
/// warns about it; it is an error only when neither branch imports.
LogicalResult convertIf(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  const onnx::GraphProto *thenGraph = getGraphAttr(n, "then_branch");
  const onnx::GraphProto *elseGraph = getGraphAttr(n, "else_branch");
  if (!thenGraph || !elseGraph)
    return n.fail("then_branch and else_branch are required");
  if (std::optional<bool> taken = getConstantCondition(n.getInput(0))) {
    Region region;
    auto values = n.subgraphs->importSubgraph(*taken ? *thenGraph : *elseGraph,
                                              region, {});
    if (failed(values))
      return failure();
    Block &block = region.front();
    n.builder.getInsertionBlock()->getOperations().splice(
        n.builder.getInsertionPoint(), block.getOperations());
    llvm::append_range(n.results, *values);
    return success();
  }
  Region thenRegion, elseRegion;
  std::string thenWhy, elseWhy;
  auto thenValues = importBranch(n, *thenGraph, thenRegion, thenWhy);
  auto elseValues = importBranch(n, *elseGraph, elseRegion, elseWhy);
  if (failed(thenValues) && failed(elseValues))
    return n.fail("neither branch can be imported: then_branch: " + thenWhy +
                  "; else_branch: " + elseWhy);
  if (failed(thenValues) || failed(elseValues)) {
    bool thenFails = failed(thenValues);
    ArrayRef<Value> good = thenFails ? *elseValues : *thenValues;
    StringRef branch = thenFails ? "then_branch" : "else_branch";
    const std::string &why = thenFails ? thenWhy : elseWhy;
    Region &failing = thenFails ? thenRegion : elseRegion;
    failing.getBlocks().clear();
    auto name = dyn_cast<NameLoc>(n.loc);
    std::string message = ("If node '" +
                           (name ? name.getName().getValue() : "?") +
                           "': the " + branch +
                           " taken cannot run at the shapes the model was "
                           "compiled for: " + why)
                              .str();
    if (failed(IfOp::buildFailingBranch(n.builder, n.loc, failing,
                                        ValueRange(good).getTypes(), message)))
      return n.fail(branch + " cannot be imported (" + why +
                    "), and the other branch's results are not all of static "
                    "shape");
    emitWarning(n.loc) << message
                       << "; the model reports this as an error if it is "
                          "taken at run time";
    (thenFails ? thenValues : elseValues) = SmallVector<Value>(
        cast<YieldOp>(failing.front().getTerminator()).getValues());
  }
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
    if (!region->front().empty() &&
        isa<YieldOp>(region->front().getTerminator()))
      continue;
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
    argTypes.push_back(v.getType());
  Region region;
  auto outputs =
      importCarriedBody(n, *body, region, argTypes, 2, initial.size(), 1);
  if (failed(outputs))
    return failure();
  size_t carried = initial.size();
  if (outputs->size() < carried + 1)
    return n.fail("body has " + llvm::Twine(outputs->size()) +
                  " outputs, expected at least " + llvm::Twine(carried + 1));
  // A carried optional may come back from the body as a plain value (ONNX
  // Runtime accepts that): it is wrapped into the optional again.
  for (size_t i = 0; i < carried; ++i) {
    auto optional = dyn_cast<OptionalType>(initial[i].getType());
    Value &next = (*outputs)[i + 1];
    if (!optional || isa<OptionalType>(next.getType()))
      continue;
    Type value = join(optional.getValueType(), next.getType());
    if (!value)
      break;
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.setInsertionPointToEnd(&region.front());
    next = OptionalOp::create(n.builder, n.loc, OptionalType::get(ctx, value),
                              next);
  }
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

/// A Scan (opset 9 form) over `inputs` (states, then `scanned` scan inputs)
/// with `body`; returns its results.
FailureOr<SmallVector<Value>>
buildScan(NodeImporter &n, const onnx::GraphProto &body, ArrayRef<Value> inputs,
          int64_t scanned, DenseI64ArrayAttr inAxes,
          DenseI64ArrayAttr inDirections, DenseI64ArrayAttr outAxes,
          DenseI64ArrayAttr outDirections) {
  int64_t total = inputs.size();
  int64_t states = total - scanned;
  SmallVector<Type> argTypes;
  int64_t length = ShapedType::kDynamic;
  for (int64_t i = 0; i < total; ++i) {
    Value v = inputs[i];
    if (i < states) {
      argTypes.push_back(v.getType());
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t) {
      (void)n.fail("scan inputs must have a known rank");
      return failure();
    }
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
  auto outputs = importCarriedBody(n, body, region, argTypes, 0, states, 0);
  if (failed(outputs))
    return failure();
  int64_t scanOutputs = static_cast<int64_t>(outputs->size()) - states;
  auto fail = [&](const llvm::Twine &message) {
    (void)n.fail(message);
    return failure();
  };
  if (scanOutputs < 0)
    return fail("body has fewer outputs than state variables");
  if (outAxes && static_cast<int64_t>(outAxes.size()) != scanOutputs)
    return fail("scan_output_axes needs one entry per scan output");
  SmallVector<Type> types;
  for (int64_t i = 0; i < states; ++i) {
    Type type = join(inputs[i].getType(), (*outputs)[i].getType());
    if (!type)
      return fail("state " + llvm::Twine(i) + " changes element type");
    types.push_back(type);
  }
  for (int64_t k = 0; k < scanOutputs; ++k) {
    auto t = dyn_cast<RankedTensorType>((*outputs)[states + k].getType());
    if (!t)
      return fail("scan outputs must have a known rank");
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
                n.builder.getI64IntegerAttr(scanned), inAxes, inDirections,
                outAxes, outDirections);
  state.regions[0]->takeBody(region);
  return SmallVector<Value>(n.builder.create(state)->getResults());
}

/// Scan before opset 9: every input has a leading batch dim (scan inputs
/// [batch, sequence, ...]) and the body runs per batch entry. With a static
/// batch it becomes one opset-9 Scan per entry on the entry's slices, whose
/// results are stacked again; `sequence_lens` must be absent.
LogicalResult convertScan8(NodeImporter &n) {
  const onnx::GraphProto *body = getGraphAttr(n, "body");
  if (!body)
    return n.fail("body is required");
  if (n.hasInput(0))
    return n.fail("sequence_lens (Scan before opset 9) is not supported");
  int64_t scanned = n.getInt("num_scan_inputs", 0);
  int64_t total = static_cast<int64_t>(n.getNumInputs()) - 1;
  if (scanned < 1 || scanned > total)
    return n.fail("num_scan_inputs = " + llvm::Twine(scanned) +
                  " must be in [1, " + llvm::Twine(total) + "]");
  int64_t batch = ShapedType::kDynamic;
  for (int64_t i = 1; i <= total; ++i) {
    auto t = n.hasInput(i) ? dyn_cast<RankedTensorType>(n.getInput(i).getType())
                           : RankedTensorType();
    if (!t || t.getRank() < 1 || t.isDynamicDim(0))
      return n.fail("Scan before opset 9 needs inputs with a static batch dim");
    if (ShapedType::isDynamic(batch))
      batch = t.getDimSize(0);
    else if (batch != t.getDimSize(0))
      return n.fail("the inputs disagree on the batch size");
  }
  Builder &b = n.builder;
  auto axis0 = b.getDenseI64ArrayAttr({0});
  SmallVector<SmallVector<Value>> perEntry;
  for (int64_t e = 0; e < batch; ++e) {
    SmallVector<Value> inputs;
    for (int64_t i = 1; i <= total; ++i) {
      FailureOr<SliceOp> slice = n.create<SliceOp>(
          n.getInput(i), n.getI64Constant({e}), n.getI64Constant({e + 1}),
          n.getI64Constant({0}), Value());
      FailureOr<SqueezeOp> entry =
          succeeded(slice)
              ? n.create<SqueezeOp>(slice->getResult(), axis0, Value())
              : FailureOr<SqueezeOp>(failure());
      if (failed(entry))
        return failure();
      inputs.push_back(entry->getResult());
    }
    auto results = buildScan(n, *body, inputs, scanned, DenseI64ArrayAttr(),
                             n.getI64Array("directions"), DenseI64ArrayAttr(),
                             DenseI64ArrayAttr());
    if (failed(results))
      return failure();
    perEntry.push_back(std::move(*results));
  }
  for (size_t r = 0; r < perEntry.front().size(); ++r) {
    SmallVector<Value> stacked;
    for (SmallVector<Value> &results : perEntry) {
      FailureOr<UnsqueezeOp> u =
          n.create<UnsqueezeOp>(results[r], axis0, Value());
      if (failed(u))
        return failure();
      stacked.push_back(u->getResult());
    }
    if (stacked.size() == 1) {
      n.results.push_back(stacked.front());
      continue;
    }
    if (failed(n.emit<ConcatOp>(stacked, b.getI64IntegerAttr(0))))
      return failure();
  }
  return success();
}

LogicalResult convertScan(NodeImporter &n) {
  if (n.opset < 9)
    return convertScan8(n);
  const onnx::GraphProto *body = getGraphAttr(n, "body");
  if (!body)
    return n.fail("body is required");
  int64_t scanned = n.getInt("num_scan_inputs", 0);
  int64_t total = n.getNumInputs();
  if (scanned < 1 || scanned > total)
    return n.fail("num_scan_inputs = " + llvm::Twine(scanned) +
                  " must be in [1, " + llvm::Twine(total) + "]");
  DenseI64ArrayAttr inAxes = n.getI64Array("scan_input_axes");
  if (inAxes && static_cast<int64_t>(inAxes.size()) != scanned)
    return n.fail("scan_input_axes needs one entry per scan input");
  SmallVector<Value> inputs;
  for (int64_t i = 0; i < total; ++i) {
    if (!n.hasInput(i))
      return n.fail("input " + llvm::Twine(i) + " is absent");
    inputs.push_back(n.getInput(i));
  }
  auto results = buildScan(n, *body, inputs, scanned, inAxes,
                           n.getI64Array("scan_input_directions"),
                           n.getI64Array("scan_output_axes"),
                           n.getI64Array("scan_output_directions"));
  if (failed(results))
    return failure();
  llvm::append_range(n.results, *results);
  return success();
}
} // namespace

void mlc::onnx_import::addControlFlowConverters(ConverterTable &t) {
  t.add("If", 1, convertIf);
  t.add("Loop", 1, convertLoop, Accepts::Anything);
  t.add("Scan", 8, convertScan);
}
