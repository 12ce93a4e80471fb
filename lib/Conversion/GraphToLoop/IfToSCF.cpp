//===- IfToSCF.cpp - ONNX If as a run-time branch -------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An If whose condition is only known at run time becomes an `scf.if` on
// the condition's one element, its branches moved into the `scf.if`'s
// regions (they read outer values directly, as ONNX subgraphs do), so that
// only the branch taken runs: the other one may be costly, or compute on
// values that are meaningless when it is not taken. Both branches must
// yield the same static types (the shapes of the If's results); the
// ops inside are lowered by the other patterns of the conversion.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
struct IfToSCF : OpConversionPattern<IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value r : op.getResults())
      if (!getStaticType(r))
        return rewriter.notifyMatchFailure(op, "needs static results");
    auto cond = getStaticType(adaptor.getCondition());
    if (!cond || cond.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "needs a one-element condition");
    for (Region *region : {&op.getThenBranch(), &op.getElseBranch()}) {
      Block &block = region->front();
      auto yield = dyn_cast<YieldOp>(block.getTerminator());
      if (!yield || block.getNumArguments() != 0)
        return rewriter.notifyMatchFailure(op, "branch is not a plain block");
      for (auto [v, r] : llvm::zip(yield.getValues(), op.getResults()))
        if (v.getType() != r.getType())
          return rewriter.notifyMatchFailure(op, "branch type differs");
    }
    Location loc = op.getLoc();
    SmallVector<Value> origin(
        cond.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value flag =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getCondition(), origin);
    auto branch = scf::IfOp::create(rewriter, loc, op.getResultTypes(), flag,
                                    /*addThenBlock=*/false,
                                    /*addElseBlock=*/false);
    for (auto [from, to] : {std::pair(&op.getThenBranch(), &branch.getThenRegion()),
                            std::pair(&op.getElseBranch(), &branch.getElseRegion())}) {
      rewriter.inlineRegionBefore(*from, *to, to->end());
      auto yield = cast<YieldOp>(to->front().getTerminator());
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
    }
    rewriter.replaceOp(op, branch.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphIfToSCFPatterns(RewritePatternSet &patterns) {
  patterns.add<IfToSCF>(patterns.getContext());
}
