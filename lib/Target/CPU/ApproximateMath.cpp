//===- ApproximateMath.cpp - Vectorizable erf, tanh and exp ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "ContractedMulAdd.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
struct CPUApproximateMathPass
    : mlc::target::impl::CPUApproximateMathBase<CPUApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          name.consume_front("math.");
          return name == "erf" || name == "tanh" || name == "exp";
        });
    patterns.add<mlc::target::FmaToContractedMulAdd<math::FmaOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
