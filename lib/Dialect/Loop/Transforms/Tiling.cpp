//===- Tiling.cpp - Applying a kernel's schedule to its root --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Tiling.h"
#include "mlc/Dialect/Loop/Transforms/Epilogues.h"
#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlc/Dialect/Loop/Utils/ValueBounds.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPTILEBYSCHEDULE
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;
using namespace mlc::loop;

TilingPolicy::~TilingPolicy() = default;

SmallVector<int64_t> mlc::loop::getLoopUpperBounds(linalg::LinalgOp op) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  for (auto [d, bound] : llvm::enumerate(bounds)) {
    if (!ShapedType::isDynamic(bound))
      continue;
    bound = std::numeric_limits<int64_t>::max();
    // The smallest bound of an operand dim that the loop indexes.
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<RankedTensorType, MemRefType>(operand.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || dim.getPosition() != d)
          continue;
        FailureOr<int64_t> ub = getConstantUpperBound(
            ValueBoundsConstraintSet::Variable(operand.get(), i));
        if (succeeded(ub))
          bound = std::min(bound, *ub);
      }
    }
  }
  return bounds;
}

FailureOr<Operation *> mlc::loop::tileLoops(RewriterBase &rewriter,
                                            linalg::LinalgOp op,
                                            ArrayRef<int64_t> requested,
                                            ArrayRef<int64_t> order,
                                            bool forall, TiledNest *nest) {
  SmallVector<int64_t> sizes(requested);
  // A loop known at run time is tiled as given, unless an enclosing tile
  // bounds it by the size (a thread's chunk of columns within a cache
  // block): its last tile, of any size up to the tile's, is peeled off
  // with the other loops'.
  SmallVector<int64_t> bounds = getLoopUpperBounds(op);
  for (auto [size, bound] : llvm::zip(sizes, bounds))
    if (size >= bound)
      size = 0;
  if (nest) {
    nest->sizes = sizes;
    nest->ranges = op.getStaticLoopRanges();
    nest->iterators = op.getIteratorTypesArray();
    nest->resultMap = op.getIndexingMapMatchingResult(op->getResult(0));
    nest->tile = op;
    for (int64_t d : order)
      if (sizes[d] != 0)
        nest->loopDims.push_back(d);
  }
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op.getOperation();
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setInterchange(order);
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  if (!forall)
    for (LoopLikeOpInterface loop : tiled->loops)
      loop->setAttr(kPeelAttr, rewriter.getUnitAttr());
  if (nest) {
    nest->tile = tiled->tiledOps.back();
    for (LoopLikeOpInterface loop : tiled->loops)
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        nest->loops.push_back(forOp);
    // Unexpected loops: no epilogue goes in.
    if (nest->loops.size() != nest->loopDims.size())
      nest->tile = nullptr;
  }
  return tiled->tiledOps.back();
}

void mlc::loop::peelMarkedLoops(RewriterBase &rewriter, func::FuncOp func) {
  while (true) {
    SmallVector<scf::ForOp> loops;
    func.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (loop->hasAttr(kPeelAttr))
        loops.push_back(loop);
    });
    if (loops.empty())
      return;
    for (scf::ForOp loop : loops) {
      loop->removeAttr(kPeelAttr);
      scf::ForOp partial;
      rewriter.setInsertionPoint(loop);
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
    }
  }
}

LogicalResult mlc::loop::canonicalizeFunction(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(func, std::move(patterns));
}

ScheduleAttr mlc::loop::getDecidedSchedule(Operation *op) {
  return op->getAttrOfType<ScheduleAttr>(LoopDialect::getScheduleAttrName());
}

int64_t mlc::loop::getRegisterLevel(ScheduleAttr schedule) {
  if (schedule.getVectorSizes().empty() || schedule.getNumLevels() == 0)
    return -1;
  return schedule.getNumLevels() - 1;
}

