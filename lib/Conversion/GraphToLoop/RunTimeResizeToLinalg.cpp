//===- RunTimeResizeToLinalg.cpp - Resize with scales read at run time ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Resize whose scales, sizes or roi are inputs of the model (ResizeToLinalg
// handles constant ones with tables built at compile time). The output dims
// are computed when the model runs (`floor(input * scale)`, or the sizes),
// checked (positive scales, sizes not negative, at most 4 GiB of data) and
// the output is allocated at that size. Each axis is then resized on its
// own, the innermost first as ONNX's reference nests its 1-D
// interpolations: one generic per axis computes, for every output position,
// the source coordinate in double precision with the same formulas as the
// compile-time tables, its taps (1 nearest, 2 linear, 4 cubic) and their
// weights, and sums weight x input. Antialiasing (opset 18) is refused with
// run-time scales.
//
//===----------------------------------------------------------------------===//

#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
enum class Mode { Nearest, Linear, Cubic };

/// f64 arithmetic in a generic's body.
struct F64 {
  OpBuilder &b;
  Location loc;
  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }

  /// The cubic convolution kernel with coefficient `a` at distance `x`.
  Value cubicWeight(Value x, double a) {
    x = math::AbsFOp::create(b, loc, x);
    Value x2 = mul(x, x);
    Value inner = add(mul(sub(mul(c(a + 2), x), c(a + 3)), x2), c(1));
    Value outer = sub(
        mul(add(mul(sub(mul(c(a), x), c(5 * a)), x), c(8 * a)), x), c(4 * a));
    return select(cmp(arith::CmpFPredicate::OLE, x, c(1)), inner,
                  select(cmp(arith::CmpFPredicate::OLT, x, c(2)), outer, c(0)));
  }

  /// The input coordinate of output index `x` (ResizeToLinalg's
  /// sourceCoordinate, on values).
  Value source(StringRef transform, Value x, Value scale, Value in, Value out,
               Value roiStart, Value roiEnd) {
    Value last = sub(in, c(1));
    Value halfPixel = sub(div(add(x, c(0.5)), scale), c(0.5));
    auto gt1 = cmp(arith::CmpFPredicate::OGT, out, c(1));
    if (transform == "half_pixel")
      return halfPixel;
    if (transform == "half_pixel_symmetric") {
      Value adjustment = div(out, mul(scale, in));
      Value offset = mul(mul(in, c(0.5)), sub(c(1), adjustment));
      return add(offset, halfPixel);
    }
    if (transform == "pytorch_half_pixel")
      return select(gt1, halfPixel, c(0));
    if (transform == "align_corners") {
      Value length = mul(scale, in);
      Value degenerate =
          arith::OrIOp::create(b, loc,
                               cmp(arith::CmpFPredicate::OEQ, out, c(1)),
                               cmp(arith::CmpFPredicate::OEQ, length, c(1)));
      return select(degenerate, c(0),
                    div(mul(x, last), sub(length, c(1))));
    }
    if (transform == "asymmetric")
      return div(x, scale);
    if (transform == "tf_half_pixel_for_nn")
      return div(add(x, c(0.5)), scale);
    // tf_crop_and_resize
    Value span = sub(roiEnd, roiStart);
    Value inside = add(mul(roiStart, last),
                       div(mul(mul(x, span), last), sub(out, c(1))));
    return select(gt1, inside,
                  mul(mul(c(0.5), add(roiStart, roiEnd)), last));
  }
};

