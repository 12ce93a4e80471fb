//===- ChannelsLastDepthwise.cpp - Depthwise convolutions on narrow maps --===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/ChannelsLast.h"
#include "mlc/Dialect/Loop/Transforms/Layouts.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"


#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPCHANNELSLASTDEPTHWISE
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// The filter `[c, kh, kw]` as `[kh, kw, c]`: a transpose of the constant
/// `[c, 1, kh, kw]` it collapses when it does (which
/// mlc-loop-fold-weight-transposes folds), else of the filter itself.
Value transposeFilter(RewriterBase &rewriter, Location loc, Value filter) {
  auto type = cast<RankedTensorType>(filter.getType());
  if (auto collapse = filter.getDefiningOp<tensor::CollapseShapeOp>())
    if (collapse.getSrc().getDefiningOp<arith::ConstantOp>() &&
        collapse.getSrcType().getRank() == 4 &&
        collapse.getSrcType().getDimSize(1) == 1 &&
        collapse.getReassociationIndices() ==
            SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}) {
      Value transposed = mlc::loop::createTranspose(
          rewriter, loc, collapse.getSrc(), {1, 2, 3, 0});
      return tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(
              {type.getDimSize(1), type.getDimSize(2), type.getDimSize(0)},
              type.getElementType()),
          transposed, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    }
  return mlc::loop::createTranspose(rewriter, loc, filter, {1, 2, 0});
}

/// `[h*w, c]` as `[1, h, w, c]`.
Value expandToNhwc(RewriterBase &rewriter, Location loc, Value matrix,
                   int64_t h, int64_t w) {
  auto type = cast<RankedTensorType>(matrix.getType());
  return tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({1, h, w, type.getDimSize(1)},
                            type.getElementType()),
      matrix, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
}

/// Rewrites a stride-1 depthwise convolution (batch 1) as the NHWC one
/// between transposes. Returns false when it does not apply.
bool rewrite(RewriterBase &rewriter, linalg::DepthwiseConv2DNchwChwOp op) {
  if (!op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperandTypes(), mlc::loop::isStaticF32) ||
      !llvm::all_of(op.getStrides().getValues<int64_t>(),
                    [](int64_t s) { return s == 1; }) ||
      !llvm::all_of(op.getDilations().getValues<int64_t>(),
                    [](int64_t d) { return d == 1; }))
    return false;
  Value input = op.getInputs()[0], filter = op.getInputs()[1];
  Value init = op.getOutputs()[0];
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  if (outType.getDimSize(0) != 1)
    return false;
  // A padded input is padded again after its transpose: only its rows and
  // columns, with a constant.
  auto pad = input.getDefiningOp<tensor::PadOp>();
  Value padValue;
  if (pad) {
    padValue = pad.getConstantPaddingValue();
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (!padValue ||
        llvm::any_of(llvm::concat<const int64_t>(low, high),
                     ShapedType::isDynamic) ||
        low[0] != 0 || low[1] != 0 || high[0] != 0 || high[1] != 0)
      return false;
  }

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value source = pad ? pad.getSource() : input;
  auto sourceType = cast<RankedTensorType>(source.getType());
  Value nhwc = expandToNhwc(
      rewriter, loc, mlc::loop::toPixelsByChannels(rewriter, loc, source),
      sourceType.getDimSize(2), sourceType.getDimSize(3));
  if (pad) {
    auto inputType = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    SmallVector<OpFoldResult> newLow, newHigh;
    for (int64_t v : {int64_t(0), low[2], low[3], int64_t(0)})
      newLow.push_back(rewriter.getIndexAttr(v));
    for (int64_t v : {int64_t(0), high[2], high[3], int64_t(0)})
      newHigh.push_back(rewriter.getIndexAttr(v));
    nhwc =
        tensor::PadOp::create(rewriter, loc,
                              RankedTensorType::get({1, inputType.getDimSize(2),
                                                     inputType.getDimSize(3),
                                                     inputType.getDimSize(1)},
                                                    inputType.getElementType()),
                              nhwc, newLow, newHigh, padValue);
  }
  Value start = expandToNhwc(
      rewriter, loc, mlc::loop::startAsPixelsByChannels(rewriter, loc, init),
      oh, ow);
  Value result = linalg::DepthwiseConv2DNhwcHwcOp::create(
                     rewriter, loc, TypeRange{start.getType()},
                     ValueRange{nhwc, transposeFilter(rewriter, loc, filter)},
                     ValueRange{start}, op.getStrides(), op.getDilations())
                     .getResult(0);
  mlc::loop::replaceFromPixelsByChannels(rewriter, op, result);
  return true;
}

struct LoopChannelsLastDepthwisePass
    : mlc::loop::impl::LoopChannelsLastDepthwiseBase<
          LoopChannelsLastDepthwisePass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto [op, layout] :
         mlc::loop::takeLayouts<linalg::DepthwiseConv2DNchwChwOp>(
             getOperation(), "channels_last"))
      (void)rewrite(rewriter, op);
  }
};
} // namespace
