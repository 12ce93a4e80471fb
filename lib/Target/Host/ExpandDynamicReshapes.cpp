//===- ExpandDynamicReshapes.cpp - Views for run-time reshape groups -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTEXPANDDYNAMICRESHAPES
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// A `memref.expand_shape` with two or more sizes known at run time in one
/// group, as a `memref.reinterpret_cast` of its source.
struct ExpandAsView : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType resultType = op.getResultType();
    bool needed = llvm::any_of(
        op.getReassociationIndices(), [&](const ReassociationIndices &group) {
          return llvm::count_if(group, [&](int64_t d) {
                   return resultType.isDynamicDim(d);
                 }) > 1;
        });
    if (!needed)
      return failure();
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides = metadata.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    for (auto [g, group] : llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[g];
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        stride = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 * s1,
                                                       {stride, sizes[d]});
      }
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, resultType, metadata.getBaseBuffer(),
        metadata.getConstifiedMixedOffset(), sizes, strides);
    return success();
  }
};

struct HostExpandDynamicReshapesPass
    : mlc::host::impl::HostExpandDynamicReshapesBase<
          HostExpandDynamicReshapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandAsView>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
