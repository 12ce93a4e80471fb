//===- ResizeToLinalg.cpp - ONNX Resize and Upsample ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Resize with static shapes and constant scales, sizes and roi. Every axis
// is resized independently (ONNX defines N-D interpolation as the product of
// 1-D ones), so where each output index reads from is known at compile time:
// this lowering computes, per resized axis, the input indices and weights of
// the taps of every output position (1 tap for nearest, 2 for linear, 4 for
// cubic, and with opset 18's `antialias` as many as the filter stretched by
// 1 / scale reaches when downsampling), in double precision following the
// ONNX reference implementation, and stores them as small constant tables.
// The result is one generic over the output whose body looks its taps up
// and sums weight * input over their product, or, when that product is
// large (antialiased downsampling), one generic per resized axis. Axes that
// map every output index onto the same input index (N and C in a spatial
// resize) read through directly.
//
// Taps outside the input are clamped onto its edge (the reference pads with
// edge values); `exclude_outside` gives them weight 0 and renormalizes the
// rest; `tf_crop_and_resize` positions outside the input read
// `extrapolation_value`.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getConstantFloats;
using mlc::detail::getStaticType;

namespace {
enum class Mode { Nearest, Linear, Cubic };

/// Where the output positions of one axis read from.
struct AxisTaps {
  /// Every output index i reads input index i with weight 1.
  bool direct = true;
  int64_t taps = 1;
  /// [output][tap] input index, already clamped into the input.
  SmallVector<int32_t> index;
  /// [output][tap] weight (unused for nearest).
  SmallVector<float> weight;
  /// [output] the position lies outside the input (tf_crop_and_resize).
  SmallVector<bool> outside;
  bool anyOutside = false;
};

double cubicWeight(double x, double a) {
  x = std::fabs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/// The input coordinate of output index `x` on an axis, or a failure
/// message for an unknown transformation mode.
FailureOr<double> sourceCoordinate(StringRef transform, double x, double scale,
                                   int64_t in, int64_t out, double roiStart,
                                   double roiEnd) {
  if (transform == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (transform == "half_pixel_symmetric") {
    double adjustment = out / (scale * in);
    double offset = in / 2.0 * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (transform == "pytorch_half_pixel")
    return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  // The resized length here is scale * in, not the floored output size
  // (they differ when scales are given), as in ONNX's reference.
  if (transform == "align_corners")
    return out == 1 || scale * in == 1 ? 0.0 : x * (in - 1) / (scale * in - 1);
  if (transform == "asymmetric")
    return x / scale;
  if (transform == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (transform == "tf_crop_and_resize")
    return out > 1 ? roiStart * (in - 1) +
                         x * (roiEnd - roiStart) * (in - 1) / (out - 1)
                   : 0.5 * (roiStart + roiEnd) * (in - 1);
  return failure();
}

/// Above this many taps per output (the product over the resized axes:
/// 4 x 4 for a 2-D cubic resize, 20 x 20 for a 2-D antialiased linear one
/// at a tenth of the size) the axes are resized one after the other.
constexpr int64_t kMaxJointTaps = 16;

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = inputType.getRank();
    Mode mode = llvm::StringSwitch<Mode>(op.getMode())
                    .Case("linear", Mode::Linear)
                    .Case("cubic", Mode::Cubic)
                    .Default(Mode::Nearest);
    Type element = resultType.getElementType();
    if (mode != Mode::Nearest && !isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "interpolates floats only");

    // The scale of each axis: given, or output / input size with sizes.
    SmallVector<double> scales;
    if (op.getScales()) {
      auto given = getConstantFloats(op.getScales());
      if (!given)
        return rewriter.notifyMatchFailure(op, "needs constant scales");
      scales = *given;
    }
    if (scales.empty() && op.getSizesScales()) {
      ArrayRef<double> given = *op.getSizesScales();
      scales.assign(given.begin(), given.end());
    }
    if (scales.empty()) {
      for (int64_t d = 0; d < rank; ++d)
        scales.push_back(static_cast<double>(resultType.getDimSize(d)) /
                         inputType.getDimSize(d));
    }
    if (static_cast<int64_t>(scales.size()) != rank)
      return rewriter.notifyMatchFailure(op, "scales do not match the rank");
    StringRef transform = op.getCoordinateTransformationMode();
    SmallVector<double> roi;
    if (transform == "tf_crop_and_resize") {
      auto given = getConstantFloats(op.getRoi());
      if (!given || static_cast<int64_t>(given->size()) != 2 * rank)
        return rewriter.notifyMatchFailure(op, "needs a constant roi");
      roi = *given;
    }

    SmallVector<AxisTaps> axes(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (failed(planAxis(op, mode, transform, d, inputType.getDimSize(d),
                          resultType.getDimSize(d), scales[d],
                          roi.empty() ? 0.0 : roi[d],
                          roi.empty() ? 1.0 : roi[d + rank], axes[d])))
        return rewriter.notifyMatchFailure(op, "unknown transformation mode");
      if (axes[d].anyOutside && !isa<FloatType>(element))
        return rewriter.notifyMatchFailure(op, "extrapolates floats only");
    }
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    int64_t product = 1;
    for (const AxisTaps &axis : axes)
      if (!axis.direct)
        product *= axis.taps;
    if (product <= kMaxJointTaps) {
      rewriter.replaceOp(op, build(rewriter, op.getLoc(), mode,
                                   adaptor.getInput(), resultType, axes,
                                   extrapolation));
      return success();
    }
    // One axis at a time, the innermost first (as the reference nests its
    // 1-D interpolations): taps add up instead of multiplying.
    Value current = adaptor.getInput();
    SmallVector<int64_t> shape(inputType.getShape());
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (axes[d].direct)
        continue;
      shape[d] = resultType.getDimSize(d);
      SmallVector<AxisTaps> one(rank);
      one[d] = axes[d];
      current = build(rewriter, op.getLoc(), mode, current,
                      RankedTensorType::get(shape, element), one,
                      extrapolation);
    }
    rewriter.replaceOp(op, current);
    return success();
  }

  static LogicalResult planAxis(ResizeOp op, Mode mode, StringRef transform,
                                int64_t d, int64_t in, int64_t out,
                                double scale, double roiStart, double roiEnd,
                                AxisTaps &axis) {
    axis.taps = mode == Mode::Nearest ? 1 : mode == Mode::Linear ? 2 : 4;
    double a = op.getCubicCoeffA().convertToDouble();
    auto clamp = [&](int64_t i) {
      return static_cast<int32_t>(std::clamp<int64_t>(i, 0, in - 1));
    };
    for (int64_t x = 0; x < out; ++x) {
      FailureOr<double> source =
          sourceCoordinate(transform, x, scale, in, out, roiStart, roiEnd);
      if (failed(source))
        return failure();
      double s = *source;
      bool outside =
          transform == "tf_crop_and_resize" && (s < 0 || s > in - 1);
      axis.outside.push_back(outside);
      axis.anyOutside |= outside;
      double base = std::floor(s);
      double t = s - base;
      auto i0 = static_cast<int64_t>(base);
      if (mode == Mode::Nearest) {
        StringRef rounding = op.getNearestMode();
        int64_t i = rounding == "floor"  ? i0
                    : rounding == "ceil" ? static_cast<int64_t>(std::ceil(s))
                    : t == 0.5 ? (rounding == "round_prefer_ceil" ? i0 + 1 : i0)
                               : static_cast<int64_t>(std::round(s));
        axis.index.push_back(clamp(i));
        axis.weight.push_back(1.0f);
        axis.direct &= !outside && clamp(i) == x;
        continue;
      }
      SmallVector<double, 4> w;
      int64_t first;
      if (op.getAntialias()) {
        antialiasTaps(mode, a, scale, s, first, w);
        axis.taps = static_cast<int64_t>(w.size());
      } else if (mode == Mode::Linear) {
        w = {1 - t, t};
        first = i0;
      } else {
        w = {cubicWeight(t + 1, a), cubicWeight(t, a), cubicWeight(1 - t, a),
             cubicWeight(2 - t, a)};
        first = i0 - 1;
      }
      if (mode == Mode::Cubic || op.getAntialias())
        if (op.getExcludeOutside()) {
          double sum = 0;
          for (int64_t k = 0, e = w.size(); k < e; ++k) {
            if (first + k < 0 || first + k > in - 1)
              w[k] = 0;
            sum += w[k];
          }
          for (double &v : w)
            v = sum != 0 ? v / sum : 0;
        }
      bool direct = !outside;
      for (int64_t k = 0; k < axis.taps; ++k) {
        axis.index.push_back(clamp(first + k));
        axis.weight.push_back(static_cast<float>(w[k]));
        // Direct: the whole weight on input index x.
        direct &= w[k] == 0 || (w[k] == 1 && clamp(first + k) == x);
      }
      axis.direct &= direct;
    }
    axis.direct &= in == out;
    return success();
  }

  /// The taps of opset 18's antialiasing filter at source coordinate `s`:
  /// the linear (triangle) or cubic kernel stretched by 1 / scale when
  /// downsampling (scale < 1), over the input indices it reaches, with
  /// weights that sum to 1. As in ONNX's reference, the taps are counted
  /// from the input index left of `s` (the one below it when `s` is an
  /// integer), and their number depends on the scale only: every output
  /// position of an axis has the same number of taps.
  static void antialiasTaps(Mode mode, double a, double scale, double s,
                            int64_t &first, SmallVector<double, 4> &w) {
    double stretch = std::min(scale, 1.0);
    double base = std::floor(s);
    double ratio = s - base;
    if (ratio == 0) {
      ratio = 1;
      base -= 1;
    }
    // Offsets [start, 1 - start] reach the kernel's support of 1 (linear)
    // or 2 (cubic) input steps, each 1 / stretch wide.
    double support = mode == Mode::Linear ? 1.0 : 2.0;
    auto start = static_cast<int64_t>(std::floor(-support / stretch) + 1);
    first = static_cast<int64_t>(base) + start;
    w.clear();
    double sum = 0;
    for (int64_t i = start; i <= 1 - start; ++i) {
      double x = (static_cast<double>(i) - ratio) * stretch;
      double v = mode == Mode::Linear ? std::clamp(1 - std::fabs(x), 0.0, 1.0)
                                      : cubicWeight(x, a);
      w.push_back(v);
      sum += v;
    }
    for (double &v : w)
      v = sum != 0 ? v / sum : 0;
  }

  /// A constant table of `values` with shape [out, taps].
  template <typename T>
  static Value table(OpBuilder &b, Location loc, Type element, int64_t out,
                     int64_t taps, ArrayRef<T> values) {
    auto type = RankedTensorType::get({out, taps}, element);
    return arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, values));
  }

