//===- InferShapes.cpp - Refine graph result types ------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/Transforms/ConstantEvaluator.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHINFERSHAPES
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;
using namespace mlc::graph;

namespace {
/// The most static type that refines both `a` and `b`, or null when they
/// conflict. Both are tensors of one element type.
TensorType meet(TensorType a, TensorType b) {
  if (!a.hasRank())
    return b;
  if (!b.hasRank())
    return a;
  if (a.getRank() != b.getRank())
    return {};
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape())) {
    if (ShapedType::isDynamic(x))
      dims.push_back(y);
    else if (ShapedType::isDynamic(y) || x == y)
      dims.push_back(x);
    else
      return {};
  }
  return RankedTensorType::get(dims, a.getElementType());
}

/// True when every use of `v` tolerates a more static type: graph ops
/// (their shape functions accept it), casts (they accept any compatible
/// type) and the function's return (its type is updated).
/// `combine` (meet or join) on tensor types, applied through sequences and
/// optionals; null where the kinds differ.
Type combineValueTypes(Type a, Type b,
                       TensorType (*combine)(TensorType, TensorType)) {
  if (a == b)
    return a;
  if (auto sa = dyn_cast<SequenceType>(a)) {
    auto sb = dyn_cast<SequenceType>(b);
    TensorType element =
        sb ? combine(sa.getTensorType(), sb.getTensorType()) : TensorType();
    return element ? SequenceType::get(a.getContext(), element) : Type();
  }
  if (auto oa = dyn_cast<OptionalType>(a)) {
    auto ob = dyn_cast<OptionalType>(b);
    Type value =
        ob ? combineValueTypes(oa.getValueType(), ob.getValueType(), combine)
           : Type();
    return value ? OptionalType::get(a.getContext(), value) : Type();
  }
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if (!ta || !tb || ta.getElementType() != tb.getElementType())
    return {};
  return combine(ta, tb);
}

bool usersAcceptRefinement(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    return isa<GraphDialect>(user->getDialect()) ||
           isa<func::ReturnOp, CastOpInterface>(user);
  });
}

/// Replaces `op` by a constant when all its operands are dense constants
/// and the evaluator folds it. Erases `op`.
bool foldToConstant(Operation *op) {
  SmallVector<DenseElementsAttr> operands;
  for (Value v : op->getOperands()) {
    auto constant = v.getDefiningOp<ConstantOp>();
    operands.push_back(constant
                           ? dyn_cast<DenseElementsAttr>(constant.getValue())
                           : DenseElementsAttr());
  }
  // The op's own folder first (Shape folds from a static input type).
  DenseElementsAttr value;
  SmallVector<Attribute> attrs(operands.begin(), operands.end());
  SmallVector<OpFoldResult> folded;
  if (op->getNumResults() == 1 && succeeded(op->fold(attrs, folded)) &&
      folded.size() == 1)
    if (auto attr = dyn_cast_if_present<Attribute>(folded[0]))
      value = dyn_cast<DenseElementsAttr>(attr);
  if (!value)
    value = evaluateConstantOp(op, operands);
  if (!value || (value.getType() != op->getResult(0).getType() &&
                 !usersAcceptRefinement(op->getResult(0))))
    return false;
  OpBuilder b(op);
  Value constant = ConstantOp::create(b, op->getLoc(), value.getType(), value);
  op->getResult(0).replaceAllUsesWith(constant);
  op->erase();
  return true;
}

/// The most static type that both `a` and `b` refine: their shared dims,
/// dynamic where they differ, unranked when their ranks differ.
TensorType join(TensorType a, TensorType b) {
  if (a.hasRank() && b.hasRank())
    if (auto dims = joinShapes(a.getShape(), b.getShape()))
      return RankedTensorType::get(*dims, a.getElementType());
  return UnrankedTensorType::get(a.getElementType());
}

/// The value of a one-element constant condition, if `v` is one.
std::optional<bool> getConstantCondition(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  auto value =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  if (!value || value.getNumElements() != 1)
    return std::nullopt;
  return !(*value.getValues<APInt>().begin()).isZero();
}

