//===- GridSampleToLinalg.cpp - ONNX GridSample ---------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// GridSample as one generic over the result [N, C, Ho, Wo] whose body reads
// its grid point, maps it to input pixel coordinates and interpolates the
// input taps it needs (1 nearest, 4 bilinear, 16 bicubic with A = -0.75).
// Coordinates follow ONNX (and PyTorch's grid_sampler_2d, which its test
// data comes from):
//   x = align_corners ? (gx + 1) / 2 * (W - 1) : ((gx + 1) * W - 1) / 2
// `border` clamps coordinates into the image, `reflection` mirrors them at
// the edges (the pixel centers with align_corners, else the outer edges)
// and then clamps; `zeros` reads 0 outside. Nearest and bilinear pad the
// sampling point, bicubic pads each tap. Every read is bounds-checked, so
// a grid point anywhere (even NaN) never reads outside X.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
enum class Padding { Zeros, Border, Reflection };

/// The arithmetic of one sampling point, in the result's float type.
struct Sampler {
  OpBuilder &b;
  Location loc;
  Type t;
  Padding padding;
  bool alignCorners;
  Value input, n, c;
  int64_t height, width;

  Value cst(double v) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }

  Value unnormalize(Value coord, int64_t size) {
    Value plusOne = add(coord, cst(1.0));
    if (alignCorners)
      return mul(plusOne, cst((size - 1) / 2.0));
    return mul(sub(mul(plusOne, cst(size)), cst(1.0)), cst(0.5));
  }

  Value clip(Value v, int64_t size) {
    v = arith::MaximumFOp::create(b, loc, v, cst(0.0));
    return arith::MinimumFOp::create(b, loc, v, cst(size - 1));
  }

  /// Mirrors v into [twiceLow / 2, twiceHigh / 2].
  Value reflect(Value v, int64_t twiceLow, int64_t twiceHigh) {
    if (twiceLow == twiceHigh)
      return cst(0.0);
    double min = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
    Value in = math::AbsFOp::create(b, loc, sub(v, cst(min)));
    Value extra = arith::RemFOp::create(b, loc, in, cst(span));
    Value flips = math::FloorOp::create(
        b, loc, arith::DivFOp::create(b, loc, in, cst(span)));
    Value half = math::FloorOp::create(b, loc, mul(flips, cst(0.5)));
    Value even = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                       mul(half, cst(2.0)), flips);
    return arith::SelectOp::create(b, loc, even, add(extra, cst(min)),
                                   add(sub(cst(span), extra), cst(min)));
  }

  /// Padding applied to a coordinate along a dim of `size`.
  Value pad(Value v, int64_t size) {
    if (padding == Padding::Border)
      return clip(v, size);
    if (padding == Padding::Reflection) {
      v = alignCorners ? reflect(v, 0, 2 * (size - 1))
                       : reflect(v, -1, 2 * size - 1);
      return clip(v, size);
    }
    return v;
  }

  /// X[n, c, y, x] for integer-valued float coordinates, 0 outside.
  Value read(Value x, Value y) {
    Type i64 = b.getI64Type();
    auto toIndex = [&](Value v, int64_t size, Value &inside) {
      Value inRange = arith::AndIOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v,
                                cst(0.0)),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v,
                                cst(size - 1)));
      inside = inside ? Value(arith::AndIOp::create(b, loc, inside, inRange))
                      : inRange;
      // Clamped (NaN becomes 0) so that the read itself is always in range.
      Value clamped = arith::MinimumFOp::create(
          b, loc, arith::MaximumFOp::create(b, loc, v, cst(0.0)),
          cst(size - 1));
      clamped = arith::SelectOp::create(b, loc, inRange, clamped, cst(0.0));
      return arith::IndexCastOp::create(
          b, loc, b.getIndexType(), arith::FPToSIOp::create(b, loc, i64, clamped));
    };
    Value inside;
    Value xi = toIndex(x, width, inside);
    Value yi = toIndex(y, height, inside);
    Value v = tensor::ExtractOp::create(b, loc, input,
                                        ValueRange{n, c, yi, xi});
    return arith::SelectOp::create(b, loc, inside, v, cst(0.0));
  }

  /// Bicubic weights of the four taps around fraction t (A = -0.75).
  SmallVector<Value, 4> cubicWeights(Value t) {
    const double a = -0.75;
    auto near = [&](Value x) { // |x| <= 1
      return add(mul(mul(sub(mul(cst(a + 2), x), cst(a + 3)), x), x),
                 cst(1.0));
    };
    auto far = [&](Value x) { // 1 < |x| < 2
      return sub(mul(add(mul(sub(mul(cst(a), x), cst(5 * a)), x), cst(8 * a)),
                     x),
                 cst(4 * a));
    };
    return {far(add(t, cst(1.0))), near(t), near(sub(cst(1.0), t)),
            far(sub(cst(2.0), t))};
  }
};