  static Value build(OpBuilder &rewriter, Location loc, Mode mode, Value input,
                     RankedTensorType resultType, ArrayRef<AxisTaps> axes,
                     double extrapolation) {
    int64_t rank = resultType.getRank();
    Type element = resultType.getElementType();
    Type i32 = rewriter.getI32Type();
    // The tables, built outside the generic.
    SmallVector<Value> indexTables(rank), weightTables(rank), outsideTables(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const AxisTaps &axis = axes[d];
      if (axis.direct)
        continue;
      int64_t out = resultType.getDimSize(d);
      indexTables[d] = table<int32_t>(rewriter, loc, i32, out, axis.taps,
                                      axis.index);
      if (mode != Mode::Nearest) {
        SmallVector<APFloat> weights;
        for (float w : axis.weight) {
          APFloat v(w);
          bool lost;
          v.convert(cast<FloatType>(element).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &lost);
          weights.push_back(v);
        }
        weightTables[d] = table<APFloat>(rewriter, loc, element, out,
                                         axis.taps, weights);
      }
      if (axis.anyOutside)
        outsideTables[d] = table<bool>(rewriter, loc, rewriter.getI1Type(), out,
                                       1, axis.outside);
    }

    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         element);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{}, init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          auto cstIndex = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          SmallVector<Value> positions;
          for (int64_t d = 0; d < rank; ++d)
            positions.push_back(linalg::IndexOp::create(b, l, d));
          // Per axis: the taps' input indices and weights.
          SmallVector<SmallVector<Value, 4>> tapIndex(rank), tapWeight(rank);
          Value outside;
          for (int64_t d = 0; d < rank; ++d) {
            if (axes[d].direct) {
              tapIndex[d].push_back(positions[d]);
              continue;
            }
            for (int64_t k = 0; k < axes[d].taps; ++k) {
              Value at[] = {positions[d], cstIndex(k)};
              Value i = tensor::ExtractOp::create(b, l, indexTables[d], at);
              tapIndex[d].push_back(
                  arith::IndexCastOp::create(b, l, b.getIndexType(), i));
              if (weightTables[d])
                tapWeight[d].push_back(
                    tensor::ExtractOp::create(b, l, weightTables[d], at));
            }
            if (outsideTables[d]) {
              Value at[] = {positions[d], cstIndex(0)};
              Value o = tensor::ExtractOp::create(b, l, outsideTables[d], at);
              outside = outside ? Value(arith::OrIOp::create(b, l, outside, o))
                                : o;
            }
          }
          // Sum over the product of the axes' taps.
          Value sum;
          SmallVector<int64_t> tap(rank, 0);
          while (true) {
            SmallVector<Value> at;
            Value weight;
            for (int64_t d = 0; d < rank; ++d) {
              at.push_back(tapIndex[d][tap[d]]);
              if (!tapWeight[d].empty())
                weight = weight ? Value(arith::MulFOp::create(
                                      b, l, weight, tapWeight[d][tap[d]]))
                                : tapWeight[d][tap[d]];
            }
            Value v = tensor::ExtractOp::create(b, l, input, at);
            if (weight)
              v = arith::MulFOp::create(b, l, weight, v);
            sum = sum ? Value(arith::AddFOp::create(b, l, sum, v)) : v;
            int64_t d = rank - 1;
            while (d >= 0 && ++tap[d] == static_cast<int64_t>(tapIndex[d].size()))
              tap[d--] = 0;
            if (d < 0)
              break;
          }
          if (outside) {
            Value fill = arith::ConstantOp::create(
                b, l, element, b.getFloatAttr(element, extrapolation));
            sum = arith::SelectOp::create(b, l, outside, fill, sum);
          }
          linalg::YieldOp::create(b, l, sum);
        });
    return generic.getResult(0);
  }
};
} // namespace

void mlc::populateGraphResizeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(patterns.getContext());
}
