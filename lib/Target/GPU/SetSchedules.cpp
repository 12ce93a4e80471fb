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
      auto schedule = loop::ScheduleAttr::get(
          &getContext(), root.getNumLoops(), chunks, {}, parallelDims, {});
      kernel.setScheduleAttr(schedule);
      if (printSchedules) {
        llvm::outs() << '"' << kernel.getSymName() << "\" loops = [";
        llvm::interleaveComma(root.getStaticLoopRanges(), llvm::outs());
        llvm::outs() << "] " << schedule << "\n";
      }
    });
  }
};
} // namespace