struct GridSampleLowering : OpConversionPattern<GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto grid = getStaticType(adaptor.getGrid());
    auto result = getStaticType(op.getResult());
    if (!x || !grid || !result || x.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static 2-D sampling");
    StringRef mode = op.getMode();
    Padding padding = llvm::StringSwitch<Padding>(op.getPaddingMode())
                          .Case("border", Padding::Border)
                          .Case("reflection", Padding::Reflection)
                          .Default(Padding::Zeros);
    Location loc = op.getLoc();
    Type t = result.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(), t);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    Value input = adaptor.getInput(), gridValue = adaptor.getGrid();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ValueRange{}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value h = linalg::IndexOp::create(b, l, 2);
          Value w = linalg::IndexOp::create(b, l, 3);
          Sampler s{b,     l, t, padding, op.getAlignCorners(), input, n, c,
                    x.getDimSize(2), x.getDimSize(3)};
          auto gridAt = [&](int64_t k) {
            Value v = tensor::ExtractOp::create(
                b, l, gridValue,
                ValueRange{n, h, w, arith::ConstantIndexOp::create(b, l, k)});
            if (v.getType() == t)
              return v;
            return v.getType().getIntOrFloatBitWidth() < t.getIntOrFloatBitWidth()
                       ? Value(arith::ExtFOp::create(b, l, t, v))
                       : Value(arith::TruncFOp::create(b, l, t, v));
          };
          Value ix = s.unnormalize(gridAt(0), s.width);
          Value iy = s.unnormalize(gridAt(1), s.height);
          Value v;
          if (mode == "bicubic") {
            Value x0 = math::FloorOp::create(b, l, ix);
            Value y0 = math::FloorOp::create(b, l, iy);
            auto wx = s.cubicWeights(s.sub(ix, x0));
            auto wy = s.cubicWeights(s.sub(iy, y0));
            v = s.cst(0.0);
            for (int i = 0; i < 4; ++i) {
              Value yt = s.pad(s.add(y0, s.cst(i - 1)), s.height);
              Value row = s.cst(0.0);
              for (int j = 0; j < 4; ++j) {
                Value xt = s.pad(s.add(x0, s.cst(j - 1)), s.width);
                row = s.add(row, s.mul(wx[j], s.read(xt, yt)));
              }
              v = s.add(v, s.mul(wy[i], row));
            }
          } else {
            ix = s.pad(ix, s.width);
            iy = s.pad(iy, s.height);
            if (mode == "nearest") {
              v = s.read(math::RoundEvenOp::create(b, l, ix),
                         math::RoundEvenOp::create(b, l, iy));
            } else {
              Value x0 = math::FloorOp::create(b, l, ix);
              Value y0 = math::FloorOp::create(b, l, iy);
              Value x1 = s.add(x0, s.cst(1.0)), y1 = s.add(y0, s.cst(1.0));
              Value tx = s.sub(ix, x0), ty = s.sub(iy, y0);
              Value ux = s.sub(s.cst(1.0), tx), uy = s.sub(s.cst(1.0), ty);
              v = s.add(s.add(s.mul(s.mul(ux, uy), s.read(x0, y0)),
                              s.mul(s.mul(tx, uy), s.read(x1, y0))),
                        s.add(s.mul(s.mul(ux, ty), s.read(x0, y1)),
                              s.mul(s.mul(tx, ty), s.read(x1, y1))));
            }
          }
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphGridSampleToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(patterns.getContext());
}
