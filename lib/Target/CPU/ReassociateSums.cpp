//===- ReassociateSums.cpp - Sums LLVM may vectorize ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUREASSOCIATESUMS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Marks the `arith.addf` that folds a value into `op`'s accumulator when
/// `op` reduces over some loop.
void markSum(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return;
  Block &body = op->getRegion(0).front();
  Operation *terminator = body.getTerminator();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
    if (index >= terminator->getNumOperands())
      continue;
    auto add = terminator->getOperand(index).getDefiningOp<arith::AddFOp>();
    if (!add || (add.getLhs() != accumulator && add.getRhs() != accumulator))
      continue;
    add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc);
  }
}

/// Folds the trailing reduction loops of `op` into one when its input
/// reads them as its innermost dims in order (GlobalAveragePool's h and w):
/// the sum becomes one long contiguous loop that LLVM vectorizes along the
/// data. Left as two loops, the inner one as short as an image row, LLVM
/// vectorized across rows with gathers.
void collapseTrailingReductions(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.hasIndexSemantics())
    return;
  auto inputType = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (!inputType || !inputType.hasStaticShape())
    return;
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned first = numLoops;
  while (first > 0 && iterators[first - 1] == utils::IteratorType::reduction)
    --first;
  if (numLoops - first < 2 ||
      llvm::any_of(ArrayRef(iterators).take_front(first), [](auto t) {
        return t != utils::IteratorType::parallel;
      }))
    return;
  if (!op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity())
    return;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr e : outMap.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      if (dim.getPosition() >= first)
        return;
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(e);
    if (!constant || constant.getValue() != 0)
      return;
  }

  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < first; ++d)
    groups.push_back({int64_t(d)});
  groups.emplace_back(llvm::to_vector(llvm::seq<int64_t>(first, numLoops)));
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value input = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getDpsInputs()[0], groups);
  MLIRContext *ctx = op.getContext();
  unsigned newLoops = first + 1;
  AffineMap inMap = AffineMap::getMultiDimIdentityMap(newLoops, ctx);
  AffineMap newOutMap =
      AffineMap::get(newLoops, 0, outMap.getResults(), ctx);
  SmallVector<utils::IteratorType> newIterators(first,
                                                utils::IteratorType::parallel);
  newIterators.push_back(utils::IteratorType::reduction);
  auto collapsed = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), ValueRange{input},
      op.getDpsInits(), ArrayRef<AffineMap>{inMap, newOutMap}, newIterators);
  rewriter.inlineRegionBefore(op.getRegion(), collapsed.getRegion(),
                              collapsed.getRegion().begin());
  for (NamedAttribute attr : op->getDiscardableAttrs())
    collapsed->setAttr(attr.getName(), attr.getValue());
  rewriter.replaceOp(op, collapsed->getResults());
}

struct CPUReassociateSumsPass
    : mlc::target::impl::CPUReassociateSumsBase<CPUReassociateSumsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk(
        [&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics)
      collapseTrailingReductions(rewriter, op);
    getOperation()->walk([](linalg::LinalgOp op) { markSum(op); });
  }
};
} // namespace
