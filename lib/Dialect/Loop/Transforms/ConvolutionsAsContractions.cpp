//===- ConvolutionsAsContractions.cpp - im2col for NCHW convolutions -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Im2col.h"
#include "mlc/Dialect/Loop/Transforms/Layouts.h"
#include "mlc/Dialect/Loop/Transforms/Packing.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPCONVOLUTIONSASCONTRACTIONS
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// The type of an f32 tensor of `sizes`.
RankedTensorType tensorOf(ArrayRef<OpFoldResult> sizes, Type f32) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(sizes, dynamic, shape);
  return RankedTensorType::get(shape, f32);
}

/// Rewrites an NCHW convolution as a contraction over an im2col matrix:
/// out[n, f, p] += W[f, k] * col[n, k, p] with k = (c, kh, kw) and
/// p = (oh, ow). The gather is a 6-D `linalg.generic` (innermost loop along
/// `ow`, so it copies rows); a 1x1 convolution with unit strides reads the
/// input in place. `layout` says how the matrix's rows are aligned and
/// the filter's rows padded. The batch and the map's sizes may be known
/// only at run time (then p is too, and the rows are not aligned).
void convolutionToContraction(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp conv,
                              mlc::loop::LayoutAttr layout) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t c = filterType.getDimSize(1), f = filterType.getDimSize(0),
          kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  Type f32 = outType.getElementType();
  rewriter.setInsertionPoint(conv);
  OpFoldResult n = tensor::getMixedSize(rewriter, loc, input, 0);
  OpFoldResult oh = tensor::getMixedSize(rewriter, loc, init, 2);
  OpFoldResult ow = tensor::getMixedSize(rewriter, loc, init, 3);
  AffineExpr s0, s1;
  bindSymbols(rewriter.getContext(), s0, s1);
  OpFoldResult pixels =
      affine::makeComposedFoldedAffineApply(rewriter, loc, s0 * s1, {oh, ow});
  auto index = [&](int64_t v) -> OpFoldResult {
    return rewriter.getIndexAttr(v);
  };

  // With an alignment, the im2col matrix's rows start at its multiples:
  // with oh * ow not a multiple (ResNet's 14 x 14 and 7 x 7, SqueezeNet's
  // 55 x 55) the gather writes into a buffer whose rows are padded and the
  // contraction reads its first oh * ow columns. A 1x1 convolution's input
  // is read in place.
  std::optional<int64_t> staticPixels = getConstantIntValue(pixels);
  int64_t padded = layout.getAlign() > 0 && staticPixels
                       ? llvm::alignTo(*staticPixels, layout.getAlign())
                       : 0;
  bool align = padded && padded != *staticPixels;
  auto alignedRows = [&](int64_t rows) -> Value {
    Value buffer = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{n, index(rows), index(padded)},
        f32);
    return tensor::ExtractSliceOp::create(
        rewriter, loc, buffer, {index(0), index(0), index(0)},
        {n, index(rows), pixels}, {index(1), index(1), index(1)});
  };

  Value col;
  int64_t depth = c * kh * kw;
  RankedTensorType colType = tensorOf({n, index(depth), pixels}, f32);
  if (mlc::loop::isPointwiseConvolution(conv)) {
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, colType, input,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  } else {
    SmallVector<OpFoldResult> sizes{n,         index(c), index(kh),
                                    index(kw), oh,       ow};
    SmallVector<ReassociationIndices> groups{{0}, {1, 2, 3}, {4, 5}};
    Value empty =
        align ? Value(tensor::ExpandShapeOp::create(
                    rewriter, loc, tensorOf(sizes, f32), alignedRows(depth),
                    groups, sizes))
              : Value(tensor::EmptyOp::create(rewriter, loc, sizes, f32));
    linalg::GenericOp gather =
        mlc::loop::createIm2colGather(rewriter, conv, empty);
    gather->setAttr(mlc::loop::kIm2colAttr, rewriter.getUnitAttr());
    col = tensor::CollapseShapeOp::create(rewriter, loc, colType,
                                          gather.getResult(0), groups);
  }
  Value weights = mlc::loop::readWithPaddedRows(rewriter, loc, filter,
                                                layout.getRowPad());
  if (!weights)
    weights = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({f, depth}, f32), filter,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  SmallVector<ReassociationIndices> pixelGroups{{0}, {1}, {2, 3}};
  Value acc = tensor::CollapseShapeOp::create(
      rewriter, loc, tensorOf({n, index(f), pixels}, f32), init, pixelGroups);

  // Loops (n, f, p, k).
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr dn, df, dp, dk;
  bindDims(ctx, dn, df, dp, dk);
  SmallVector<AffineMap> maps{AffineMap::get(4, 0, {df, dk}, ctx),
                              AffineMap::get(4, 0, {dn, dk, dp}, ctx),
                              AffineMap::get(4, 0, {dn, df, dp}, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto contraction = linalg::GenericOp::create(
      rewriter, loc, acc.getType(), ValueRange{weights, col}, acc, maps,
      iterators, [](OpBuilder &b, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l,
                                arith::AddFOp::create(b, l, args[2], product)
                                    .getResult());
      });
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, contraction.getResult(0), pixelGroups,
      tensor::getMixedSizes(rewriter, loc, init));
  rewriter.replaceOp(conv, result);
}

struct LoopConvolutionsAsContractionsPass
    : mlc::loop::impl::LoopConvolutionsAsContractionsBase<
          LoopConvolutionsAsContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto [conv, layout] : mlc::loop::takeLayouts<linalg::Conv2DNchwFchwOp>(
             getOperation(), "im2col"))
      if (mlc::loop::hasStaticChannels(conv))
        convolutionToContraction(rewriter, conv, layout);
  }
};
} // namespace
