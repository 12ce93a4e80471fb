//===- ChooseLayouts.cpp - The CPU strategy's layout choices --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Decides the `#mlc_loop.layout` of each convolution and contraction; the
// generic layout passes (mlc-loop-convolutions-as-matmuls,
// -channels-last-depthwise, -pack-weights, -convolutions-as-contractions)
// do what it says. The thresholds are tuned constants of the CPU
// description (TargetInfo.h).
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Im2col.h"
#include "mlc/Dialect/Loop/Transforms/Packing.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUCHOOSELAYOUTS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
bool allStaticF32(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), loop::isStaticF32);
}

/// Whether `conv` (batch 1, constant weights) is computed faster as a
/// `[pixels, channels]` matmul with its weights packed in panels of
/// `panel` columns (0: not packed).
bool isSmallConvolution(linalg::Conv2DNchwFchwOp conv, int64_t panel) {
  if (!conv.hasPureTensorSemantics() || !allStaticF32(conv) ||
      !conv.getInputs()[1].getDefiningOp<arith::ConstantOp>())
    return false;
  auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (inputType.getDimSize(0) != 1)
    return false;
  int64_t pixels = outType.getDimSize(2) * outType.getDimSize(3);
  int64_t depth = filterType.getDimSize(1) * filterType.getDimSize(2) *
                  filterType.getDimSize(3);
  int64_t channels = filterType.getDimSize(0);
  if (loop::isPointwiseConvolution(conv) && pixels <= kMaxPointwisePixels)
    return true;
  return pixels <= kMaxPixels && depth >= kMinDepth &&
         (panel <= 0 || channels % panel == 0);
}

/// Extra floats per row of a convolution's constant filter read as
/// `[rows, cols]`: one cache line when its rows are a multiple of 2 KiB
/// apart (a K of 512, 1024, 2048 floats: ResNet's 1x1 convolutions), which
/// all map to a handful of the 64 sets of a level 1 data cache, and 16 of
/// them no longer fit its 8 or 12 ways. Measured on Zen 5 (48 KiB 12-way
/// L1d), 512 x K x 196 1x1 convolutions at one thread: K 1024 103 -> 162
/// GFLOP/s, K 2048 97 -> 147-163 GFLOP/s; K 512 within noise.
int64_t chooseFilterRowPad(Value filter) {
  constexpr int64_t kAliasingBytes = 2048;
  auto type = dyn_cast<RankedTensorType>(filter.getType());
  if (!filter.getDefiningOp<arith::ConstantOp>() || !type ||
      !type.hasStaticShape() || type.getRank() < 2 || type.getDimSize(0) < 2 ||
      !type.getElementType().isF32())
    return 0;
  int64_t cols = type.getNumElements() / type.getDimSize(0);
  return (cols * 4) % kAliasingBytes == 0 ? kCacheLineFloats : 0;
}

/// Whether the depthwise convolution `op` is computed faster with the
/// channels in vectors of `lanes` floats: output rows that fill at most
/// half a vector, or narrower than two on small maps with large windows.
bool isNarrowDepthwise(linalg::DepthwiseConv2DNchwChwOp op, int64_t lanes) {
  if (lanes <= 0 || !op.hasPureTensorSemantics() || !allStaticF32(op) ||
      !llvm::all_of(op.getStrides().getValues<int64_t>(),
                    [](int64_t s) { return s == 1; }) ||
      !llvm::all_of(op.getDilations().getValues<int64_t>(),
                    [](int64_t d) { return d == 1; }))
    return false;
  auto outType = cast<RankedTensorType>(op.getOutputs()[0].getType());
  auto filterType = cast<RankedTensorType>(op.getInputs()[1].getType());
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t taps = filterType.getDimSize(1) * filterType.getDimSize(2);
  return outType.getDimSize(0) == 1 &&
         (2 * ow <= lanes ||
          (ow < 2 * lanes && taps >= kMinWideTaps && oh * ow <= kMaxWidePixels));
}

struct CPUChooseLayoutsPass
    : mlc::target::impl::CPUChooseLayoutsBase<CPUChooseLayoutsPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    StringRef name = loop::LoopDialect::getLayoutAttrName();
    getOperation().walk([&](linalg::LinalgOp op) {
      loop::LayoutAttr layout;
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
        if (matmuls && isSmallConvolution(conv, panel))
          layout = loop::LayoutAttr::get(ctx, "matmul", panel, 0, 0);
        else if (loop::hasStaticChannels(conv))
          layout = loop::LayoutAttr::get(
              ctx, "im2col", 0, alignColumns ? kCacheLineFloats : 0,
              chooseFilterRowPad(conv.getInputs()[1]));
      } else if (auto depthwise = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(
                     op.getOperation())) {
        if (isNarrowDepthwise(depthwise, lanes))
          layout = loop::LayoutAttr::get(ctx, "channels_last", 0, 0, 0);
      } else if (loop::getPackableConstant(op, panel)) {
        layout = loop::LayoutAttr::get(ctx, "packed", panel, 0, 0);
      }
      if (layout)
        op->setAttr(name, layout);
    });
  }
};
} // namespace
