//===- ParallelizeLoopNests.cpp - Other loop nests on threads -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// After the kernels' roots are tiled, what is left at the top of the
// function runs on threads too when it is large: the fills and copies of
// pads, elementwise ops and gathers the CPU's own rewrites made, windows.
// Their chunks follow the rule the strategy uses for loop nests
// (LoopNestStrategy.h).
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Epilogues.h"
#include "mlc/Dialect/Loop/Transforms/Pads.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "AccumulatorInits.h"
#include "CollapseElementwiseRows.h"
#include "LoopNestStrategy.h"
#include "ScheduleTiling.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUPARALLELIZELOOPNESTS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

Operation *mlc::target::parallelizeLoopNest(RewriterBase &rewriter,
                                            linalg::LinalgOp op,
                                            loop::ScheduleAttr decided) {
  auto registerTiles =
      op->getAttrOfType<DenseI64ArrayAttr>(loop::kRegisterTilesAttr);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<SmallVector<int64_t>> sizes;
  // A loop nest's schedule has thread chunks first and no vectors or a
  // register tile second (LoopNestStrategy.h); a window's one level of
  // register tile with vectors is not one.
  bool threadChunks =
      decided &&
      decided.getNumLoops() == static_cast<int64_t>(ranges.size()) &&
      (decided.getNumLevels() == 2 ||
       (decided.getNumLevels() == 1 && decided.getVectorSizes().empty()));
  if (threadChunks) {
    sizes = llvm::to_vector(decided.getTileLevel(0));
  } else {
    sizes = chooseThreadChunks(
        op, registerTiles ? registerTiles.asArrayRef() : ArrayRef<int64_t>());
  }
  if (!sizes || llvm::all_of(*sizes, [](int64_t s) { return s == 0; }))
    return nullptr;
  auto loopOrder = op->getAttr(loop::kLoopOrderAttr);
  SmallVector<int64_t> identity = llvm::to_vector(
      llvm::seq<int64_t>(0, static_cast<int64_t>(ranges.size())));
  FailureOr<Operation *> chunk =
      loop::tileLoops(rewriter, op, *sizes, identity, /*forall=*/true);
  if (failed(chunk) || *chunk == op.getOperation())
    return nullptr;
  if (registerTiles) {
    (*chunk)->setAttr(loop::kRegisterTilesAttr, registerTiles);
    (*chunk)->setAttr(loop::kLoopOrderAttr, loopOrder);
  }
  return *chunk;
}

/// Runs the epilogue of `forall`'s result on each of its chunks when it
/// can (loop::prepareConsumerEpilogue); returns whether it moved.
static bool fuseChunkEpilogue(RewriterBase &rewriter, scf::ForallOp forall) {
  linalg::GenericOp epilogue = loop::prepareConsumerEpilogue(rewriter, forall);
  // The chunk's part of the result becomes a buffer on its stack.
  return epilogue && loop::fuseConsumerEpilogue(rewriter, epilogue, forall, {},
                                                target::kMaxStackScratchBytes);
}

LogicalResult mlc::target::parallelizeLoopNests(func::FuncOp func,
                                                bool parallel) {
  IRRewriter rewriter(func.getContext());
  if (parallel) {
    // Chunks already on threads (strided windows) run the epilogues that
    // could not run in place on their tiles (a quantized result's
    // scaling) while they are in cache.
    SmallVector<scf::ForallOp> foralls;
    for (auto forall : func.getBody().front().getOps<scf::ForallOp>())
      foralls.push_back(forall);
    for (scf::ForallOp forall : foralls)
      (void)fuseChunkEpilogue(rewriter, forall);
    // So do windows, once on threads (before the epilogues' rows are
    // collapsed below).
    SmallVector<linalg::LinalgOp> windows;
    for (auto op : func.getBody().front().getOps<linalg::LinalgOp>())
      if (op->hasAttr(loop::kRegisterTilesAttr) &&
          loop::findConsumerEpilogue(op))
        windows.push_back(op);
    for (linalg::LinalgOp op : windows)
      if (Operation *chunk =
              parallelizeLoopNest(rewriter, op, loop::getDecidedSchedule(op)))
        if (auto forall = dyn_cast<scf::ForallOp>(chunk->getParentOp()))
          (void)fuseChunkEpilogue(rewriter, forall);
  }
  loop::rewritePadsAsFillAndCopy(rewriter, func);
  collapseElementwiseRows(rewriter, func, kLongRow);
  if (parallel) {
    // The large loop nests that are not contractions (elementwise ops,
    // im2col gathers, windows, reductions), but not the inits and
    // epilogues that tiles consume.
    SmallVector<linalg::LinalgOp> nests;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
        if ((!isa<linalg::FillOp>(&op) || op.hasAttr(loop::kPadFillAttr)) &&
            linalgOp.hasPureTensorSemantics() &&
            linalgOp.getNumDpsInits() == 1 &&
            !op.hasAttr(loop::kEpilogueAttr) &&
            !op.hasAttr(kAccumulatorInitAttr))
          nests.push_back(linalgOp);
    for (linalg::LinalgOp op : nests)
      parallelizeLoopNest(rewriter, op, loop::getDecidedSchedule(op));
  }
  loop::peelMarkedLoops(rewriter, func);
  return loop::canonicalizeFunction(func);
}

namespace {
struct CPUParallelizeLoopNestsPass
    : mlc::target::impl::CPUParallelizeLoopNestsBase<
          CPUParallelizeLoopNestsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(mlc::target::parallelizeLoopNests(getOperation(), parallel)))
      signalPassFailure();
  }
};
} // namespace
