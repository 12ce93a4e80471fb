//===- FoldChannelScales.cpp - Per-channel scales into conv weights -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHFOLDCHANNELSCALES
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;
using namespace mlc::graph;

namespace {
/// Whether `scale` is `[1, C, 1, ...]` for the channels of `x`, of `x`'s
/// rank: a per-channel factor shared by every image and position.
bool isChannelScale(Value scale, RankedTensorType x) {
  auto type = dyn_cast<RankedTensorType>(scale.getType());
  if (!type || !type.hasStaticShape() || type.getRank() != x.getRank() ||
      x.getRank() < 3 || type.getElementType() != x.getElementType())
    return false;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (size != (d == 1 ? x.getDimSize(1) : 1))
      return false;
  return true;
}

/// Rewrites `conv(x * s, W)` as `conv(x, W * s)` when `s` scales x's
/// channels and scaling the weights touches fewer elements than scaling x.
bool foldChannelScale(RewriterBase &rewriter, ConvOp conv) {
  if (conv.getGroup() != 1)
    return false;
  auto mul = conv.getInput().getDefiningOp<MulOp>();
  if (!mul || !mul->hasOneUse())
    return false;
  auto resultType = dyn_cast<RankedTensorType>(mul.getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (!resultType || !resultType.hasStaticShape() || !weightType ||
      !weightType.hasStaticShape() ||
      weightType.getRank() != resultType.getRank() ||
      weightType.getDimSize(1) != resultType.getDimSize(1))
    return false;
  Value x, scale;
  for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())})
    if (a.getType() == resultType && isChannelScale(b, resultType)) {
      x = a;
      scale = b;
      break;
    }
  if (!x || weightType.getNumElements() >= resultType.getNumElements())
    return false;

  rewriter.setInsertionPoint(conv);
  Value weight = MulOp::create(rewriter, mul.getLoc(), weightType,
                               conv.getWeight(), scale);
  rewriter.modifyOpInPlace(conv, [&] {
    conv.getInputMutable().assign(x);
    conv.getWeightMutable().assign(weight);
  });
  rewriter.eraseOp(mul);
  return true;
}

struct GraphFoldChannelScalesPass
    : mlc::graph::impl::GraphFoldChannelScalesBase<
          GraphFoldChannelScalesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) { convs.push_back(conv); });
    for (ConvOp conv : convs)
      (void)foldChannelScale(rewriter, conv);
  }
};
} // namespace