/// An If whose condition is a constant becomes the ops of the branch it
/// takes (exporters guard rank-dependent code with conditions that only
/// become constant once shapes are known, and the untaken branch may not
/// even type-check for the actual shapes). Otherwise its results get the
/// types that both branches' yields agree on. Returns true when `op` was
/// erased.
bool refineIf(IfOp op) {
  std::optional<bool> taken = getConstantCondition(op.getCondition());
  if (taken) {
    Block &block = (*taken ? op.getThenBranch() : op.getElseBranch()).front();
    auto yield = cast<YieldOp>(block.getTerminator());
    bool replaceable = llvm::all_of(
        llvm::zip(op.getResults(), yield.getValues()), [](auto pair) {
          auto [result, value] = pair;
          return result.getType() == value.getType() ||
                 usersAcceptRefinement(result);
        });
    if (replaceable) {
      SmallVector<Value> values(yield.getValues());
      yield.erase();
      op->getBlock()->getOperations().splice(
          op->getIterator(), block.getOperations(), block.begin(), block.end());
      for (auto [result, value] : llvm::zip(op.getResults(), values))
        result.replaceAllUsesWith(value);
      op.erase();
      return true;
    }
  }
  auto thenYield = cast<YieldOp>(op.getThenBranch().front().getTerminator());
  auto elseYield = cast<YieldOp>(op.getElseBranch().front().getTerminator());
  for (auto [result, a, b] : llvm::zip(op.getResults(), thenYield.getValues(),
                                       elseYield.getValues())) {
    Type current = result.getType();
    Type joined = combineValueTypes(a.getType(), b.getType(), join);
    Type refined = joined ? combineValueTypes(current, joined, meet) : Type();
    if (refined && refined != current && usersAcceptRefinement(result))
      result.setType(refined);
  }
  return false;
}

/// A Loop that runs its constant trip count to the end (no condition or a
/// constant true one, and a body that yields its condition argument or
/// true) stacks that many scan outputs: their leading dim becomes static.
void refineLoop(LoopOp op) {
  DenseIntElementsAttr trips;
  if (!op.getMaxTripCount() ||
      !matchPattern(op.getMaxTripCount(), mlir::m_Constant(&trips)) ||
      trips.getNumElements() != 1)
    return;
  if (op.getCondition() &&
      getConstantCondition(op.getCondition()) != std::optional<bool>(true))
    return;
  Block &body = op.getBody().front();
  Value next = cast<YieldOp>(body.getTerminator()).getValues().front();
  if (next != body.getArgument(1) &&
      getConstantCondition(next) != std::optional<bool>(true))
    return;
  int64_t count =
      std::max<int64_t>((*trips.getValues<APInt>().begin()).getSExtValue(), 0);
  for (Value result : op.getResults().drop_front(op.getInitial().size())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || type.getRank() == 0 || !type.isDynamicDim(0) ||
        !usersAcceptRefinement(result))
      continue;
    SmallVector<int64_t> dims(type.getShape());
    dims[0] = count;
    result.setType(RankedTensorType::get(dims, type.getElementType()));
  }
}

