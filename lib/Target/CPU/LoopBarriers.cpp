//===- LoopBarriers.cpp - No barrier where the parallel region joins ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPULOOPBARRIERS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
struct CPULoopBarriersPass
    : mlc::target::impl::CPULoopBarriersBase<CPULoopBarriersPass> {
  void runOnOperation() override {
    getOperation()->walk([](omp::WsloopOp loop) {
      Operation *next = loop->getNextNode();
      if (next && isa<omp::TerminatorOp>(next) &&
          isa<omp::ParallelOp>(loop->getParentOp()) && !loop.getNowait())
        loop.setNowait(true);
    });
  }
};
} // namespace
