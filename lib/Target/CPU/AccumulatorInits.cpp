//===- AccumulatorInits.cpp - Start accumulators in registers -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "AccumulatorInits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace mlc::target {
namespace {
/// A generic that copies its only input, read through a projected
/// permutation, to every point of its result (a bias broadcast).
bool isBroadcast(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics())
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getOperand(0) == body.getArgument(0) &&
         op.getIndexingMapsArray()[1].isIdentity() &&
         op.getIndexingMapsArray()[0].isProjectedPermutation();
}

/// The value a generic with no inputs writes to every point of its result,
/// when it is one defined outside it (the importer's zero init of a
/// convolution without a bias, or whose bias folded away as zeros).
std::optional<Value> filledValue(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 0 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics() ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return std::nullopt;
  Block &body = op.getRegion().front();
  Value value = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  if (body.getOperations().size() != 1 ||
      op.getRegion().isAncestor(value.getParentRegion()))
    return std::nullopt;
  return value;
}

std::optional<int64_t> markOf(Operation *op, StringRef name) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return std::nullopt;
}

/// `a + b` as an OpFoldResult, built at `b`'s insertion point when needed.
OpFoldResult add(OpBuilder &builder, Location loc, OpFoldResult a,
                 OpFoldResult b) {
  std::optional<int64_t> x = getConstantIntValue(a);
  std::optional<int64_t> y = getConstantIntValue(b);
  if (x && *x == 0)
    return b;
  if (y && *y == 0)
    return a;
  if (x && y)
    return builder.getIndexAttr(*x + *y);
  return arith::AddIOp::create(builder, loc,
                               getValueOrCreateConstantIndexOp(builder, loc, a),
                               getValueOrCreateConstantIndexOp(builder, loc, b))
      .getResult();
}

/// `value` made available before `loop`: cloned there with the index
/// arithmetic it is computed by when it is defined inside the loop.
FailureOr<OpFoldResult> availableBefore(OpBuilder &builder, OpFoldResult ofr,
                                        Operation *loop, IRMapping &mapping,
                                        int depth = 0) {
  auto value = dyn_cast<Value>(ofr);
  if (!value)
    return ofr;
  if (mapping.contains(value))
    return OpFoldResult(mapping.lookup(value));
  if (!loop->isAncestor(value.getParentRegion()->getParentOp()))
    return ofr;
  Operation *def = value.getDefiningOp();
  if (!def || depth > 8 || def->getNumRegions() != 0 || !isPure(def))
    return failure();
  for (Value operand : def->getOperands())
    if (failed(availableBefore(builder, operand, loop, mapping, depth + 1)))
      return failure();
  Operation *clone = builder.clone(*def, mapping);
  return OpFoldResult(clone->getResult(cast<OpResult>(value).getResultNumber()));
}

/// Walks from a tile of the result up to the init it started as, adding up
/// the offsets of the slices on the way (new ops go at `builder`, which
/// every value met on the way dominates). Returns the marked init, or null.
Operation *findInit(OpBuilder &builder, Location loc, Value value,
                    SmallVectorImpl<OpFoldResult> &offsets, bool &reshaped) {
  for (int steps = 0; steps < 64; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::ForOp>(parent)) {
        OpOperand *init = loop.getTiedLoopInit(arg);
        if (!init)
          return nullptr;
        value = init->get();
      } else if (auto forall = dyn_cast<scf::ForallOp>(parent)) {
        OpOperand *init = forall.getTiedOpOperand(arg);
        if (!init)
          return nullptr;
        value = init->get();
      } else {
        return nullptr;
      }
      continue;
    }
    Operation *def = value.getDefiningOp();
    unsigned number = cast<OpResult>(value).getResultNumber();
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      value = loop.getInitArgs()[number];
    } else if (auto forall = dyn_cast<scf::ForallOp>(def)) {
      value = forall.getOutputs()[number];
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      if (slice.getSourceType().getRank() != slice.getResultType().getRank() ||
          !slice.hasUnitStride())
        return nullptr;
      for (auto [offset, sliceOffset] :
           llvm::zip(offsets, slice.getMixedOffsets()))
        offset = add(builder, loc, offset, sliceOffset);
      value = slice.getSource();
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
      value = insert.getDest();
    } else if (auto write = dyn_cast<vector::TransferWriteOp>(def)) {
      value = write.getBase();
    } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def)) {
      reshaped = true;
      value = def->getOperand(0);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def)) {
      if (markOf(def, kAccumulatorInitAttr))
        return def;
      if (!linalgOp.hasPureTensorSemantics())
        return nullptr;
      value = linalgOp.getDpsInits()[number];
    } else {
      return nullptr;
    }
  }
  return nullptr;
}
} // namespace

