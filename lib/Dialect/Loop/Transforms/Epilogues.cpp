//===- Epilogues.cpp - Elementwise epilogues on contraction tiles ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Epilogues.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

linalg::GenericOp
mlc::loop::prepareEpilogue(RewriterBase &rewriter,
                             linalg::LinalgOp contraction) {
  if (contraction->getNumResults() != 1)
    return {};
  Value result = contraction->getResult(0);
  if (!result.hasOneUse())
    return {};
  Operation *user = *result.getUsers().begin();
  Value consumed = result;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
  if (expand) {
    if (!expand.getResult().hasOneUse())
      return {};
    user = *expand->getUsers().begin();
    consumed = expand.getResult();
  }
  auto epilogue = dyn_cast<linalg::GenericOp>(user);
  // Another kernel's root is tiled by its own schedule.
  if (!epilogue || epilogue->hasAttr(LoopDialect::getScheduleAttrName()) ||
      !epilogue.hasPureTensorSemantics() ||
      epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
      epilogue.hasIndexSemantics())
    return {};
  OpOperand *init = epilogue.getDpsInitOperand(0);
  if (!epilogue.getMatchingIndexingMap(init).isIdentity() ||
      !epilogue.getMatchingBlockArgument(init).use_empty() ||
      init->get().getType() != consumed.getType())
    return {};
  std::optional<unsigned> from;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (input->get() == consumed) {
      if (from || !map.isIdentity())
        return {};
      from = input->getOperandNumber();
    } else if (map.getNumResults() != 0) {
      // Only scalars besides the contraction: other tensors would need
      // slices at the tile's place in the whole result.
      return {};
    }
  }
  if (!from)
    return {};

  linalg::GenericOp target = epilogue;
  if (expand) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(epilogue);
    if (!linalg::areDimSequencesPreserved(epilogue.getIndexingMapsArray(),
                                          expand.getReassociationIndices()))
      return {};
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(
            epilogue, expand.getReassociationIndices(), rewriter);
    if (failed(collapsed))
      return {};
    rewriter.replaceOp(epilogue, collapsed->results);
    target = dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    if (!target || target->getResult(0).getType() != result.getType())
      return {};
  }
  unsigned initNumber = target.getDpsInitOperand(0)->getOperandNumber();
  rewriter.modifyOpInPlace(target, [&] {
    target->setOperand(*from, result);
    target->setOperand(initNumber, result);
    target->setAttr(kEpilogueAttr, rewriter.getUnitAttr());
  });
  return target;
}

linalg::GenericOp mlc::loop::findEpilogue(Operation *tiled) {
  if (tiled->getNumResults() != 1)
    return {};
  Value result = tiled->getResult(0);
  // A chunk of an scf.forall: its result is the forall's.
  if (auto forall = dyn_cast<scf::ForallOp>(tiled->getParentOp())) {
    if (!result.hasOneUse())
      return {};
    auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(*result.user_begin());
    auto shared = insert ? dyn_cast<BlockArgument>(insert.getDest()) : nullptr;
    OpOperand *init = shared ? forall.getTiedOpOperand(shared) : nullptr;
    if (!init)
      return {};
    result = forall.getTiedOpResult(init);
  }
  for (Operation *user : result.getUsers())
    if (user->hasAttr(kEpilogueAttr))
      if (auto generic = dyn_cast<linalg::GenericOp>(user);
          generic && generic.getDpsInitOperand(0)->get() == result)
        return generic;
  return {};
}

