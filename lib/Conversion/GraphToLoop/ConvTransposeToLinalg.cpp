//===- ConvTransposeToLinalg.cpp - ConvTranspose to linalg.generic --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ConvTranspose in gather form, for any number of spatial dims, groups,
// strides, dilations and pads: one reduction generic over
// (n, m, o..., c_in_group, k...) computes
//
//   y[n, m, o] = b[m] + sum x[n, g*Cg + c, i] * w[g*Cg + c, m % Mg, k]
//                with i = (o + pad_begin - k * dilation) / stride
//
// where only terms with an exact, in-range i contribute (g = m / Mg). Input
// and weight are read with tensor.extract; an operand of shape (Cg, K...)
// that the body does not read gives the reduction dims their extents.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Input and output dims may be known at run time only (an image of any
    // size); the weights' and channels' are static.
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto w = getStaticType(adaptor.getWeight());
    auto y = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!x || !w || !y || x.isDynamicDim(1) || y.isDynamicDim(1) ||
        x.getRank() != y.getRank() || w.getRank() != x.getRank())
      return rewriter.notifyMatchFailure(op, "needs static weights, channels");
    int64_t n = x.getRank() - 2;
    int64_t group = static_cast<int64_t>(op.getGroup());
    int64_t cg = x.getDimSize(1) / group;
    int64_t mg = w.getDimSize(1);
    auto attrOr = [&](std::optional<ArrayRef<int64_t>> a, int64_t size,
                      int64_t fill) {
      return a && static_cast<int64_t>(a->size()) == size
                 ? SmallVector<int64_t>(*a)
                 : SmallVector<int64_t>(size, fill);
    };
    SmallVector<int64_t> strides = attrOr(op.getStrides(), n, 1);
    SmallVector<int64_t> dilations = attrOr(op.getDilations(), n, 1);
    SmallVector<int64_t> pads = attrOr(op.getPads(), 2 * n, 0);
    SmallVector<int64_t> outPad = attrOr(op.getOutputPadding(), n, 0);
    // With auto_pad or output_shape the begin pads follow from the total
    // padding the (already inferred) output size implies.
    SmallVector<int64_t> begin(n);
    bool derived = op.getAutoPad() != AutoPad::NotSet || op.getOutputShape();
    if (derived && (!x.hasStaticShape() || !y.hasStaticShape()))
      return rewriter.notifyMatchFailure(op, "auto_pad needs static shapes");
    for (int64_t i = 0; i < n; ++i) {
      if (!derived) {
        begin[i] = pads[i];
        continue;
      }
      int64_t total = strides[i] * (x.getDimSize(i + 2) - 1) + outPad[i] +
                      (w.getDimSize(i + 2) - 1) * dilations[i] + 1 -
                      y.getDimSize(i + 2);
      // Floor division, as ONNX's reference computes it (an output_shape one
      // larger than the natural size gives total = -1 and begin = 0).
      int64_t half = llvm::divideFloorSigned(total, 2);
      begin[i] = op.getAutoPad() == AutoPad::SameUpper ? half : total - half;
    }

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type element = y.getElementType();
    // The output's sizes: (in - 1) * s + out_pad + (k - 1) * d + 1 - pads
    // per spatial dim, read from the input where it is dynamic; and the
    // input's spatial extents times the strides, which bound valid reads.
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> ySizes = {inSizes[0],
                                        rewriter.getIndexAttr(y.getDimSize(1))};
    SmallVector<Value> readExtent;
    for (int64_t i = 0; i < n; ++i) {
      Value in = getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[i + 2]);
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(rewriter, loc, v);
      };
      readExtent.push_back(
          arith::MulIOp::create(rewriter, loc, in, index(strides[i])));
      if (!y.isDynamicDim(i + 2)) {
        ySizes.push_back(rewriter.getIndexAttr(y.getDimSize(i + 2)));
        continue;
      }
      int64_t extra = outPad[i] + (w.getDimSize(i + 2) - 1) * dilations[i] + 1 -
                      pads[i] - pads[i + n];
      Value size = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(
              rewriter, loc,
              arith::SubIOp::create(rewriter, loc, in, index(1)),
              index(strides[i])),
          index(extra));
      ySizes.push_back(
          arith::MaxSIOp::create(rewriter, loc, size, index(0)).getResult());
    }
    // Loop dims: 0 n, 1 m, [2, 2+n) o, 2+n c, [3+n, 3+2n) k.
    int64_t loops = 3 + 2 * n;
    SmallVector<AffineExpr> extentExprs, yExprs;
    SmallVector<int64_t> extentShape = {cg};
    for (int64_t i = 0; i < 2 + n; ++i)
      yExprs.push_back(getAffineDimExpr(i, ctx));
    for (int64_t i = 0; i < 1 + n; ++i)
      extentExprs.push_back(getAffineDimExpr(2 + n + i, ctx));
    for (int64_t i = 0; i < n; ++i)
      extentShape.push_back(w.getDimSize(i + 2));
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, extentExprs, ctx),
                                   AffineMap::get(loops, 0, yExprs, ctx)};
    Value extents =
        tensor::EmptyOp::create(rewriter, loc, extentShape, element);
    SmallVector<utils::IteratorType> iterators(2 + n,
                                               utils::IteratorType::parallel);
    iterators.append(1 + n, utils::IteratorType::reduction);

    // The accumulator starts at the bias (or zero).
    Value init;
    if (Value bias = adaptor.getBias()) {
      int64_t rank = y.getRank();
      SmallVector<AffineMap> biasMaps = {
          AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx),
          rewriter.getMultiDimIdentityMap(rank)};
      Value empty = mlc::detail::createEmptyOfSizes(rewriter, loc, y, ySizes);
      init = linalg::GenericOp::create(
                 rewriter, loc, TypeRange{y}, bias, empty, biasMaps,
                 SmallVector<utils::IteratorType>(rank,
                                                  utils::IteratorType::parallel),
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   linalg::YieldOp::create(b, l, a[0]);
                 })
                 .getResult(0);
    } else {
      Value empty = mlc::detail::createEmptyOfSizes(rewriter, loc, y, ySizes);
      init = linalg::FillOp::create(
                 rewriter, loc,
                 Value(arith::ConstantOp::create(rewriter, loc, element,
                                                 rewriter.getZeroAttr(element))),
                 empty)
                 .getResult(0);
    }

    Value input = adaptor.getInput();
    Value weight = adaptor.getWeight();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{y}, extents, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value valid = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          SmallVector<Value> position = {
              linalg::IndexOp::create(b, l, 0),
              arith::AddIOp::create(
                  b, l,
                  arith::MulIOp::create(
                      b, l,
                      arith::DivUIOp::create(b, l,
                                             linalg::IndexOp::create(b, l, 1),
                                             c(mg)),
                      c(cg)),
                  linalg::IndexOp::create(b, l, 2 + n))};
          for (int64_t i = 0; i < n; ++i) {
            // t = o + pad - k * d must be a multiple of s in [0, s * in).
            Value t = arith::SubIOp::create(
                b, l,
                arith::AddIOp::create(b, l, linalg::IndexOp::create(b, l, 2 + i),
                                      c(begin[i])),
                arith::MulIOp::create(b, l,
                                      linalg::IndexOp::create(b, l, 3 + n + i),
                                      c(dilations[i])));
            Value nonNegative = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::sge, t, c(0));
            Value exact = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq,
                arith::RemSIOp::create(b, l, t, c(strides[i])), c(0));
            Value inRange = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, t, readExtent[i]);
            valid = arith::AndIOp::create(
                b, l, valid,
                arith::AndIOp::create(b, l, nonNegative,
                                      arith::AndIOp::create(b, l, exact,
                                                            inRange)));
            // Clamp so the read stays in bounds; invalid terms are dropped.
            Value clamped = arith::SelectOp::create(b, l, valid, t, c(0));
            position.push_back(
                arith::DivSIOp::create(b, l, clamped, c(strides[i])));
          }
          Value xv = tensor::ExtractOp::create(b, l, input, position);
          SmallVector<Value> wPosition = {
              position[1],
              arith::RemUIOp::create(b, l, linalg::IndexOp::create(b, l, 1),
                                     c(mg))};
          for (int64_t i = 0; i < n; ++i)
            wPosition.push_back(linalg::IndexOp::create(b, l, 3 + n + i));
          Value wv = tensor::ExtractOp::create(b, l, weight, wPosition);
          Value product = arith::MulFOp::create(b, l, xv, wv);
          Value sum = arith::AddFOp::create(b, l, a[1], product);
          linalg::YieldOp::create(
              b, l, Value(arith::SelectOp::create(b, l, valid, sum, a[1])));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphConvTransposeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConvTransposeLowering>(patterns.getContext());
}