/// "node 'NAME'" for a node's location, else the location printed.
std::string describeNode(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return ("node '" + name.getName().getValue() + "'").str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

/// Refines the types of one function's graph ops in order, nested regions
/// before the op that holds them (what a post-order walk does), folding
/// constants on the way.
struct ShapeRefiner {
  bool foldConstants;

  LogicalResult refineBlock(Block &block) {
    // Refining an If may splice the ops of the branch it takes before it,
    // and folding erases the op visited: iterate over a snapshot.
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops)
      if (failed(refineOp(op)))
        return failure();
    return success();
  }

  LogicalResult refineOp(Operation *op) {
    if (auto ifOp = dyn_cast<IfOp>(op)) {
      if (failed(refineBranches(ifOp)))
        return failure();
      refineIf(ifOp);
      return success();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(refineBlock(block)))
          return failure();
    if (!isa<GraphDialect>(op->getDialect()) || isa<ConstantOp>(op))
      return success();
    if (auto loop = dyn_cast<LoopOp>(op)) {
      refineLoop(loop);
      return success();
    }
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      SmallVector<Type> inferred;
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getAttrDictionary(), op->getPropertiesStorage(),
              op->getRegions(), inferred)))
        return failure();
      for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
        Type current = result.getType();
        Type refined = combineValueTypes(current, type, meet);
        if (!refined)
          return op->emitOpError("result type ")
                 << current << " conflicts with the inferred type " << type;
        if (refined != current && usersAcceptRefinement(result))
          result.setType(refined);
      }
    }
    // A cast has its operand's shape: the only shape function it needs.
    if (auto castOp = dyn_cast<CastOp>(op)) {
      auto operand = dyn_cast<RankedTensorType>(castOp.getInput().getType());
      auto current = dyn_cast<TensorType>(castOp.getType());
      if (operand && current) {
        TensorType refined =
            meet(current, RankedTensorType::get(operand.getShape(),
                                                current.getElementType()));
        if (!refined)
          return op->emitOpError("result type ")
                 << current << " conflicts with its operand's shape";
        if (refined != current && usersAcceptRefinement(castOp.getResult()))
          castOp.getResult().setType(refined);
      }
    }
    if (foldConstants && op->getNumRegions() == 0)
      foldToConstant(op);
    return success();
  }

  /// Refines an If's branches. With a constant condition only the branch
  /// taken matters (refineIf then inlines it). Otherwise a branch whose ops
  /// do not type-check at these shapes (an exporter's guard for another
  /// sample rate) becomes one that fails at run time if taken, as ONNX
  /// Runtime only evaluates the branch taken; the compile warns.
  LogicalResult refineBranches(IfOp op) {
    Region *branches[] = {&op.getThenBranch(), &op.getElseBranch()};
    if (std::optional<bool> taken = getConstantCondition(op.getCondition()))
      return refineBlock(branches[*taken ? 0 : 1]->front());
    std::string why[2];
    bool failedBranch[2];
    for (int i = 0; i < 2; ++i) {
      ScopedDiagnosticHandler capture(
          op->getContext(), [&](Diagnostic &diag) -> LogicalResult {
            if (diag.getSeverity() != DiagnosticSeverity::Error)
              return failure();
            if (why[i].empty())
              why[i] = describeNode(diag.getLocation()) + ": " + diag.str();
            return success();
          });
      failedBranch[i] = failed(refineBlock(branches[i]->front()));
    }
    if (!failedBranch[0] && !failedBranch[1])
      return success();
    if (failedBranch[0] && failedBranch[1])
      return op.emitError("neither branch can run at these shapes: "
                          "then_branch: ")
             << why[0] << "; else_branch: " << why[1];
    int bad = failedBranch[0] ? 0 : 1;
    auto good = cast<YieldOp>(branches[1 - bad]->front().getTerminator());
    std::string message = "If " + describeNode(op.getLoc()) + ": the " +
                          (bad ? "else" : "then") +
                          "_branch taken cannot run at the shapes the model "
                          "was compiled for: " + why[bad];
    Region &failing = *branches[bad];
    for (Block &block : failing)
      block.dropAllDefinedValueUses();
    failing.getBlocks().clear();
    OpBuilder builder(op);
    if (failed(IfOp::buildFailingBranch(builder, op.getLoc(), failing,
                                        good.getValues().getTypes(),
                                        message)))
      return op.emitError(message) << " (and the other branch's results are "
                                      "not all of static shape)";
    emitWarning(op.getLoc())
        << message
        << "; the model reports this as an error if it is taken at run time";
    return success();
  }
};

struct GraphInferShapesPass
    : mlc::graph::impl::GraphInferShapesBase<GraphInferShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    ShapeRefiner refiner{foldConstants};
    if (failed(refiner.refineBlock(func.getBody().front())))
      return signalPassFailure();

    // Function results follow the returned values.
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }
};
} // namespace