linalg::GenericOp mlc::loop::fuseEpilogue(RewriterBase &rewriter,
                               linalg::GenericOp epilogue, Value result,
                               const TiledNest &nest) {
  Location loc = epilogue.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  auto reduction = llvm::find_if(nest.loopDims, [&](unsigned d) {
    return nest.iterators[d] == utils::IteratorType::reduction;
  });
  unsigned outer = reduction - nest.loopDims.begin();

  // The finished part: a tile of the result of the outermost reduction
  // loop (offsets from the loops around it), or the tiled op's own result.
  Value whole;
  SmallVector<OpFoldResult> offsets, sizes;
  // Reads of the finished part's own sizes: they keep reading it, not the
  // updated result that replaces its other uses.
  SmallPtrSet<Operation *, 4> keep;
  if (reduction == nest.loopDims.end()) {
    whole = nest.tile->getResult(0);
    rewriter.setInsertionPointAfter(nest.tile);
  } else {
    scf::ForOp loop = nest.loops[outer];
    whole = loop->getResult(0);
    rewriter.setInsertionPointAfter(loop);
    // Sizes known only at run time are read off the loops and the result.
    SmallVector<OpFoldResult> dimOffsets, dimSizes;
    for (int64_t range : nest.ranges) {
      dimOffsets.push_back(rewriter.getIndexAttr(0));
      dimSizes.push_back(ShapedType::isDynamic(range)
                             ? OpFoldResult()
                             : OpFoldResult(rewriter.getIndexAttr(range)));
    }
    for (unsigned i = 0; i < outer; ++i) {
      unsigned d = nest.loopDims[i];
      auto tileLoop = scf::ForOp(nest.loops[i]);
      Value iv = tileLoop.getInductionVar();
      AffineExpr x = rewriter.getAffineDimExpr(0);
      AffineExpr end = rewriter.getAffineSymbolExpr(0);
      AffineMap size = AffineMap::get(
          1, 1, {rewriter.getAffineConstantExpr(nest.sizes[d]), end - x},
          rewriter.getContext());
      dimOffsets[d] = iv;
      // Whole tiles have a static size; a partial last tile's size folds
      // to a constant once its loop is peeled (when the range is static).
      bool exact = !ShapedType::isDynamic(nest.ranges[d]) &&
                   nest.ranges[d] % nest.sizes[d] == 0;
      dimSizes[d] =
          exact ? OpFoldResult(rewriter.getIndexAttr(nest.sizes[d]))
                : affine::makeComposedFoldedAffineMin(
                      rewriter, loc, size, {iv, tileLoop.getUpperBound()});
    }
    for (auto [i, e] : llvm::enumerate(nest.resultMap.getResults())) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      offsets.push_back(dimOffsets[d]);
      if (dimSizes[d]) {
        sizes.push_back(dimSizes[d]);
        continue;
      }
      OpFoldResult size = tensor::getMixedSize(rewriter, loc, whole, i);
      if (auto value = dyn_cast<Value>(size))
        keep.insert(value.getDefiningOp());
      sizes.push_back(size);
    }
  }

  Value part = whole;
  tensor::ExtractSliceOp slice;
  if (!offsets.empty()) {
    SmallVector<OpFoldResult> strides(offsets.size(),
                                      rewriter.getIndexAttr(1));
    slice = tensor::ExtractSliceOp::create(rewriter, loc, whole, offsets,
                                           sizes, strides);
    part = slice.getResult();
  }
  IRMapping mapping;
  mapping.map(result, part);
  Operation *tiled = rewriter.clone(*epilogue, mapping);
  tiled->getResult(0).setType(part.getType());
  Value updated = tiled->getResult(0);
  tensor::InsertSliceOp insert;
  if (slice) {
    SmallVector<OpFoldResult> strides(offsets.size(),
                                      rewriter.getIndexAttr(1));
    insert = tensor::InsertSliceOp::create(rewriter, loc, updated, whole,
                                           offsets, sizes, strides);
    updated = insert.getResult();
  }
  keep.insert(tiled);
  if (slice)
    keep.insert(slice);
  if (insert)
    keep.insert(insert);
  rewriter.replaceAllUsesExcept(whole, updated, keep);
  // With no loop around the finished part (only the reduction was tiled),
  // the part is the whole result and the clone's result replaces the
  // epilogue; otherwise the enclosing loops now yield the updated tiles.
  rewriter.replaceOp(epilogue, whole == result ? updated : result);
  return cast<linalg::GenericOp>(tiled);
}

