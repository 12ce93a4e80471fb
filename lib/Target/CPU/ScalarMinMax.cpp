//===- ScalarMinMax.cpp - Float min/max reductions LLVM can vectorize -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUSCALARMINMAX
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// `arith` float min/max on a scalar becomes the LLVM intrinsic with the same
/// NaN and signed-zero semantics.
template <typename ArithOp, typename IntrinsicOp>
struct ScalarToIntrinsic : OpRewritePattern<ArithOp> {
  using OpRewritePattern<ArithOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ArithOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "vector min/max stays expanded");
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

struct CPUScalarMinMaxPass
    : mlc::target::impl::CPUScalarMinMaxBase<CPUScalarMinMaxPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScalarToIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>,
                 ScalarToIntrinsic<arith::MinNumFOp, LLVM::MinNumOp>,
                 ScalarToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                 ScalarToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
