//===- VerifyContracts.cpp - The loop and kernels phases' contracts -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPVERIFYKERNELS
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;
using namespace mlc::loop;

namespace {
/// A fill, or an all-parallel op whose body only yields a value (a
/// broadcast bias): what a destination starts as, left outside kernels.
bool isInitialization(linalg::LinalgOp op) {
  if (isa<linalg::FillOp>(op.getOperation()))
    return true;
  return op.getNumReductionLoops() == 0 && op->getNumRegions() == 1 &&
         !op->getRegion(0).empty() && llvm::hasSingleElement(*op.getBlock());
}

struct LoopVerifyKernelsPass
    : mlc::loop::impl::LoopVerifyKernelsBase<LoopVerifyKernelsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics())
        return WalkResult::advance();
      auto kernel = op->getParentOfType<KernelOp>();
      bool reduction = op.getNumReductionLoops() > 0;
      if (!kernel && !reduction && isInitialization(op))
        return WalkResult::advance();
      if (!kernel && !reduction) {
        op->emitError() << "kernels phase: this op of node '"
                        << getKernelName(op.getLoc())
                        << "' is in no mlc_loop.kernel";
        return WalkResult::interrupt();
      }
      bool root = kernel && getKernelRoot(kernel) == op.getOperation();
      if (!root && reduction) {
        op->emitError() << "kernels phase: this reduction of node '"
                        << getKernelName(op.getLoc())
                        << "' is not the root of an mlc_loop.kernel";
        return WalkResult::interrupt();
      }
      if (!root)
        return WalkResult::advance();
      ScheduleAttr schedule = kernel.getScheduleAttr();
      if (!schedule ||
          schedule.getNumLoops() != static_cast<int64_t>(op.getNumLoops())) {
        kernel.emitError() << "kernels phase: kernel '" << kernel.getSymName()
                           << "' has "
                           << (schedule ? "a schedule of another op's loops"
                                        : "no schedule");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// The loop level's contract
//===----------------------------------------------------------------------===//

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPVERIFYCONTRACT
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

namespace {
struct LoopVerifyContractPass
    : mlc::loop::impl::LoopVerifyContractBase<LoopVerifyContractPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](Operation *op) {
      Dialect *dialect = op->getDialect();
      if (!dialect) {
        op->emitError() << "loop level: op '" << op->getName()
                        << "' of node '" << getKernelName(op->getLoc())
                        << "' is not registered";
        return WalkResult::interrupt();
      }
      if (dialect->getNamespace() == "mlc_graph") {
        op->emitError() << "loop level: graph op '" << op->getName()
                        << "' of node '" << getKernelName(op->getLoc())
                        << "' was not lowered";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
