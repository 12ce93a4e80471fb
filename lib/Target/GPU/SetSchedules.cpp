//===- SetSchedules.cpp - The GPU strategy: a schedule per kernel ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The "decide" half of GPU code generation: what one thread of each kernel
// computes, written on the kernel as its schedule, where it can be printed
// or edited in the kernels phase's .mlir; mlc-gpu-map-to-launches does it.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Target/GPU/Passes.h"

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {
#define GEN_PASS_DEF_GPUSETSCHEDULES
#include "mlc/Target/GPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
struct GPUSetSchedulesPass
    : mlc::target::impl::GPUSetSchedulesBase<GPUSetSchedulesPass> {
  using Base::Base;

  /// A reduction's register tile: `registerRows` x `registerCols` of its
  /// output's last two dims, each where it divides the dim and leaves
  /// `minThreads` threads.
  void setRegisterTile(linalg::LinalgOp root, SmallVector<int64_t> &chunks) {
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    int64_t threads = 1;
    for (auto [d, chunk] : llvm::enumerate(chunks))
      if (chunk > 0)
        threads *= ranges[d];
    AffineMap output = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
    SmallVector<int64_t> dims;
    for (AffineExpr e : output.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        dims.push_back(dim.getPosition());
    auto tile = [&](size_t fromEnd, int64_t size) {
      if (dims.size() < fromEnd || size <= 1)
        return;
      int64_t d = dims[dims.size() - fromEnd];
      if (chunks[d] != 1 || ranges[d] % size != 0 ||
          threads / size < minThreads)
        return;
      chunks[d] = size;
      threads /= size;
    };
    tile(1, registerCols);
    tile(2, registerRows);
  }

  void runOnOperation() override {
    getOperation().walk([&](loop::KernelOp kernel) {
      auto root =
          dyn_cast_or_null<linalg::LinalgOp>(loop::getKernelRoot(kernel));
      if (!root)
        return;
      // One element of every parallel loop per thread; reductions whole.
      SmallVector<int64_t> chunks, parallelDims;
      for (auto [d, iterator] :
           llvm::enumerate(root.getIteratorTypesArray())) {
        bool parallel = iterator == utils::IteratorType::parallel;
        chunks.push_back(parallel ? 1 : 0);
        if (parallel)
          parallelDims.push_back(d);
      }
      if (root.getNumReductionLoops() > 0 && root.getNumDpsInits() == 1)
        setRegisterTile(root, chunks);
      auto schedule = loop::ScheduleAttr::get(
          &getContext(), root.getNumLoops(), chunks, {}, parallelDims, {});
      kernel.setScheduleAttr(schedule);
      if (printSchedules) {
        mlc::loop::printKernelSchedule(llvm::outs(), kernel.getSymName(),
                                       root.getStaticLoopRanges(), schedule);
      }
    });
  }
};
} // namespace