void markAccumulatorInit(RewriterBase &rewriter, linalg::LinalgOp contraction,
                         int64_t id) {
  if (contraction.getNumDpsInits() != 1)
    return;
  Value init = contraction.getDpsInits()[0];
  auto collapse = init.getDefiningOp<tensor::CollapseShapeOp>();
  Value produced = collapse ? collapse.getSrc() : init;
  Operation *def = produced.getDefiningOp();
  if (!def || !produced.hasOneUse() || (collapse && !init.hasOneUse()))
    return;
  auto generic = dyn_cast<linalg::GenericOp>(def);
  if (std::optional<Value> value = filledValue(generic)) {
    // As a fill, each register tile can start from the value itself.
    rewriter.setInsertionPoint(generic);
    auto fill = linalg::FillOp::create(rewriter, generic.getLoc(), *value,
                                       generic.getDpsInits()[0]);
    rewriter.replaceOp(generic, fill->getResults());
    def = fill;
    generic = nullptr;
  }
  auto fill = dyn_cast<linalg::FillOp>(def);
  if ((!fill || !fill.hasPureTensorSemantics()) && !isBroadcast(generic))
    return;
  if (fill && collapse) {
    // Fill the collapsed destination instead, so that the mark is on the
    // op the contraction reads (a fill read through a reshape is
    // otherwise rebuilt, unmarked, by canonicalization).
    rewriter.setInsertionPoint(collapse);
    Value dest = tensor::CollapseShapeOp::create(
        rewriter, collapse.getLoc(), fill.getOutputs()[0],
        collapse.getReassociationIndices());
    auto collapsedFill = linalg::FillOp::create(
        rewriter, fill.getLoc(), fill.getInputs()[0], dest);
    rewriter.replaceOp(collapse, collapsedFill->getResults());
    rewriter.eraseOp(fill);
    def = collapsedFill;
  }
  if (generic && collapse) {
    // Rebuild the broadcast on the collapsed shape, so that the tiles'
    // offsets index it directly.
    // Only when every operand reads whole groups: a bias broadcast along
    // the last of the dims the reshape merges (ONNX's broadcasting of a
    // [W] addend onto a convolution's [N, C, H, W]) stays a pass of its
    // own.
    if (!linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(),
                                          collapse.getReassociationIndices()))
      return;
    rewriter.setInsertionPoint(generic);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(
            generic, collapse.getReassociationIndices(), rewriter);
    if (failed(collapsed) ||
        collapsed->collapsedOp->getResult(0).getType() != collapse.getType())
      return;
    rewriter.replaceOp(generic, collapsed->results);
    rewriter.replaceOp(collapse, collapsed->collapsedOp->getResult(0));
    def = collapsed->collapsedOp.getOperation();
  }
  def->setAttr(kAccumulatorInitAttr, rewriter.getI64IntegerAttr(id));
  contraction->setAttr(kAccumulatesOntoAttr, rewriter.getI64IntegerAttr(id));
}

