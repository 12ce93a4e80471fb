//===- ConvolutionsAsMatmuls.cpp - Convolutions as pixel-major matmuls -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/ChannelsLast.h"
#include "mlc/Dialect/Loop/Transforms/Im2col.h"
#include "mlc/Dialect/Loop/Transforms/Layouts.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPCONVOLUTIONSASMATMULS
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// Rewrites a convolution (batch 1, constant weights) as
/// `transpose(X^T W^T)`, with `X` its input as `[c, p]` (1x1, stride 1) or
/// its im2col matrix `[c*kh*kw, p]`, read in place through the matmul's
/// indexing map; with `panel`, the matmul's weights are to be packed in
/// panels of that many columns. Returns false when it does not apply.
bool rewrite(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
             int64_t panel) {
  if (!conv.hasPureTensorSemantics() ||
      !llvm::all_of(conv->getOperandTypes(), mlc::loop::isStaticF32))
    return false;
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  if (inputType.getDimSize(0) != 1 ||
      !filter.getDefiningOp<arith::ConstantOp>())
    return false;
  int64_t c = inputType.getDimSize(1), f = filterType.getDimSize(0);
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t pixels = oh * ow, depth = c * kh * kw;
  bool pointwise = mlc::loop::isPointwiseConvolution(conv);

  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = outType.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  // X as [k, p]: the input itself, or the im2col matrix.
  Value columns = input;
  if (!pointwise) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, {1, c, kh, kw, oh, ow}, f32);
    columns = mlc::loop::createIm2colGather(rewriter, conv, empty)
                  .getResult(0);
  }
  Value lhs = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({depth, pixels}, f32), columns,
      pointwise ? ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}}
                : ArrayRef<ReassociationIndices>{{0, 1, 2, 3}, {4, 5}});
  // W as [k, f]: a transpose of the constant itself, which
  // mlc-loop-fold-weight-transposes folds and mlc-loop-pack-weights packs.
  Value rhs = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({depth, f}, f32),
      mlc::loop::createTranspose(rewriter, loc, filter, {1, 2, 3, 0}),
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  // The starting value as [p, f].
  Value start = mlc::loop::startAsPixelsByChannels(rewriter, loc, init);
  // Loops (p, f, k); the left-hand side is read as X[k, p]: each step of k
  // broadcasts a register tile's pixels from one row of X.
  AffineExpr dp, df, dk;
  bindDims(ctx, dp, df, dk);
  linalg::GenericOp matmul =
      linalg::GenericOp::create(
          rewriter, loc, start.getType(), ValueRange{lhs, rhs},
          ValueRange{start},
          ArrayRef<AffineMap>{AffineMap::get(3, 0, {dk, dp}, ctx),
                              AffineMap::get(3, 0, {dk, df}, ctx),
                              AffineMap::get(3, 0, {dp, df}, ctx)},
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel,
                                           utils::IteratorType::reduction},
          [](OpBuilder &b, Location l, ValueRange args) {
            Value term = arith::MulFOp::create(b, l, args[0], args[1]);
            linalg::YieldOp::create(
                b, l, arith::AddFOp::create(b, l, args[2], term).getResult());
          });
  if (panel > 0)
    matmul->setAttr(mlc::loop::LoopDialect::getLayoutAttrName(),
                    mlc::loop::LayoutAttr::get(ctx, "packed", panel, 0, 0));
  Value product = matmul.getResult(0);
  // An activation that is the convolution's only user runs on the matmul's
  // result before the transpose back, so that it stays an epilogue of the
  // contraction's tiles.
  mlc::loop::replaceFromPixelsByChannels(rewriter, conv, product);
  return true;
}

struct LoopConvolutionsAsMatmulsPass
    : mlc::loop::impl::LoopConvolutionsAsMatmulsBase<
          LoopConvolutionsAsMatmulsPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto [conv, layout] : mlc::loop::takeLayouts<linalg::Conv2DNchwFchwOp>(
             getOperation(), "matmul"))
      (void)rewrite(rewriter, conv, layout.getPanel());
  }
};
} // namespace
