//===- SetSchedules.cpp - The CPU strategy: a schedule per kernel ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The "decide" half of CPU code generation: each kernel's schedule goes on
// the kernel as IR, where it can be printed, overridden from a file or
// edited in the kernels phase's .mlir, and mlc-cpu-tile-and-vectorize
// applies it.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Target/CPU/Passes.h"

#include "ContractionStrategy.h"
#include "Schedules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUSETSCHEDULES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
struct CPUSetSchedulesPass
    : mlc::target::impl::CPUSetSchedulesBase<CPUSetSchedulesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    target::Tiles packed, unpacked;
    if (failed(target::getContractionTiles(func, mTile, nTile, kTile, nBlock,
                                           unpackedTilesOption, packed,
                                           unpacked)))
      return signalPassFailure();
    std::optional<target::ScheduleOverrides> overrides;
    if (!scheduleFile.empty()) {
      auto loaded = target::ScheduleOverrides::load(scheduleFile, &getContext(),
                                                    func.getLoc());
      if (failed(loaded))
        return signalPassFailure();
      overrides = std::move(*loaded);
    }

    WalkResult result = func.walk([&](loop::KernelOp kernel) {
      auto root = dyn_cast_or_null<linalg::LinalgOp>(loop::getKernelRoot(kernel));
      if (!root)
        return WalkResult::advance();
      std::optional<target::ContractionSchedule> schedule =
          target::scheduleContraction(root, packed, unpacked, vectorWidth,
                                      parallel);
      if (!schedule)
        return WalkResult::advance();
      StringRef name = kernel.getSymName();
      if (overrides)
        if (loop::ScheduleAttr attr = overrides->lookup(name))
          if (failed(target::applyOverride(root, name, attr, *schedule)))
            return WalkResult::interrupt();
      loop::ScheduleAttr attr = target::toAttr(&getContext(), *schedule);
      kernel.setScheduleAttr(attr);
      if (printSchedules) {
        llvm::outs() << '"' << name << "\" loops = [";
        llvm::interleaveComma(root.getStaticLoopRanges(), llvm::outs());
        llvm::outs() << "] " << attr << "\n";
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