linalg::LinalgOp startAccumulators(RewriterBase &rewriter,
                                   const loop::TiledNest &nest,
                                   llvm::DenseSet<int64_t> &failedInits) {
  auto tile = dyn_cast_or_null<linalg::LinalgOp>(nest.tile);
  std::optional<int64_t> id =
      tile ? markOf(tile, kAccumulatesOntoAttr) : std::nullopt;
  if (!id)
    return nullptr;
  auto fail = [&]() -> linalg::LinalgOp {
    failedInits.insert(*id);
    return nullptr;
  };
  // The first loop over a reduction dim. Loops inside it over parallel
  // dims (a window's output columns, inside its window loops) walk their
  // dims whole: the part the reduction loop writes spans them.
  unsigned first = nest.loops.size();
  for (auto [i, d] : llvm::enumerate(nest.loopDims))
    if (nest.iterators[d] == utils::IteratorType::reduction) {
      first = i;
      break;
    }
  if (first == nest.loops.size() || tile.getNumDpsInits() != 1)
    return fail();
  llvm::SmallDenseSet<unsigned> spanned;
  for (unsigned i = first; i < nest.loops.size(); ++i)
    if (nest.iterators[nest.loopDims[i]] == utils::IteratorType::parallel)
      spanned.insert(nest.loopDims[i]);
  scf::ForOp reduction = nest.loops[first];
  if (reduction.getNumRegionIterArgs() != 1)
    return fail();
  auto slice = tile.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  auto whole =
      dyn_cast<RankedTensorType>(reduction.getRegionIterArgs()[0].getType());
  AffineMap resultMap = tile.getIndexingMapMatchingResult(tile->getResult(0));
  if (!slice || !slice.hasUnitStride() || !whole || !whole.hasStaticShape() ||
      slice.getSourceType().getRank() != slice.getResultType().getRank() ||
      resultMap.getNumResults() != whole.getRank())
    return fail();

  // The tile's part of the result, made available before the loop.
  Location loc = tile.getLoc();
  OpBuilder builder(reduction);
  IRMapping mapping;
  SmallVector<OpFoldResult> offsets, sizes;
  // Per result dim: the slice's offset and size, or the whole dim for dims
  // the loops inside the reduction loop walk.
  for (auto [j, offset, size] : llvm::enumerate(slice.getMixedOffsets(),
                                                slice.getMixedSizes())) {
    auto dim = dyn_cast<AffineDimExpr>(resultMap.getResult(j));
    if (dim && spanned.contains(dim.getPosition())) {
      offsets.push_back(builder.getIndexAttr(0));
      sizes.push_back(builder.getIndexAttr(whole.getDimSize(j)));
      continue;
    }
    FailureOr<OpFoldResult> offsetBefore =
        availableBefore(builder, offset, reduction, mapping);
    FailureOr<OpFoldResult> sizeBefore =
        availableBefore(builder, size, reduction, mapping);
    if (failed(offsetBefore) || failed(sizeBefore))
      return fail();
    offsets.push_back(*offsetBefore);
    sizes.push_back(*sizeBefore);
  }
  // The slice must come from the loop's own tensor: the iter_args of the
  // loops between it and the tile only pass it on.
  Value source = slice.getSource();
  while (auto arg = dyn_cast<BlockArgument>(source)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || !reduction->isAncestor(loop))
      return fail();
    if (loop == reduction)
      break;
    OpOperand *init = loop.getTiedLoopInit(arg);
    if (!init)
      return fail();
    source = init->get();
  }
  if (source != reduction.getRegionIterArgs()[0])
    return fail();

  // Where that part is in the init.
  Value outer = reduction.getInitArgs()[0];
  SmallVector<OpFoldResult> absolute(offsets);
  bool reshaped = false;
  Operation *init = findInit(builder, loc, outer, absolute, reshaped);
  if (!init || markOf(init, kAccumulatorInitAttr) != id)
    return fail();

  Value part = tensor::ExtractSliceOp::create(
      builder, loc, outer, offsets, sizes,
      SmallVector<OpFoldResult>(offsets.size(), builder.getIndexAttr(1)));
  Operation *start;
  if (auto fill = dyn_cast<linalg::FillOp>(init)) {
    start = linalg::FillOp::create(builder, loc, fill.getInputs()[0], part);
  } else {
    if (reshaped)
      return fail();
    auto generic = cast<linalg::GenericOp>(init);
    AffineMap map = generic.getIndexingMapsArray()[0];
    SmallVector<OpFoldResult> inOffsets, inSizes;
    for (AffineExpr expr : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(expr).getPosition();
      inOffsets.push_back(absolute[d]);
      inSizes.push_back(sizes[d]);
    }
    Value bias = tensor::ExtractSliceOp::create(
        builder, loc, generic.getDpsInputs()[0], inOffsets, inSizes,
        SmallVector<OpFoldResult>(inOffsets.size(), builder.getIndexAttr(1)));
    auto clone = linalg::GenericOp::create(
        builder, loc, part.getType(), bias, part,
        generic.getIndexingMapsArray(), generic.getIteratorTypesArray());
    IRMapping bodyMapping;
    generic.getRegion().cloneInto(&clone.getRegion(), bodyMapping);
    start = clone;
  }
  Value started = tensor::InsertSliceOp::create(
      builder, loc, start->getResult(0), outer, offsets, sizes,
      SmallVector<OpFoldResult>(offsets.size(), builder.getIndexAttr(1)));
  rewriter.modifyOpInPlace(reduction, [&] {
    reduction.getInitArgsMutable()[0].set(started);
  });
  return cast<linalg::LinalgOp>(start);
}

SmallVector<Operation *>
dropAccumulatorInits(RewriterBase &rewriter, func::FuncOp func,
                     const llvm::DenseSet<int64_t> &failed) {
  SmallVector<Operation *> stay;
  // A tile still marked did not start its accumulators: its init stays.
  llvm::DenseSet<int64_t> kept(failed.begin(), failed.end());
  SmallVector<Operation *> inits;
  func.walk([&](Operation *op) {
    if (std::optional<int64_t> id = markOf(op, kAccumulatesOntoAttr)) {
      kept.insert(*id);
      op->removeAttr(kAccumulatesOntoAttr);
    }
    if (op->hasAttr(kAccumulatorInitAttr))
      inits.push_back(op);
  });
  for (Operation *init : inits) {
    std::optional<int64_t> id = markOf(init, kAccumulatorInitAttr);
    init->removeAttr(kAccumulatorInitAttr);
    if (!id || kept.contains(*id)) {
      stay.push_back(init);
      continue;
    }
    Value dest = cast<DestinationStyleOpInterface>(init).getDpsInits()[0];
    rewriter.replaceAllUsesWith(init->getResult(0), dest);
    rewriter.eraseOp(init);
  }
  return stay;
}

} // namespace mlc::target
