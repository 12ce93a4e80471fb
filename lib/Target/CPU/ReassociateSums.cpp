//===- ReassociateSums.cpp - Sums LLVM may vectorize ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUREASSOCIATESUMS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Marks the `arith.addf` that folds a value into `op`'s accumulator when
/// `op` reduces over some loop.
void markSum(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return;
  Block &body = op->getRegion(0).front();
  Operation *terminator = body.getTerminator();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
    if (index >= terminator->getNumOperands())
      continue;
    auto add = terminator->getOperand(index).getDefiningOp<arith::AddFOp>();
    if (!add || (add.getLhs() != accumulator && add.getRhs() != accumulator))
      continue;
    add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc);
  }
}

struct CPUReassociateSumsPass
    : mlc::target::impl::CPUReassociateSumsBase<CPUReassociateSumsPass> {
  void runOnOperation() override {
    getOperation()->walk([](linalg::LinalgOp op) { markSum(op); });
  }
};
} // namespace
