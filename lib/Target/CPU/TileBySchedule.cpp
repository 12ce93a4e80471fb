//===- TileBySchedule.cpp - The generic tiling with the CPU's policy ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc::loop::tileBySchedules does the tiling; the CPU adds what its register
// code relies on around a contraction's tiles: accumulators that start from
// the contraction's init inside each register tile, and im2col matrices
// gathered per thread chunk and reduction block.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "AccumulatorInits.h"
#include "Im2colChunkGathers.h"
#include "ScheduleTiling.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUTILEBYSCHEDULE
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
/// A contraction's schedule, as the CPU strategy writes it, has three
/// levels: threads, cache, registers (Schedules.h).
bool isContractionSchedule(loop::ScheduleAttr schedule) {
  return schedule.getNumLevels() == 3 && loop::getRegisterLevel(schedule) == 2;
}

struct CPUTilingPolicy : loop::TilingPolicy {
  CPUTilingPolicy(func::FuncOp func, bool fuse) : fuse(fuse) {
    // Accumulator inits already marked (windows') keep their numbers.
    func.walk([&](Operation *op) {
      if (auto id = op->getAttrOfType<IntegerAttr>(
              target::kAccumulatorInitAttr))
        nextInit = std::max(nextInit, id.getInt() + 1);
    });
  }

  bool fuseEpilogues() const override { return fuse; }

  /// A chunk's own part of a result lives on its thread's stack.
  std::optional<int64_t> getMaxChunkBytes() const override {
    return target::kMaxStackScratchBytes;
  }

  /// Accumulators can start in registers when no loop above the register
  /// tiles splits the reduction.
  void beforeTiling(RewriterBase &rewriter, linalg::LinalgOp root,
                    loop::ScheduleAttr schedule) override {
    if (!isContractionSchedule(schedule))
      return;
    SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    for (int64_t level : {0, 1})
      for (auto [d, size] : llvm::enumerate(schedule.getTileLevel(level)))
        if (iterators[d] == utils::IteratorType::reduction && size > 0 &&
            size < ranges[d])
          return;
    target::markAccumulatorInit(rewriter, root, nextInit++);
  }

  /// A thread chunk gathers its own columns of an im2col matrix, in the
  /// reduction's cache blocks when they split it; each block then gathers
  /// its own rows.
  void afterLevel(RewriterBase &rewriter, loop::ScheduleAttr schedule,
                  int64_t level, ArrayRef<int64_t> rangesBefore,
                  linalg::LinalgOp tiled, bool changed) override {
    if (!isContractionSchedule(schedule) || !changed)
      return;
    // Tiling keeps the iterator types.
    SmallVector<utils::IteratorType> iterators =
        tiled.getIteratorTypesArray();
    int64_t kBlock = 0;
    for (auto [d, size] : llvm::enumerate(schedule.getTileLevel(1)))
      if (iterators[d] == utils::IteratorType::reduction && size > 0 &&
          size < rangesBefore[d])
        kBlock = size;
    if (level == 0)
      (void)target::gatherInChunk(rewriter, tiled, kBlock);
    else if (level == 1 && kBlock)
      (void)target::gatherInChunk(rewriter, tiled);
  }

  int64_t nextInit = 0;
  bool fuse;
};

struct CPUTileBySchedulePass
    : mlc::target::impl::CPUTileByScheduleBase<CPUTileBySchedulePass> {
  using Base::Base;
  void runOnOperation() override {
    std::unique_ptr<loop::TilingPolicy> policy =
        target::createCPUTilingPolicy(getOperation(), fuseEpilogues);
    if (failed(loop::tileBySchedules(getOperation(), *policy)))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<loop::TilingPolicy>
mlc::target::createCPUTilingPolicy(func::FuncOp func, bool fuseEpilogues) {
  return std::make_unique<CPUTilingPolicy>(func, fuseEpilogues);
}
