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
#include "LoopNestStrategy.h"
#include "Stride2WindowsInRegisters.h"
#include "WindowSchedules.h"
#include "mlc/Target/CPU/TargetInfo.h"
#include "Schedules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUSETSCHEDULES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
/// A window's register tile: split in registers, one row of `lanes`
/// columns; else `columns` per row and, with unit strides, kWindowRows
/// rows of independent accumulators.
target::WindowTile chooseWindowTile(linalg::LinalgOp op, int64_t lanes,
                                    int64_t columns) {
  if (target::isSplitInRegisters(op, lanes))
    return {1, lanes};
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  bool unitStrides = strides && llvm::all_of(strides.getValues<int64_t>(),
                                             [](int64_t s) { return s == 1; });
  return {unitStrides ? target::kWindowRows : 1, columns};
}

struct CPUSetSchedulesPass
    : mlc::target::impl::CPUSetSchedulesBase<CPUSetSchedulesPass> {
  using Base::Base;

  /// The schedule of a kernel that is neither a vectorized contraction nor
  /// a window (a reduction, an elementwise op, a gather, a transpose): a
  /// first tile level of its chunks on threads (all 0: one thread) and, for
  /// a transpose of the two innermost dims, a second level of its register
  /// tile. A schedule file may give other chunks, checked to divide the
  /// parallel loops they split. Null after an error.
  loop::ScheduleAttr
  scheduleLoopNest(linalg::LinalgOp root, StringRef name,
                   const std::optional<target::ScheduleOverrides> &overrides) {
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    int64_t numLoops = ranges.size();
    std::optional<SmallVector<int64_t>> registers =
        target::getLoopNestRegisterTiles(root, vectorWidth);
    SmallVector<int64_t> sizes(numLoops, 0);
    // The code generator splits loop nests with one destination.
    if (parallel && root.getNumDpsInits() == 1)
      if (auto chunks = target::chooseThreadChunks(
              root, registers ? ArrayRef<int64_t>(*registers)
                              : ArrayRef<int64_t>()))
        sizes = *chunks;
    if (overrides)
      if (loop::ScheduleAttr given = overrides->lookup(name)) {
        int64_t levels = registers ? 2 : 1;
        if (given.getNumLoops() != numLoops || given.getNumLevels() != levels) {
          root->emitError() << "schedule for kernel '" << name << "': it takes "
                            << levels << " tile level(s) of " << numLoops
                            << " sizes (thread chunks"
                            << (registers ? ", register tile)" : ")");
          return {};
        }
        auto iterators = root.getIteratorTypesArray();
        for (int64_t d = 0; d < numLoops; ++d) {
          int64_t size = given.getTileLevel(0)[d];
          if (size == 0)
            continue;
          if (ShapedType::isDynamic(ranges[d]) || ranges[d] % size != 0 ||
              iterators[d] != utils::IteratorType::parallel) {
            root->emitError() << "schedule for kernel '" << name
                              << "': thread chunk " << size << " of loop "
                              << d << " must divide a parallel loop";
            return {};
          }
        }
        sizes = llvm::to_vector(given.getTileLevel(0));
        if (registers) {
          ArrayRef<int64_t> tile = given.getTileLevel(1);
          if (llvm::any_of(tile, [](int64_t t) { return t < 1; })) {
            root->emitError() << "schedule for kernel '" << name
                              << "': register tiles must be at least 1";
            return {};
          }
          registers = llvm::to_vector(tile);
        }
      }
    SmallVector<int64_t> parallelDims;
    for (auto [d, size] : llvm::enumerate(sizes))
      if (size > 0)
        parallelDims.push_back(d);
    SmallVector<int64_t> tiles = sizes;
    SmallVector<int64_t> vectors;
    if (registers) {
      llvm::append_range(tiles, *registers);
      vectors = *registers;
    }
    return loop::ScheduleAttr::get(&getContext(), numLoops, tiles, vectors,
                                   parallelDims, {});
  }

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
      StringRef name = kernel.getSymName();
      loop::ScheduleAttr attr;
      if (std::optional<target::ContractionSchedule> schedule =
              target::scheduleContraction(root, packed, unpacked, vectorWidth,
                                          parallel)) {
        if (overrides)
          if (loop::ScheduleAttr given = overrides->lookup(name))
            if (failed(target::applyOverride(root, name, given, *schedule)))
              return WalkResult::interrupt();
        attr = target::toAttr(&getContext(), *schedule);
      } else if (target::isWindowOp(root)) {
        target::WindowTile tile =
            chooseWindowTile(root, vectorWidth, unpacked.n);
        if (overrides)
          if (loop::ScheduleAttr given = overrides->lookup(name)) {
            if (given.getNumLoops() != root.getNumLoops() ||
                given.getNumLevels() != 1) {
              root->emitError()
                  << "schedule for kernel '" << name << "': a window takes "
                  << "one tile level of " << root.getNumLoops()
                  << " sizes (its register tile)";
              return WalkResult::interrupt();
            }
            tile = *target::getWindowTile(root, given);
          }
        attr = target::makeWindowSchedule(root, tile);
        if (!attr)
          return WalkResult::advance();
      } else {
        attr = scheduleLoopNest(root, name, overrides);
        if (!attr)
          return WalkResult::interrupt();
      }
      kernel.setScheduleAttr(attr);
      if (printSchedules) {
        mlc::loop::printKernelSchedule(llvm::outs(), name,
                                       root.getStaticLoopRanges(), attr);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