struct RunTimeResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The input's dims may be known at run time only.
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    // Constant scales and sizes are ResizeToLinalg's.
    bool constantScales = !op.getScales() || getConstantFloats(op.getScales());
    bool constantSizes = !op.getSizes() || getConstantInts(op.getSizes());
    bool constantRoi = !op.getRoi() || getConstantFloats(op.getRoi());
    if (inputType.hasStaticShape() && resultType.hasStaticShape() &&
        constantScales && constantSizes && constantRoi)
      return rewriter.notifyMatchFailure(op, "constant scales and sizes");
    StringRef transform = op.getCoordinateTransformationMode();
    if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                             "pytorch_half_pixel", "align_corners",
                             "asymmetric", "tf_half_pixel_for_nn",
                             "tf_crop_and_resize"},
                            transform))
      return rewriter.notifyMatchFailure(op, "unknown transformation mode");
    if (op.getAntialias() || op.getSizesScales())
      return rewriter.notifyMatchFailure(
          op, "antialias and aspect-ratio policies need constant sizes");
    Mode mode = llvm::StringSwitch<Mode>(op.getMode())
                    .Case("linear", Mode::Linear)
                    .Case("cubic", Mode::Cubic)
                    .Default(Mode::Nearest);
    Type element = resultType.getElementType();
    bool isFloat = isa<FloatType>(element);
    if ((mode != Mode::Nearest || transform == "tf_crop_and_resize") &&
        !isFloat)
      return rewriter.notifyMatchFailure(op, "interpolates floats only");
    int64_t rank = inputType.getRank();
    Value scalesValue = op.getScales() ? adaptor.getScales() : Value();
    Value sizesValue = op.getSizes() ? adaptor.getSizes() : Value();
    auto lengthOf = [](Value v) {
      auto t = v ? getStaticType(v) : RankedTensorType();
      return t && t.getRank() == 1 ? t.getDimSize(0) : -1;
    };
    if (scalesValue && lengthOf(scalesValue) == 0)
      scalesValue = {};  // An empty scales input means "use sizes".
    if ((scalesValue ? lengthOf(scalesValue) : lengthOf(sizesValue)) != rank)
      return rewriter.notifyMatchFailure(op, "needs one scale or size per dim");
    if (transform == "tf_crop_and_resize" &&
        (!op.getRoi() || lengthOf(adaptor.getRoi()) != 2 * rank))
      return rewriter.notifyMatchFailure(op, "needs a roi of 2 x rank");

    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    F64 f{rewriter, loc};
    SmallVector<Value> dims, scales, roi;
    SmallVector<Value> inDims = getDimsI64(rewriter, loc, adaptor.getInput());
    for (int64_t d = 0; d < rank; ++d) {
      Value at = arith::ConstantIndexOp::create(rewriter, loc, d);
      Value in = toF64(rewriter, loc, inDims[d]);
      if (scalesValue) {
        Value scale = toF64(rewriter, loc, tensor::ExtractOp::create(
            rewriter, loc, scalesValue, ValueRange{at}));
        // Positive and small enough that the size fits: NaN fails too.
        Value size = math::FloorOp::create(rewriter, loc, f.mul(in, scale));
        c.require(f.cmp(arith::CmpFPredicate::OGT, scale, f.c(0)));
        c.require(f.cmp(arith::CmpFPredicate::OLT, size, f.c(0x1p40)));
        Value safe = f.select(c.ok, size, f.c(0));
        dims.push_back(arith::FPToSIOp::create(rewriter, loc,
                                               rewriter.getI64Type(), safe));
        scales.push_back(scale);
      } else {
        Value size = tensor::ExtractOp::create(rewriter, loc, sizesValue,
                                               ValueRange{at});
        c.require(c.cmp(arith::CmpIPredicate::sge, size, c.i64(0)));
        dims.push_back(size);
        Value out = arith::SIToFPOp::create(rewriter, loc,
                                            rewriter.getF64Type(), size);
        Value empty = f.cmp(arith::CmpFPredicate::OEQ, in, f.c(0));
        scales.push_back(f.div(out, f.select(empty, f.c(1), in)));
      }
    }
    if (transform == "tf_crop_and_resize")
      for (int64_t i = 0; i < 2 * rank; ++i)
        roi.push_back(toF64(rewriter, loc, tensor::ExtractOp::create(
            rewriter, loc, adaptor.getRoi(),
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, i)})));
    // An empty input has nothing to read from: only empty outputs.
    for (int64_t d = 0; d < rank; ++d)
      c.require(c.either(c.cmp(arith::CmpIPredicate::ne, inDims[d], c.i64(0)),
                         c.eq(dims[d], c.i64(0))));
    SmallVector<Value> outDims = checkedResultDims(
        c, resultType, dims,
        describe(op, "Resize") +
            ": its scales must be positive and its sizes not negative, for "
            "an output of at most 4 GiB");

    // The innermost axis first: each pass resizes one axis.
    Value current = adaptor.getInput();
    SmallVector<Value> currentDims;
    for (int64_t d = 0; d < rank; ++d)
      currentDims.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), inDims[d]));
    for (int64_t d = rank - 1; d >= 0; --d) {
      currentDims[d] = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), outDims[d]);
      current = resizeAxis(rewriter, loc, op, mode, current, currentDims, d,
                           inDims[d], outDims[d], scales[d],
                           roi.empty() ? Value() : roi[d],
                           roi.empty() ? Value() : roi[d + rank]);
    }
    rewriter.replaceOp(op, tensor::CastOp::create(rewriter, loc, resultType,
                                                  current));
    return success();
  }

  /// `current` resized along axis `d` (of input size `in`, i64) to `out`
  /// (i64) positions, the other axes of sizes `dims` (index).
  static Value resizeAxis(OpBuilder &rewriter, Location loc, ResizeOp op,
                          Mode mode, Value current, ArrayRef<Value> dims,
                          int64_t d, Value in, Value out, Value scale,
                          Value roiStart, Value roiEnd) {
    Value inF = toF64(rewriter, loc, in);
    Value last = arith::MaxSIOp::create(
        rewriter, loc,
        arith::SubIOp::create(rewriter, loc, in,
                              arith::ConstantIntOp::create(
                                  rewriter, loc, rewriter.getI64Type(), 1)),
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 0));
    auto sourceType = cast<RankedTensorType>(current.getType());
    int64_t rank = sourceType.getRank();
    Type element = sourceType.getElementType();
    SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
    auto type = RankedTensorType::get(shape, element);
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, element, dims);
    StringRef transform = op.getCoordinateTransformationMode();
    StringRef rounding = op.getNearestMode();
    double a = op.getCubicCoeffA().convertToDouble();
    bool exclude = op.getExcludeOutside();
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          F64 f{b, l};
          SmallVector<Value> at;
          for (int64_t k = 0; k < rank; ++k)
            at.push_back(linalg::IndexOp::create(b, l, k));
          Value outF = arith::SIToFPOp::create(b, l, b.getF64Type(), out);
          Value s = f.source(transform, toF64(b, l, at[d]), scale, inF, outF,
                             roiStart, roiEnd);
          Value base = math::FloorOp::create(b, l, s);
          Value t = f.sub(s, base);
          auto toIndex = [&](Value v) -> Value {
            Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), v);
            return i;
          };
          // An i64 input index clamped into the input, as an index value.
          auto clamp = [&](Value i) -> Value {
            Value lo = arith::ConstantIntOp::create(b, l, b.getI64Type(), 0);
            Value v = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, i, lo), last);
            return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
          };
          auto read = [&](Value index) -> Value {
            SmallVector<Value> where(at);
            where[d] = index;
            return tensor::ExtractOp::create(b, l, current, where);
          };
          Value i0 = toIndex(base);
          Value result;
          if (mode == Mode::Nearest) {
            Value half = f.cmp(arith::CmpFPredicate::OEQ, t, f.c(0.5));
            Value rounded = toIndex(math::RoundOp::create(b, l, s));
            Value one = arith::ConstantIntOp::create(b, l, b.getI64Type(), 1);
            Value i =
                rounding == "floor" ? i0
                : rounding == "ceil"
                    ? toIndex(math::CeilOp::create(b, l, s))
                : rounding == "round_prefer_ceil"
                    ? Value(arith::SelectOp::create(
                          b, l, half, arith::AddIOp::create(b, l, i0, one),
                          rounded))
                    : Value(arith::SelectOp::create(b, l, half, i0, rounded));
            result = read(clamp(i));
          } else {
            SmallVector<Value> weights;
            Value first = i0;
            if (mode == Mode::Linear) {
              weights = {f.sub(f.c(1), t), t};
            } else {
              weights = {f.cubicWeight(f.add(t, f.c(1)), a),
                         f.cubicWeight(t, a),
                         f.cubicWeight(f.sub(f.c(1), t), a),
                         f.cubicWeight(f.sub(f.c(2), t), a)};
              first = arith::SubIOp::create(
                  b, l, i0,
                  arith::ConstantIntOp::create(b, l, b.getI64Type(), 1));
            }
            SmallVector<Value> taps;
            for (int64_t k = 0; k < static_cast<int64_t>(weights.size()); ++k)
              taps.push_back(arith::AddIOp::create(
                  b, l, first,
                  arith::ConstantIntOp::create(b, l, b.getI64Type(), k)));
            if (mode == Mode::Cubic && exclude) {
              // Taps outside the input weigh 0; the rest are renormalized.
              Value sum = f.c(0);
              for (auto [k, w] : llvm::enumerate(weights)) {
                Value inside = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(
                        b, l, arith::CmpIPredicate::sge, taps[k],
                        arith::ConstantIntOp::create(b, l, b.getI64Type(), 0)),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                          taps[k], in));
                w = f.select(inside, w, f.c(0));
                sum = f.add(sum, w);
              }
              Value nonzero = f.cmp(arith::CmpFPredicate::ONE, sum, f.c(0));
              for (Value &w : weights)
                w = f.select(nonzero, f.div(w, sum), f.c(0));
            }
            for (auto [k, w] : llvm::enumerate(weights)) {
              Value weight = fromF64(b, l, w, element);
              Value term =
                  arith::MulFOp::create(b, l, weight, read(clamp(taps[k])));
              result = result ? Value(arith::AddFOp::create(b, l, result, term))
                              : term;
            }
          }
          if (transform == "tf_crop_and_resize") {
            Value outside = arith::OrIOp::create(
                b, l, f.cmp(arith::CmpFPredicate::OLT, s, f.c(0)),
                f.cmp(arith::CmpFPredicate::OGT, s, f.sub(inF, f.c(1))));
            Value fill = arith::ConstantOp::create(
                b, l, element, b.getFloatAttr(element, extrapolation));
            result = arith::SelectOp::create(b, l, outside, fill, result);
          }
          linalg::YieldOp::create(b, l, result);
        });
    return generic.getResult(0);
  }
};
} // namespace

void mlc::populateGraphRunTimeResizeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RunTimeResizeLowering>(patterns.getContext());
}