namespace {
/// Applies `schedule`'s loop levels to `root`; see mlc-loop-tile-by-schedule.
LogicalResult tileRoot(RewriterBase &rewriter, linalg::LinalgOp root,
                       ScheduleAttr schedule, TilingPolicy &policy) {
  int64_t numLoops = root.getNumLoops();
  std::string name = getKernelName(root.getLoc());
  if (schedule.getNumLoops() != numLoops)
    return root->emitError()
           << "schedule for kernel '" << name << "': it has "
           << schedule.getNumLoops() << " loops, its root " << numLoops;
  int64_t registerLevel = getRegisterLevel(schedule);
  int64_t loopLevels =
      registerLevel >= 0 ? registerLevel : schedule.getNumLevels();
  if (loopLevels == 0)
    return success();
  SmallVector<int64_t> order(schedule.getLoopOrder());
  if (order.empty())
    order = llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
  // Level 0 is the threads' level: its sizes split exactly the
  // parallel_dims, into chunks that divide them.
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  for (auto [d, size] : llvm::enumerate(schedule.getTileLevel(0))) {
    bool listed = llvm::is_contained(schedule.getParallelDims(),
                                     static_cast<int64_t>(d));
    auto fail = [&, d = d]() {
      return root->emitError()
             << "schedule for kernel '" << name << "': loop " << d << " ";
    };
    if (size > 0 && !listed)
      return fail() << "has a thread chunk (" << size
                    << ") but is not in parallel_dims";
    if (size == 0 && listed)
      return fail() << "is in parallel_dims but has no thread chunk";
    if (size > 0 && iterators[d] != utils::IteratorType::parallel)
      return fail() << "is a reduction: its iterations cannot be split "
                       "across threads";
    if (size > 0 && !ShapedType::isDynamic(ranges[d]) && ranges[d] % size != 0)
      return root->emitError()
             << "schedule for kernel '" << name << "': thread chunk " << size
             << " of loop " << d << " does not divide its " << ranges[d]
             << " iterations";
  }

  policy.beforeTiling(rewriter, root, schedule);
  // Sequential levels make finished parts of the result an epilogue can
  // run on; thread chunks alone do not.
  linalg::GenericOp epilogue, consumer;
  if (loopLevels >= 2 && policy.fuseEpilogues())
    epilogue = prepareEpilogue(rewriter, root);
  // One that cannot run in place (another element type, per-channel
  // operands) is fused as a consumer of the loops once they exist.
  if (!epilogue && policy.fuseEpilogues())
    consumer = prepareConsumerEpilogue(rewriter, root);

  scf::ForallOp chunks;
  linalg::LinalgOp current = root;
  TiledNest nest;
  for (int64_t level = 0; level < loopLevels; ++level) {
    bool forall = level == 0;
    // The nest of the last sequential level is where the epilogue goes.
    bool last = level == loopLevels - 1;
    nest = TiledNest();
    SmallVector<int64_t> rangesBefore = current.getStaticLoopRanges();
    FailureOr<Operation *> tiled =
        tileLoops(rewriter, current, schedule.getTileLevel(level), order,
                  forall, forall ? nullptr : &nest);
    if (failed(tiled))
      return root->emitError()
             << "kernel '" << name << "': cannot tile level " << level;
    auto next = cast<linalg::LinalgOp>(*tiled);
    if (forall && next != current)
      chunks = dyn_cast<scf::ForallOp>(next->getParentOp());
    policy.afterLevel(rewriter, schedule, level, rangesBefore, next,
                      next != current);
    if (last && epilogue && !forall) {
      Value result = epilogue.getDpsInitOperand(0)->get();
      if (nest.tile && next->getResult(0) != result)
        fuseEpilogue(rewriter, epilogue, result, nest);
    }
    current = next;
  }
  if (consumer)
    fuseConsumerEpilogue(rewriter, consumer, chunks, nest,
                         policy.getMaxChunkBytes());
  if (registerLevel >= 0) {
    current->setAttr(kRegisterTilesAttr, rewriter.getDenseI64ArrayAttr(
                                             schedule.getTileLevel(
                                                 registerLevel)));
    current->setAttr(kLoopOrderAttr, rewriter.getDenseI64ArrayAttr(order));
  }
  return success();
}
} // namespace

LogicalResult mlc::loop::tileBySchedules(func::FuncOp func,
                                         TilingPolicy &policy) {
  IRRewriter rewriter(func.getContext());
  SmallVector<std::pair<linalg::LinalgOp, ScheduleAttr>> roots;
  func.walk([&](linalg::LinalgOp op) {
    if (ScheduleAttr schedule = getDecidedSchedule(op))
      roots.emplace_back(op, schedule);
  });
  for (auto [root, schedule] : roots)
    if (failed(tileRoot(rewriter, root, schedule, policy)))
      return failure();
  peelMarkedLoops(rewriter, func);
  return success();
}

namespace {
/// The default policy with the pass's option.
struct DefaultPolicy : TilingPolicy {
  explicit DefaultPolicy(bool fuse) : fuse(fuse) {}
  bool fuseEpilogues() const override { return fuse; }
  bool fuse;
};

struct LoopTileBySchedulePass
    : mlc::loop::impl::LoopTileByScheduleBase<LoopTileBySchedulePass> {
  using Base::Base;
  void runOnOperation() override {
    DefaultPolicy policy(fuseEpilogues);
    if (failed(tileBySchedules(getOperation(), policy)) ||
        failed(canonicalizeFunction(getOperation())))
      signalPassFailure();
  }
};
} // namespace
