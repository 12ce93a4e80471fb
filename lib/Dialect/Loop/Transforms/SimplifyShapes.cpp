//===- SimplifyShapes.cpp - Folding sizes known at run time ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/SimplifyShapes.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/Loop/Utils/ValueBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPSIMPLIFYSHAPES
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
using Bounds = ValueBoundsConstraintSet;

/// Whether the index values `lhs` and `rhs` are proven equal: an `eq`
/// check then holds and a `ne` one fails. (Orderings, such as whether an
/// input holds a window, depend on the sizes and are left to run time.)
bool provenEqual(Value lhs, Value rhs) {
  return lhs == rhs || mlc::loop::provablyEqual(lhs, rhs);
}

/// An index equality (or inequality) that value bounds prove, as a constant.
struct FoldDecidedComparison : OpRewritePattern<arith::CmpIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpIOp op,
                                PatternRewriter &rewriter) const override {
    bool eq = op.getPredicate() == arith::CmpIPredicate::eq;
    if (!op.getLhs().getType().isIndex() ||
        (!eq && op.getPredicate() != arith::CmpIPredicate::ne) ||
        (matchPattern(op.getLhs(), m_Constant()) &&
         matchPattern(op.getRhs(), m_Constant())) ||
        !provenEqual(op.getLhs(), op.getRhs()))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(op, eq, 1);
    return success();
  }
};

/// A slice of a whole tensor, as the tensor.
struct FoldWholeSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType sourceType = op.getSourceType();
    if (op.getType().getRank() != sourceType.getRank() ||
        !op.hasUnitStride() || !op.hasZeroOffset())
      return failure();
    for (auto [d, size] : llvm::enumerate(op.getMixedSizes())) {
      std::optional<int64_t> known = getConstantIntValue(size);
      if (known && !sourceType.isDynamicDim(d)) {
        if (*known != sourceType.getDimSize(d))
          return failure();
        continue;
      }
      if (!mlc::loop::provablyEqual(Bounds::Variable(size),
                                    Bounds::Variable(op.getSource(), d)))
        return failure();
    }
    Value source = op.getSource();
    if (source.getType() != op.getType())
      source = tensor::CastOp::create(rewriter, op.getLoc(), op.getType(),
                                      source);
    rewriter.replaceOp(op, source);
    return success();
  }
};

struct LoopSimplifyShapesPass
    : mlc::loop::impl::LoopSimplifyShapesBase<LoopSimplifyShapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    mlc::loop::populateSimplifyShapesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlc::loop::populateSimplifyShapesPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
  cf::AssertOp::getCanonicalizationPatterns(patterns, ctx);
  arith::SelectOp::getCanonicalizationPatterns(patterns, ctx);
  patterns.add<FoldDecidedComparison, FoldWholeSlice>(ctx);
}
