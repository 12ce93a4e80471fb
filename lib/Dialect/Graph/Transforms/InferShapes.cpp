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

struct GraphInferShapesPass
    : mlc::graph::impl::GraphInferShapesBase<GraphInferShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (!isa<GraphDialect>(op->getDialect()) || isa<ConstantOp>(op))
        return WalkResult::advance();
      // Post-order walk: the branches are refined already, and erasing the
      // visited op is safe.
      if (auto ifOp = dyn_cast<IfOp>(op)) {
        refineIf(ifOp);
        return WalkResult::advance();
      }
      if (auto loop = dyn_cast<LoopOp>(op)) {
        refineLoop(loop);
        return WalkResult::advance();
      }
      if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
        SmallVector<Type> inferred;
        if (failed(infer.inferReturnTypes(
                op->getContext(), op->getLoc(), op->getOperands(),
                op->getAttrDictionary(), op->getPropertiesStorage(),
                op->getRegions(), inferred)))
          return WalkResult::interrupt();
        for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
          Type current = result.getType();
          Type refined = combineValueTypes(current, type, meet);
          if (!refined) {
            op->emitOpError("result type ")
                << current << " conflicts with the inferred type " << type;
            return WalkResult::interrupt();
          }
          if (refined != current && usersAcceptRefinement(result))
            result.setType(refined);
        }
      }
      // Post-order walk: erasing the visited op is safe.
      if (foldConstants && op->getNumRegions() == 0)
        foldToConstant(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // Function results follow the returned values.
    if (func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }
};
} // namespace
