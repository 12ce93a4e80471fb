//===- RegisterAccumulators.cpp - A thread's reduction in a register ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "RegisterAccumulators.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

/// The indices `map` gives for the loop values `ivs`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(
        affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), ivs));
  return indices;
}

bool mlc::target::canBuildRegisterReduction(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      !op.hasPureBufferSemantics() || op->getNumRegions() != 1)
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!isa<MemRefType>(init->get().getType()))
    return false;
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction &&
        outputMap.isFunctionOfDim(d))
      return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  Block &body = op->getRegion(0).front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  return llvm::all_of(body.without_terminator(), [](Operation &inner) {
    return isa<linalg::IndexOp>(inner) || isPure(&inner);
  });
}

LogicalResult
mlc::target::buildRegisterReduction(OpBuilder &b, Location loc,
                                    linalg::LinalgOp op,
                                    ArrayRef<SmallVector<Value>> elements) {
  if (elements.empty() || !canBuildRegisterReduction(op))
    return failure();
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());

  // Each element's loop values; the reduction loops' filled in below.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<SmallVector<Value>> all;
  SmallVector<SmallVector<Value>> outputIndices;
  SmallVector<Value> firsts;
  for (ArrayRef<Value> ivs : elements) {
    all.emplace_back(ivs.begin(), ivs.end());
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction)
        all.back()[d] = zero;
    outputIndices.push_back(applyMap(b, loc, outputMap, all.back()));
    firsts.push_back(
        memref::LoadOp::create(b, loc, init->get(), outputIndices.back()));
  }

  // The body for element `e` with the accumulator `acc`.
  auto step = [&](OpBuilder &nb, size_t e, Value acc) -> Value {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            nb, loc, value,
            applyMap(nb, loc, op.getMatchingIndexingMap(input), all[e]));
      mapping.map(body.getArgument(input->getOperandNumber()), value);
    }
    mapping.map(body.getArgument(init->getOperandNumber()), acc);
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), all[e][index.getDim()]);
        continue;
      }
      nb.clone(inner, mapping);
    }
    return mapping.lookupOrDefault(yield.getOperand(0));
  };
  // The reduction loops, outermost first, each carrying the accumulators;
  // the elements side by side in the innermost body, so that their loads of
  // the same operand value are one.
  std::function<SmallVector<Value>(OpBuilder &, size_t, ValueRange)> loops =
      [&](OpBuilder &nb, size_t from, ValueRange accs) -> SmallVector<Value> {
    size_t d = from;
    while (d < iterators.size() &&
           iterators[d] != utils::IteratorType::reduction)
      ++d;
    if (d == iterators.size()) {
      SmallVector<Value> next;
      for (size_t e = 0; e < elements.size(); ++e)
        next.push_back(step(nb, e, accs[e]));
      return next;
    }
    Value upper = arith::ConstantIndexOp::create(nb, loc, ranges[d]);
    Value one = arith::ConstantIndexOp::create(nb, loc, 1);
    auto loop = scf::ForOp::create(nb, loc, zero, upper, one, accs);
    OpBuilder::InsertionGuard guard(nb);
    nb.setInsertionPointToStart(loop.getBody());
    for (SmallVector<Value> &ivs : all)
      ivs[d] = loop.getInductionVar();
    SmallVector<Value> next = loops(nb, d + 1, loop.getRegionIterArgs());
    scf::YieldOp::create(nb, loc, next);
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> results = loops(b, 0, firsts);
  for (auto [result, indices] : llvm::zip(results, outputIndices))
    memref::StoreOp::create(b, loc, result, init->get(), indices);
  return success();
}
