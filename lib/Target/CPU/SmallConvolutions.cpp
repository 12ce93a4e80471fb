//===- SmallConvolutions.cpp - 1x1 convolutions on small maps as matmuls --===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TensorTypes.h"

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUSMALLCONVOLUTIONSASMATMULS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Output maps of at most this many pixels (7x7) are computed as matmuls.
/// Measured on Zen 5, one thread, 1x1 convolution + bias + ReLU: 7x7
/// 512 -> 2048 0.85 -> 0.61 ms, 2048 -> 512 0.82 -> 0.63 ms, 960 -> 160
/// 0.110 -> 0.090 ms; 13x13 and 14x14 got slower (14x14 256 -> 1024 0.71 ->
/// 1.06 ms: the transposes cost more than the contraction saves).
constexpr int64_t kMaxPixels = 64;

Value transpose(RewriterBase &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, empty, perm)
      ->getResult(0);
}

/// The elementwise op that is `conv`'s only user and reads nothing else
/// (an activation, possibly fused from several ops), or null.
linalg::GenericOp getActivation(linalg::Conv2DNchwFchwOp conv) {
  Value result = conv->getResult(0);
  if (!result.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.hasIndexSemantics() ||
      generic.getDpsInputs()[0] != result ||
      generic->getResult(0).getType() != result.getType() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return {};
  return generic;
}

/// The `[f]` vector that `init` (`[1, f, h, w]`) broadcasts, or null.
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

/// Rewrites a 1x1 convolution (stride 1, batch 1) with constant weights
/// over a map of at most kMaxPixels pixels as
/// `transpose(matmul(transpose(x), W^T))`.
bool rewrite(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv) {
  if (!conv.hasPureTensorSemantics() ||
      !llvm::all_of(conv->getOperandTypes(), mlc::target::isStaticF32))
    return false;
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  if (inputType.getDimSize(0) != 1 || filterType.getDimSize(2) != 1 ||
      filterType.getDimSize(3) != 1 ||
      !filter.getDefiningOp<arith::ConstantOp>() ||
      !llvm::all_of(conv.getStrides().getValues<int64_t>(),
                    [](int64_t s) { return s == 1; }) ||
      inputType.getDimSize(2) != outType.getDimSize(2) ||
      inputType.getDimSize(3) != outType.getDimSize(3))
    return false;
  int64_t c = inputType.getDimSize(1), f = filterType.getDimSize(0);
  int64_t pixels = outType.getDimSize(2) * outType.getDimSize(3);
  if (pixels > kMaxPixels)
    return false;

  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = outType.getElementType();
  // x as [p, c].
  Value rows = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({c, pixels}, f32), input,
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  Value lhs = transpose(rewriter, loc, rows, {1, 0});
  // W as [c, f]: a transpose of the constant itself, which
  // mlc-cpu-fold-weight-transposes folds and mlc-cpu-pack-weights packs.
  Value rhs = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({c, f}, f32),
      transpose(rewriter, loc, filter, {1, 2, 3, 0}),
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  // The starting value as [p, f]: a fill again, or the init transposed.
  Value start;
  MLIRContext *ctx = rewriter.getContext();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, {pixels, f}, f32);
    start = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
  } else if (Value bias = getBroadcastBias(init)) {
    // The bias broadcast that mlc-cpu-fuse-elementwise made the starting
    // value, broadcast along the rows instead.
    Value empty = tensor::EmptyOp::create(rewriter, loc, {pixels, f}, f32);
    AffineExpr dp, df;
    bindDims(ctx, dp, df);
    start = linalg::GenericOp::create(
                rewriter, loc, empty.getType(), ValueRange{bias},
                ValueRange{empty},
                ArrayRef<AffineMap>{AffineMap::get(2, 0, {df}, ctx),
                                    AffineMap::getMultiDimIdentityMap(2, ctx)},
                SmallVector<utils::IteratorType>(
                    2, utils::IteratorType::parallel),
                [](OpBuilder &b, Location l, ValueRange args) {
                  linalg::YieldOp::create(b, l, args[0]);
                })
                .getResult(0);
  } else {
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({f, pixels}, f32), init,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    start = transpose(rewriter, loc, flat, {1, 0});
  }
  Value product = linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs, rhs},
                                           ValueRange{start})
                      .getResult(0);
  // An activation that is the convolution's only user runs on the matmul's
  // result before the transpose back (elementwise ops commute with it), so
  // that it stays an epilogue of the contraction's tiles.
  Operation *replaced = conv;
  if (linalg::GenericOp activation = getActivation(conv)) {
    rewriter.setInsertionPoint(activation);
    Value empty = tensor::EmptyOp::create(rewriter, loc, {pixels, f}, f32);
    auto moved = linalg::GenericOp::create(
        rewriter, activation.getLoc(), empty.getType(), ValueRange{product},
        ValueRange{empty},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx),
                            AffineMap::getMultiDimIdentityMap(2, ctx)},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(activation.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    product = moved.getResult(0);
    replaced = activation;
  }
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, transpose(rewriter, loc, product, {1, 0}),
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  rewriter.replaceOp(replaced, result);
  if (replaced != conv)
    rewriter.eraseOp(conv);
  return true;
}

struct CPUSmallConvolutionsAsMatmulsPass
    : mlc::target::impl::CPUSmallConvolutionsAsMatmulsBase<
          CPUSmallConvolutionsAsMatmulsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    for (linalg::Conv2DNchwFchwOp conv : convs)
      (void)rewrite(rewriter, conv);
  }
};
} // namespace
