//===- ChannelsLast.cpp - Convolutions computed on [pixels, channels] -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/ChannelsLast.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value mlc::loop::createTranspose(RewriterBase &rewriter, Location loc,
                                   Value value, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, empty, perm)
      ->getResult(0);
}

namespace {
/// The elementwise op that is `result`'s only user and reads nothing else
/// (an activation, possibly fused from several ops), or null.
linalg::GenericOp getActivation(Value result) {
  if (!result.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.hasIndexSemantics() || generic.getDpsInputs()[0] != result ||
      generic->getResult(0).getType() != result.getType() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return {};
  return generic;
}

/// The `[c]` vector that `init` (`[1, c, h, w]`) broadcasts, or null.
Value getBroadcastBias(Value init) {
  auto generic = init.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() != 4)
    return {};
  Value bias = generic.getDpsInputs()[0];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  AffineMap map = generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  if (!biasType || biasType.getRank() != 1 ||
      map != AffineMap::get(4, 0, {getAffineDimExpr(1, init.getContext())},
                            init.getContext()) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return {};
  return bias;
}

/// `[1, c, h, w]` as `[c, h*w]`.
Value flatten(RewriterBase &rewriter, Location loc, Value nchw) {
  auto type = cast<RankedTensorType>(nchw.getType());
  return tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(
          {type.getDimSize(1), type.getDimSize(2) * type.getDimSize(3)},
          type.getElementType()),
      nchw, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
}
} // namespace

Value mlc::loop::toPixelsByChannels(RewriterBase &rewriter, Location loc,
                                      Value nchw) {
  // The transpose back of an earlier channels-last result.
  if (auto expand = nchw.getDefiningOp<tensor::ExpandShapeOp>())
    if (expand.getReassociationIndices() ==
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}})
      if (auto back = expand.getSrc().getDefiningOp<linalg::TransposeOp>())
        if (back.hasPureTensorSemantics() &&
            back.getPermutation() == ArrayRef<int64_t>{1, 0})
          return back.getInput();
  return createTranspose(rewriter, loc, flatten(rewriter, loc, nchw), {1, 0});
}

Value mlc::loop::startAsPixelsByChannels(RewriterBase &rewriter, Location loc,
                                           Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t channels = type.getDimSize(1);
  int64_t pixels = type.getDimSize(2) * type.getDimSize(3);
  Type elementType = type.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, {pixels, channels}, elementType);
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  if (Value bias = getBroadcastBias(init)) {
    // The bias broadcast that mlc-loop-fuse-elementwise made the starting
    // value, broadcast along the rows instead.
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, {pixels, channels}, elementType);
    AffineExpr dp, dc;
    bindDims(ctx, dp, dc);
    return linalg::GenericOp::create(
               rewriter, loc, empty.getType(), ValueRange{bias},
               ValueRange{empty},
               ArrayRef<AffineMap>{AffineMap::get(2, 0, {dc}, ctx),
                                   AffineMap::getMultiDimIdentityMap(2, ctx)},
               SmallVector<utils::IteratorType>(2,
                                                utils::IteratorType::parallel),
               [](OpBuilder &b, Location l, ValueRange args) {
                 linalg::YieldOp::create(b, l, args[0]);
               })
        .getResult(0);
  }
  return createTranspose(rewriter, loc, flatten(rewriter, loc, init), {1, 0});
}

void mlc::loop::replaceFromPixelsByChannels(RewriterBase &rewriter,
                                              Operation *op, Value result) {
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Operation *replaced = op;
  if (linalg::GenericOp activation = getActivation(op->getResult(0))) {
    rewriter.setInsertionPoint(activation);
    int64_t rank = resultType.getRank();
    Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          resultType.getElementType());
    auto moved = linalg::GenericOp::create(
        rewriter, activation.getLoc(), resultType, ValueRange{result},
        ValueRange{empty},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                            AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(activation.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    result = moved.getResult(0);
    replaced = activation;
  } else {
    rewriter.setInsertionPointAfter(op);
  }
  Value matrix = result;
  if (resultType.getRank() != 2)
    matrix = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({outType.getDimSize(2) * outType.getDimSize(3),
                               outType.getDimSize(1)},
                              outType.getElementType()),
        result, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  Value back = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, createTranspose(rewriter, loc, matrix, {1, 0}),
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  rewriter.replaceOp(replaced, back);
  if (replaced != op)
    rewriter.eraseOp(op);
}
