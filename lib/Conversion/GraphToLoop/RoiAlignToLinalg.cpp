//===- RoiAlignToLinalg.cpp - ONNX RoiAlign -------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// RoiAlign as one generic over the result [R, C, oh, ow]. Its body reads the
// box and its image index, then runs an scf.for nest over the bin's
// sampling grid (a constant sampling_ratio, or ceil(box size / output
// size) computed per box) and bilinearly interpolates each sample the way
// ONNX Runtime (whose outputs are ONNX's test data) does: samples more than
// one pixel outside the image count as 0, the rest are clamped to the
// image; `avg` divides the sum by the grid size, `max` keeps the largest
// of each sample's weighted corner values. Image indices and every pixel
// read are clamped into X, so a bad box or index never reads outside it.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
struct RoiAlignLowering : OpConversionPattern<RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RoiAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!x || !result || !getStaticType(adaptor.getRois()) ||
        !getStaticType(adaptor.getBatchIndices()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Type t = x.getElementType();
    int64_t images = x.getDimSize(0), height = x.getDimSize(2),
            width = x.getDimSize(3);
    int64_t oh = op.getOutputHeight(), ow = op.getOutputWidth();
    int64_t ratio = op.getSamplingRatio();
    double scale = op.getSpatialScale().convertToDouble();
    bool halfPixel = op.getCoordinateTransformationMode() == "half_pixel";
    bool isMax = op.getMode() == "max";
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(), t);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    Value input = adaptor.getInput(), rois = adaptor.getRois(),
          batchIndices = adaptor.getBatchIndices();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ValueRange{}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          auto f = [&](double v) -> Value {
            return arith::ConstantOp::create(b, l, t, b.getFloatAttr(t, v));
          };
          auto idx = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          auto add = [&](Value p, Value q) -> Value {
            return arith::AddFOp::create(b, l, p, q);
          };
          auto sub = [&](Value p, Value q) -> Value {
            return arith::SubFOp::create(b, l, p, q);
          };
          auto mul = [&](Value p, Value q) -> Value {
            return arith::MulFOp::create(b, l, p, q);
          };
          auto div = [&](Value p, Value q) -> Value {
            return arith::DivFOp::create(b, l, p, q);
          };
          Value r = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value ph = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, 2));
          Value pw = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, 3));
          Value image = arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              tensor::ExtractOp::create(b, l, batchIndices, ValueRange{r}));
          image = arith::MaxSIOp::create(b, l, image, idx(0));
          image = arith::MinSIOp::create(b, l, image, idx(images - 1));
          auto box = [&](int64_t k) {
            Value v = tensor::ExtractOp::create(b, l, rois,
                                                ValueRange{r, idx(k)});
            if (v.getType() != t)
              v = v.getType().getIntOrFloatBitWidth() < t.getIntOrFloatBitWidth()
                      ? Value(arith::ExtFOp::create(b, l, t, v))
                      : Value(arith::TruncFOp::create(b, l, t, v));
            return sub(mul(v, f(scale)), f(halfPixel ? 0.5 : 0.0));
          };
          Value startW = box(0), startH = box(1);
          Value roiW = sub(box(2), startW), roiH = sub(box(3), startH);
          if (!halfPixel) {
            roiW = arith::MaximumFOp::create(b, l, roiW, f(1.0));
            roiH = arith::MaximumFOp::create(b, l, roiH, f(1.0));
          }
          Value binH = div(roiH, f(oh)), binW = div(roiW, f(ow));
          auto gridSize = [&](Value roi, int64_t out) -> Value {
            if (ratio > 0)
              return idx(ratio);
            Value g = math::CeilOp::create(b, l, div(roi, f(out)));
            g = arith::MaxNumFOp::create(b, l, g, f(0.0));
            return arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                arith::FPToSIOp::create(b, l, b.getI64Type(), g));
          };
          Value gridH = gridSize(roiH, oh), gridW = gridSize(roiW, ow);
          auto toFloat = [&](Value i) -> Value {
            Value i64 = i.getType().isIndex()
                            ? Value(arith::IndexCastOp::create(
                                  b, l, b.getI64Type(), i))
                            : i;
            return arith::SIToFPOp::create(b, l, t, i64);
          };
          Value baseH = add(startH, mul(toFloat(ph), binH));
          Value baseW = add(startW, mul(toFloat(pw), binW));
          Value stepH = div(binH, toFloat(gridH));
          Value stepW = div(binW, toFloat(gridW));
          Value acc0 = f(isMax ? -std::numeric_limits<double>::infinity() : 0.0);
          auto rows = scf::ForOp::create(
              b, l, idx(0), gridH, idx(1), ValueRange{acc0},
              [&](OpBuilder &, Location, Value iy, ValueRange outer) {
                Value yy = add(baseH, mul(add(toFloat(iy), f(0.5)), stepH));
                auto cols = scf::ForOp::create(
                    b, l, idx(0), gridW, idx(1), ValueRange{outer[0]},
                    [&](OpBuilder &, Location, Value ix, ValueRange inner) {
                      Value xx =
                          add(baseW, mul(add(toFloat(ix), f(0.5)), stepW));
                      auto cmp = [&](arith::CmpFPredicate p, Value a,
                                     double v) -> Value {
                        return arith::CmpFOp::create(b, l, p, a, f(v));
                      };
                      // Samples more than a pixel outside count as 0.
                      Value outside = arith::OrIOp::create(
                          b, l,
                          arith::OrIOp::create(
                              b, l, cmp(arith::CmpFPredicate::OLT, yy, -1.0),
                              cmp(arith::CmpFPredicate::OGT, yy, height)),
                          arith::OrIOp::create(
                              b, l, cmp(arith::CmpFPredicate::OLT, xx, -1.0),
                              cmp(arith::CmpFPredicate::OGT, xx, width)));
                      // low/high taps and weights along one dim.
                      auto taps = [&](Value v, int64_t size, Value &low,
                                      Value &high, Value &frac) {
                        v = arith::MaxNumFOp::create(b, l, v, f(0.0));
                        Value lo = math::FloorOp::create(
                            b, l, arith::MinNumFOp::create(b, l, v,
                                                           f(size - 1)));
                        Value last =
                            cmp(arith::CmpFPredicate::OGE, lo, size - 1);
                        v = arith::SelectOp::create(b, l, last, f(size - 1), v);
                        Value hi = arith::SelectOp::create(
                            b, l, last, f(size - 1), add(lo, f(1.0)));
                        frac = sub(v, lo);
                        auto toIndex = [&](Value p) -> Value {
                          return arith::IndexCastOp::create(
                              b, l, b.getIndexType(),
                              arith::FPToSIOp::create(b, l, b.getI64Type(),
                                                      p));
                        };
                        low = toIndex(lo);
                        high = toIndex(hi);
                      };
                      Value yl, yh, ly, xl, xh, lx;
                      taps(yy, height, yl, yh, ly);
                      taps(xx, width, xl, xh, lx);
                      Value hy = sub(f(1.0), ly), hx = sub(f(1.0), lx);
                      auto at = [&](Value y, Value xv) -> Value {
                        return tensor::ExtractOp::create(
                            b, l, input, ValueRange{image, c, y, xv});
                      };
                      Value v1 = mul(mul(hy, hx), at(yl, xl));
                      Value v2 = mul(mul(hy, lx), at(yl, xh));
                      Value v3 = mul(mul(ly, hx), at(yh, xl));
                      Value v4 = mul(mul(ly, lx), at(yh, xh));
                      Value sample;
                      if (isMax)
                        sample = arith::MaximumFOp::create(
                            b, l,
                            arith::MaximumFOp::create(
                                b, l, arith::MaximumFOp::create(b, l, v1, v2),
                                v3),
                            v4);
                      else
                        sample = add(add(v1, v2), add(v3, v4));
                      sample = arith::SelectOp::create(b, l, outside, f(0.0),
                                                       sample);
                      Value next =
                          isMax ? Value(arith::MaximumFOp::create(
                                      b, l, inner[0], sample))
                                : add(inner[0], sample);
                      scf::YieldOp::create(b, l, next);
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          Value count = arith::MulIOp::create(b, l, gridH, gridW);
          Value empty = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              count, idx(0));
          Value v = rows.getResult(0);
          if (!isMax)
            v = div(v, toFloat(arith::MaxSIOp::create(b, l, count, idx(1))));
          v = arith::SelectOp::create(b, l, empty, f(0.0), v);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphRoiAlignToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RoiAlignLowering>(patterns.getContext());
}