namespace {
/// The operand of `epilogue` that reads `consumed`, once and with an
/// identity map, when `epilogue` is an elementwise op the tiles of a
/// contraction can run: all loops parallel, no indices, one init written
/// with an identity map, every other input read with a projected
/// permutation: a broadcast tensor (per-channel scales) or a constant.
std::optional<unsigned> getConsumedOperand(linalg::GenericOp epilogue,
                                           Value consumed) {
  if (epilogue->hasAttr(mlc::loop::LoopDialect::getScheduleAttrName()) ||
      epilogue->hasAttr(mlc::loop::kEpilogueAttr) ||
      !epilogue.hasPureTensorSemantics() || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
      epilogue.hasIndexSemantics() ||
      !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  std::optional<unsigned> from;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (input->get() == consumed) {
      if (from || !map.isIdentity())
        return std::nullopt;
      from = input->getOperandNumber();
    } else if (!map.isProjectedPermutation() ||
               (map.getNumResults() == epilogue.getNumLoops() &&
                !matchPattern(input->get(), m_Constant()))) {
      // A full-size tensor another kernel computes (a residual) stays
      // with its own pass: its producer need not come before the loops.
      return std::nullopt;
    }
  }
  return from;
}
} // namespace

/// The elementwise op that reads `result` (through an expand_shape or
/// not) and what it reads, when the consumer fusion can take it.
static std::pair<linalg::GenericOp, Value> findConsumer(Value result) {
  if (!result.hasOneUse())
    return {};
  Operation *user = *result.getUsers().begin();
  Value consumed = result;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
    if (!expand.getResult().hasOneUse())
      return {};
    user = *expand->getUsers().begin();
    consumed = expand.getResult();
  }
  auto epilogue = dyn_cast<linalg::GenericOp>(user);
  if (!epilogue || !getConsumedOperand(epilogue, consumed))
    return {};
  return {epilogue, consumed};
}

linalg::GenericOp mlc::loop::findConsumerEpilogue(Operation *producer) {
  if (producer->getNumResults() != 1)
    return {};
  return findConsumer(producer->getResult(0)).first;
}

linalg::GenericOp mlc::loop::prepareConsumerEpilogue(RewriterBase &rewriter,
                                                     Operation *producer) {
  if (producer->getNumResults() != 1)
    return {};
  Value result = producer->getResult(0);
  auto [epilogue, consumed] = findConsumer(result);
  if (!epilogue)
    return {};
  std::optional<unsigned> from = getConsumedOperand(epilogue, consumed);
  if (consumed == result)
    return epilogue;

  // Onto the contraction's iteration space: unit dims dropped first (a
  // per-channel operand's map then keeps the groups the collapse needs),
  // then the dims the expand_shape made collapsed again.
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = epilogue.getLoc();
  linalg::GenericOp target = epilogue;
  rewriter.setInsertionPoint(target);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, target, linalg::ControlDropUnitDims());
  if (succeeded(dropped)) {
    rewriter.replaceOp(target, dropped->replacements);
    target = dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
    if (!target)
      return {};
  }
  auto accType = cast<RankedTensorType>(result.getType());
  auto readType =
      cast<RankedTensorType>(target.getDpsInputOperand(*from)->get().getType());
  if (readType != accType) {
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(accType, readType);
    if (!groups || readType.getRank() < accType.getRank())
      return {};
    rewriter.setInsertionPoint(target);
    // Sizes known at run time are the read operand's.
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, readType, result, *groups,
        tensor::getMixedSizes(rewriter, loc,
                              target.getDpsInputOperand(*from)->get()));
    // A per-channel operand whose dim the collapse would merge with
    // another (BatchNorm's parameters after a MatMul whose rows are
    // [batch, channel, ...]) cannot follow the contraction's rows.
    if (!linalg::areDimSequencesPreserved(target.getIndexingMapsArray(),
                                          *groups))
      return {};
    rewriter.modifyOpInPlace(target,
                             [&] { target->setOperand(*from, expanded); });
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(target, *groups, rewriter);
    if (failed(collapsed))
      return {};
    rewriter.replaceOp(target, collapsed->results);
    target = dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    if (!target || target.getDpsInputOperand(*from)->get().getType() != accType)
      return {};
  }
  rewriter.modifyOpInPlace(target, [&] { target->setOperand(*from, result); });
  if (getConsumedOperand(target, result) != from)
    return {};
  return target;
}

