//===- ConcatInPlace.cpp - Concatenations written in place ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Dominance.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPCONCATINPLACE
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// The `tensor.empty` at the root of the chain of `tensor.insert_slice`s
/// that `insert` is a part of (a lowered concatenation), or null.
tensor::EmptyOp getChainRoot(tensor::InsertSliceOp insert) {
  Value dest = insert.getDest();
  while (auto inner = dest.getDefiningOp<tensor::InsertSliceOp>())
    dest = inner.getDest();
  return dest.getDefiningOp<tensor::EmptyOp>();
}

/// The `tensor.empty` that `part` is computed into: followed back through
/// reshapes, the shared outputs of `scf.forall` loops and the inits of
/// destination-style ops. Null when the chain ends anywhere else.
tensor::EmptyOp getPartEmpty(Value part) {
  while (true) {
    Operation *def = part.getDefiningOp();
    if (!def)
      return {};
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return empty;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      part = expand.getSrc();
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      part = collapse.getSrc();
    } else if (auto forall = dyn_cast<scf::ForallOp>(def)) {
      part = forall.getOutputs()[cast<OpResult>(part).getResultNumber()];
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      part = dps.getTiedOpOperand(cast<OpResult>(part))->get();
    } else {
      return {};
    }
  }
}

/// Moves the concatenations of `block` to where their parts are ready: the
/// empty destination right before the first part's own `tensor.empty` (no
/// earlier: the arena keeps a buffer from its first use) and each
/// insertion right after the later of its part and the destination it
/// writes into, so that the destination dominates the parts' empties.
void hoistConcatenations(Block &block) {
  SmallVector<tensor::InsertSliceOp> inserts;
  for (Operation &op : block)
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(&op))
      if (tensor::EmptyOp root = getChainRoot(insert);
          root && root->getBlock() == &block && root.getType().hasStaticShape())
        inserts.push_back(insert);
  for (tensor::InsertSliceOp insert : inserts) {
    tensor::EmptyOp root = getChainRoot(insert);
    if (tensor::EmptyOp empty = getPartEmpty(insert.getSource()))
      if (Operation *first = block.findAncestorOpInBlock(*empty);
          first && first->isBeforeInBlock(root))
        root->moveBefore(first);
    // The latest of the operands' defining ops in this block.
    Operation *after = nullptr;
    for (Value operand : insert->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if ((def = block.findAncestorOpInBlock(*def)) &&
            (!after || after->isBeforeInBlock(def)))
          after = def;
    if (after && after != insert.getOperation() &&
        after->isBeforeInBlock(insert))
      insert->moveAfter(after);
  }
}

/// Replaces the `tensor.empty` that `insert`'s part is computed into by
/// the destination's slice (reshaped to the empty's shape), so that the
/// part is computed in place. Any value may stand for an empty tensor;
/// one-shot bufferization then writes the part's producers into the
/// destination's buffer where that is in place, and copies otherwise.
void computeInPlace(RewriterBase &rewriter, tensor::InsertSliceOp insert,
                    DominanceInfo &dominance) {
  tensor::EmptyOp empty = getPartEmpty(insert.getSource());
  RankedTensorType partType = insert.getSourceType();
  RankedTensorType emptyType = empty ? empty.getType() : RankedTensorType();
  if (!empty || !empty->hasOneUse() || !emptyType.hasStaticShape() ||
      !partType.hasStaticShape() ||
      partType.getRank() != insert.getDestType().getRank() ||
      partType.getElementType() != emptyType.getElementType() ||
      !dominance.properlyDominates(insert.getDest(), empty))
    return;
  std::optional<SmallVector<ReassociationIndices>> reassociation;
  if (partType != emptyType) {
    reassociation = getReassociationIndicesForReshape(partType, emptyType);
    if (!reassociation)
      return;
  }
  rewriter.setInsertionPoint(empty);
  Location loc = empty.getLoc();
  Value slice = tensor::ExtractSliceOp::create(
      rewriter, loc, partType, insert.getDest(), insert.getMixedOffsets(),
      insert.getMixedSizes(), insert.getMixedStrides());
  if (reassociation && emptyType.getRank() < partType.getRank())
    slice = tensor::CollapseShapeOp::create(rewriter, loc, emptyType, slice,
                                            *reassociation);
  else if (reassociation)
    slice = tensor::ExpandShapeOp::create(rewriter, loc, emptyType, slice,
                                          *reassociation);
  rewriter.replaceOp(empty, slice);
}

struct LoopConcatInPlacePass
    : mlc::loop::impl::LoopConcatInPlaceBase<LoopConcatInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    Block &body = func.getBody().front();
    hoistConcatenations(body);
    DominanceInfo dominance(func);
    for (Operation &op : llvm::make_early_inc_range(body))
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(&op))
        if (getChainRoot(insert))
          computeInPlace(rewriter, insert, dominance);
  }
};
} // namespace
