//===- ResizeToLinalg.cpp - ONNX Resize and Upsample ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Resize and Upsample, for every shape. Every axis is resized independently
// (ONNX defines N-D interpolation as the product of 1-D ones); where each
// output index of an axis reads from follows from the axis' sizes, scale and
// roi by ResizeMath.h's formulas (the ONNX reference's, in double
// precision): 1 tap for nearest, 2 for linear, 4 for cubic, and with opset
// 18's `antialias` as many as the filter stretched by 1 / scale reaches when
// downsampling.
//
// When the shapes are static and the scales, sizes and roi constants, the
// formulas are evaluated at compile time into small constant tables of the
// taps' input indices and weights, and one generic over the output looks
// its taps up and sums weight * input over their product (or, when that
// product is large, as for antialiased downsampling, one generic per
// resized axis). Axes that map every output index onto the same input index
// (N and C in a spatial resize) read through directly.
//
// When any of them is known at run time only (scales, sizes or roi that are
// inputs, an input of run-time size), the output dims are computed when the
// model runs (`floor(input * scale)`, or the sizes), checked (positive
// scales, sizes not negative, at most 4 GiB of data), and each axis is
// resized by one generic, the innermost first as the reference nests its
// 1-D interpolations, whose body evaluates the same formulas on f64 values.
// Antialiasing (whose tap count depends on the scale) needs constant scales.
//
// Taps outside the input are clamped onto its edge (the reference pads with
// edge values); `exclude_outside` gives them weight 0 and renormalizes the
// rest; `tf_crop_and_resize` positions outside the input read
// `extrapolation_value`.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ResizeMath.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
using Mode = ResizeMode;

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

/// Above this many taps per output (the product over the resized axes:
/// 4 x 4 for a 2-D cubic resize, 20 x 20 for a 2-D antialiased linear one
/// at a tenth of the size) the axes are resized one after the other.
constexpr int64_t kMaxJointTaps = 16;

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isKnownTransform(op.getCoordinateTransformationMode()))
      return rewriter.notifyMatchFailure(op, "unknown transformation mode");
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    bool constantScales = !op.getScales() || getConstantFloats(op.getScales());
    bool constantSizes = !op.getSizes() || getConstantInts(op.getSizes());
    bool constantRoi = !op.getRoi() || getConstantFloats(op.getRoi());
    if (!inputType || !resultType || !constantScales || !constantSizes ||
        !constantRoi)
      return lowerAtRunTime(op, adaptor, rewriter);
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
    ConstantMath m;
    StringRef rounding = op.getNearestMode();
    bool exclude = op.getExcludeOutside();
    for (int64_t x = 0; x < out; ++x) {
      double s = sourceCoordinate(m, transform, x, scale, in, out, roiStart,
                                  roiEnd);
      bool outside = transform == "tf_crop_and_resize" && isOutside(m, s, in);
      axis.outside.push_back(outside);
      axis.anyOutside |= outside;
      SmallVector<double, 4> w;
      int64_t first;
      if (op.getAntialias() && mode != Mode::Nearest) {
        antialiasTaps(mode, a, scale, s, first, w);
        axis.taps = static_cast<int64_t>(w.size());
        if (exclude) {
          double sum = 0;
          for (int64_t k = 0, e = w.size(); k < e; ++k) {
            if (first + k < 0 || first + k > in - 1)
              w[k] = 0;
            sum += w[k];
          }
          for (double &v : w)
            v = sum != 0 ? v / sum : 0;
        }
      } else {
        ResizeTaps<ConstantMath> taps =
            resizeTaps(m, mode, rounding, a, exclude, s, in);
        first = static_cast<int64_t>(taps.first);
        w.assign(taps.weights.begin(), taps.weights.end());
      }
      if (mode == Mode::Nearest) {
        axis.index.push_back(clamp(first));
        axis.weight.push_back(1.0f);
        axis.direct &= !outside && clamp(first) == x;
        continue;
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
    ConstantMath m;
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
                                      : cubicWeight(m, x, a);
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

  /// Resize with sizes, scales or roi known at run time only: per-axis
  /// generics that evaluate the coordinate formulas on f64 values.
  static LogicalResult lowerAtRunTime(ResizeOp op, OpAdaptor adaptor,
                                      ConversionPatternRewriter &rewriter) {
    // The input's dims may be known at run time only.
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    StringRef transform = op.getCoordinateTransformationMode();
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
    ValueMath f{rewriter, loc};
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
          ValueMath f{b, l};
          SmallVector<Value> at;
          for (int64_t k = 0; k < rank; ++k)
            at.push_back(linalg::IndexOp::create(b, l, k));
          Value outF = arith::SIToFPOp::create(b, l, b.getF64Type(), out);
          Value s = sourceCoordinate(f, transform, toF64(b, l, at[d]), scale,
                                     inF, outF, roiStart, roiEnd);
          ResizeTaps<ValueMath> taps =
              resizeTaps(f, mode, rounding, a, exclude, s, inF);
          Value first =
              arith::FPToSIOp::create(b, l, b.getI64Type(), taps.first);
          Value result;
          for (auto [k, w] : llvm::enumerate(taps.weights)) {
            // The tap's input index, clamped into the input.
            Value i = arith::AddIOp::create(
                b, l, first,
                arith::ConstantIntOp::create(b, l, b.getI64Type(), k));
            Value lo = arith::ConstantIntOp::create(b, l, b.getI64Type(), 0);
            i = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, i, lo),
                                       last);
            SmallVector<Value> where(at);
            where[d] = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
            Value v = tensor::ExtractOp::create(b, l, current, where);
            if (mode == Mode::Nearest) {
              result = v;
              break;
            }
            Value term = arith::MulFOp::create(b, l, fromF64(b, l, w, element),
                                               v);
            result = result ? Value(arith::AddFOp::create(b, l, result, term))
                            : term;
          }
          if (transform == "tf_crop_and_resize") {
            Value fill = arith::ConstantOp::create(
                b, l, element, b.getFloatAttr(element, extrapolation));
            result = arith::SelectOp::create(b, l, isOutside(f, s, inF), fill,
                                             result);
          }
          linalg::YieldOp::create(b, l, result);
        });
    return generic.getResult(0);
  }
};
} // namespace

void mlc::populateGraphResizeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(patterns.getContext());
}