/// The bytes of a tensor of `type`, or none when its shape is not static.
static std::optional<int64_t> getStaticBytes(RankedTensorType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                     type.getElementTypeBitWidth(), 8));
}

bool mlc::loop::fuseConsumerEpilogue(RewriterBase &rewriter,
                                     linalg::GenericOp epilogue,
                                     scf::ForallOp forall,
                                     const TiledNest &nest,
                                     std::optional<int64_t> maxChunkBytes) {
  Operation *consumer = epilogue;
  bool moved = false;
  // The loops take the epilogue's init and other operands as their own:
  // what defines them moves above the outermost loop.
  Operation *outermost = forall ? forall.getOperation()
                         : nest.loops.empty()
                             ? nullptr
                             : scf::ForOp(nest.loops.front()).getOperation();
  if (!outermost)
    return false;
  SmallVector<Value> operands;
  for (Value operand : epilogue->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == outermost->getBlock() &&
        outermost->isBeforeInBlock(def))
      operands.push_back(operand);
  if (failed(moveValueDefinitions(rewriter, operands, outermost)))
    return false;
  if (forall) {
    // The fusion slices the epilogue like the chunks' inserts: rank-reduced
    // ones (a window's chunk of one plane) insert their unit dims again.
    for (Operation &op : forall.getTerminator().getYieldingOps()) {
      auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(&op);
      if (!insert)
        return false;
      std::optional<int64_t> bytes = getStaticBytes(insert.getSourceType());
      if (maxChunkBytes && (!bytes || *bytes > *maxChunkBytes))
        return false;
      RankedTensorType full = insert.getSourceType();
      RankedTensorType sliceType = tensor::ExtractSliceOp::inferResultType(
          insert.getDestType(), insert.getStaticSizes());
      if (full.getRank() == sliceType.getRank())
        continue;
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(full, sliceType);
      if (!groups || !sliceType.hasStaticShape())
        return false;
      rewriter.setInsertionPoint(forall.getTerminator());
      Value expanded = tensor::ExpandShapeOp::create(
          rewriter, insert.getLoc(), sliceType, insert.getSource(), *groups);
      rewriter.modifyOpInPlace(
          insert, [&] { insert.getSourceMutable().assign(expanded); });
    }
    SmallVector<LoopLikeOpInterface> loops{forall};
    FailureOr<scf::SCFFuseConsumerOfSliceResult> fused =
        scf::tileAndFuseConsumer(rewriter, consumer, loops);
    if (failed(fused) || fused->tiledOps.empty())
      return false;
    consumer = fused->tiledOps.front();
    moved = true;
  }
  // Without a reduction loop in the nest each of its tiles is finished
  // where it is computed (consumer fusion takes loops that insert the
  // tiles they compute; a reduction loop's partial sums are not those).
  bool reduces = llvm::any_of(nest.loopDims, [&](unsigned d) {
    return nest.iterators[d] == utils::IteratorType::reduction;
  });
  if (!nest.loops.empty() && nest.tile && !reduces) {
    SmallVector<LoopLikeOpInterface> loops;
    for (scf::ForOp loop : nest.loops)
      loops.push_back(loop);
    moved |= succeeded(scf::tileAndFuseConsumer(rewriter, consumer, loops));
  }
  return moved;
}
