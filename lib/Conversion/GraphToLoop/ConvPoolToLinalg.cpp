//===- ConvPoolToLinalg.cpp - Convolution, pooling, batch norm ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// 2-D NCHW convolution (plain, depthwise and grouped), max/average pooling
// and global average pooling to linalg named ops and generics (batch
// normalization and LRN: NormalizationToLinalg.cpp). Padding is an explicit tensor.pad; auto_pad and
// ceil_mode are resolved to explicit pads from the static shapes.
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "LoweringUtils.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::channelwise;
using mlc::detail::getStaticType;
using mlc::detail::static4d;

namespace {
/// The explicit pads of the spatial dims (all begins, then all ends, as
/// ONNX orders them), with auto_pad and ceil_mode resolved against the
/// static input.
FailureOr<SmallVector<int64_t, 4>>
resolvePads(RankedTensorType input, ArrayRef<int64_t> kernel,
            ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
            std::optional<ArrayRef<int64_t>> pads, AutoPad autoPad,
            bool ceilMode) {
  size_t spatial = kernel.size();
  if (strides.size() != spatial || dilations.size() != spatial ||
      (pads && pads->size() != 2 * spatial) ||
      input.getRank() != static_cast<int64_t>(spatial) + 2)
    return failure();
  SmallVector<int64_t, 4> out(2 * spatial, 0);
  for (size_t i = 0; i < spatial; ++i) {
    WindowDim dim;
    dim.input = input.getDimSize(i + 2);
    dim.kernel = kernel[i];
    dim.stride = strides[i];
    dim.dilation = dilations[i];
    dim.padBegin = pads ? (*pads)[i] : 0;
    dim.padEnd = pads ? (*pads)[i + spatial] : 0;
    auto r = computeWindowDim(dim, getWindowPadding(autoPad), ceilMode);
    if (!r) {
      llvm::consumeError(r.takeError());
      return failure();
    }
    out[i] = r->padBegin;
    // ceil_mode: pad the end so that the last window fits.
    int64_t effective = (kernel[i] - 1) * dilations[i] + 1;
    int64_t needed =
        (r->output - 1) * strides[i] + effective - dim.input - r->padBegin;
    out[i + spatial] = std::max(r->padEnd, needed);
  }
  return out;
}

/// `input` padded on its spatial dims (all but the first two) with
/// `fillValue` (an element value); `pads` as resolvePads returns them.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, Value fill) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  size_t spatial = pads.size() / 2;
  SmallVector<int64_t> low(2, 0), high(2, 0);
  llvm::append_range(low, pads.take_front(spatial));
  llvm::append_range(high, pads.drop_front(spatial));
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 2; i < shape.size(); ++i)
    shape[i] += low[i] + high[i];
  return tensor::PadOp::create(
             b, loc, RankedTensorType::get(shape, type.getElementType()), input,
             getAsIndexOpFoldResult(b.getContext(), low),
             getAsIndexOpFoldResult(b.getContext(), high), fill)
      .getResult();
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, TypedAttr fillValue) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  return padSpatial(b, loc, input, pads,
                    arith::ConstantOp::create(b, loc, fillValue).getResult());
}

/// The smallest value of an integer type (unsigned types as their signless
/// view: arith constants are signless).
Value integerMin(OpBuilder &b, Location loc, IntegerType type) {
  unsigned width = type.getWidth();
  Type signless = b.getIntegerType(width);
  Value v = arith::ConstantOp::create(
      b, loc, signless,
      b.getIntegerAttr(signless, type.isUnsigned()
                                     ? APInt::getMinValue(width)
                                     : APInt::getSignedMinValue(width)));
  return mlc::detail::viewAs(b, loc, v, type);
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, double value) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  return padSpatial(b, loc, input, pads, b.getFloatAttr(element, value));
}

SmallVector<int64_t> orOnes(std::optional<ArrayRef<int64_t>> a,
                            size_t n = 2) {
  return a ? SmallVector<int64_t>(*a) : SmallVector<int64_t>(n, 1);
}

} // namespace

FailureOr<Value> mlc::detail::buildConv2D(
    OpBuilder &rewriter, Location loc, Value inputValue, Value weightValue,
    RankedTensorType result, std::optional<ArrayRef<int64_t>> stridesAttrs,
    std::optional<ArrayRef<int64_t>> dilationsAttrs,
    std::optional<ArrayRef<int64_t>> padsAttrs, AutoPad autoPad,
    int64_t group) {
  auto x = getStaticType(inputValue), w = getStaticType(weightValue);
  if (!x || !w || x.getRank() != 4 || w.getRank() != 4)
    return failure();
  SmallVector<int64_t> strides = orOnes(stridesAttrs);
  SmallVector<int64_t> dilations = orOnes(dilationsAttrs);
  auto pads = resolvePads(x, w.getShape().drop_front(2), strides, dilations,
                          padsAttrs, autoPad, false);
  if (failed(pads))
    return failure();
  Type element = result.getElementType();
  Value input = padSpatial(rewriter, loc, inputValue, *pads,
                           rewriter.getZeroAttr(element));
  Value acc = linalg::FillOp::create(
                  rewriter, loc,
                  arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getZeroAttr(element))
                      .getResult(),
                  tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                          element)
                      .getResult())
                  .getResult(0);
  auto stridesAttr = rewriter.getI64TensorAttr(strides);
  auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
  int64_t c = x.getDimSize(1), m = w.getDimSize(0);
  Value conv;
  auto padded = cast<RankedTensorType>(input.getType());
  bool onePixel = result.getDimSize(2) == 1 && result.getDimSize(3) == 1 &&
                  padded.getDimSize(2) == w.getDimSize(2) &&
                  padded.getDimSize(3) == w.getDimSize(3);
  if (group == 1 && onePixel && isa<FloatType>(element)) {
    // The window covers the whole input (a squeeze-excitation block's 1x1
    // convolutions on pooled channels): a matrix product with the weights
    // transposed to [C*kh*kw, M], whose columns (output channels) vectorize;
    // as a convolution its one output pixel per image left a register tile
    // of scalar multiply-adds. The transpose of constant weights folds at
    // compile time.
    int64_t n = x.getDimSize(0), k = c * w.getDimSize(2) * w.getDimSize(3);
    SmallVector<ReassociationIndices> flat = {{0}, {1, 2, 3}};
    Value lhs = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, k}, element), input, flat);
    // [M, C, kh, kw] -> [C, kh, kw, M] -> [K, M]: the transpose reads the
    // weights themselves, so that a constant one folds.
    SmallVector<int64_t> wShape = {c, w.getDimSize(2), w.getDimSize(3), m};
    Value transposed = linalg::TransposeOp::create(
                           rewriter, loc, weightValue,
                           tensor::EmptyOp::create(rewriter, loc, wShape,
                                                   element),
                           ArrayRef<int64_t>{1, 2, 3, 0})
                           .getResult()[0];
    transposed = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, m}, element), transposed,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    Value flatAcc = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, m}, element), acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    Value product = linalg::MatmulOp::create(
                        rewriter, loc, TypeRange{flatAcc.getType()},
                        ValueRange{lhs, transposed}, ValueRange{flatAcc})
                        .getResult(0);
    conv = tensor::ExpandShapeOp::create(
        rewriter, loc, result, product,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  } else if (group == 1) {
    conv = linalg::Conv2DNchwFchwOp::create(
               rewriter, loc, TypeRange{result},
               ValueRange{input, weightValue}, ValueRange{acc},
               stridesAttr, dilationsAttr)
               .getResult(0);
  } else if (group == c && m == c) {
    // Depthwise: weight [C, 1, kh, kw] -> [C, kh, kw].
    auto wt = RankedTensorType::get({c, w.getDimSize(2), w.getDimSize(3)},
                                    w.getElementType());
    Value weight = tensor::CollapseShapeOp::create(
        rewriter, loc, wt, weightValue,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    conv = linalg::DepthwiseConv2DNchwChwOp::create(
               rewriter, loc, TypeRange{result}, ValueRange{input, weight},
               ValueRange{acc}, stridesAttr, dilationsAttr)
               .getResult(0);
  } else {
    // Grouped: [N, G, C/G, H, W] x [G, M/G, C/G, kh, kw].
    auto in = cast<RankedTensorType>(input.getType());
    auto gIn = RankedTensorType::get({in.getDimSize(0), group, c / group,
                                      in.getDimSize(2), in.getDimSize(3)},
                                     in.getElementType());
    auto gW = RankedTensorType::get(
        {group, m / group, w.getDimSize(1), w.getDimSize(2), w.getDimSize(3)},
        w.getElementType());
    auto gOut =
        RankedTensorType::get({result.getDimSize(0), group, m / group,
                               result.getDimSize(2), result.getDimSize(3)},
                              result.getElementType());
    Value gi = tensor::ExpandShapeOp::create(
        rewriter, loc, gIn, input,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value gw = tensor::ExpandShapeOp::create(
        rewriter, loc, gW, weightValue,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value ga = tensor::ExpandShapeOp::create(
        rewriter, loc, gOut, acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    Value g = linalg::Conv2DNgchwGfchwOp::create(
                  rewriter, loc, TypeRange{gOut}, ValueRange{gi, gw},
                  ValueRange{ga}, stridesAttr, dilationsAttr)
                  .getResult(0);
    conv = tensor::CollapseShapeOp::create(
        rewriter, loc, result, g,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  return conv;
}

namespace {
/// Splits dim 1 of the rank-5 `value` into (`group`, rest).
Value splitGroups(OpBuilder &b, Location loc, Value value, int64_t group) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape = {type.getDimSize(0), group,
                                type.getDimSize(1) / group};
  llvm::append_range(shape, type.getShape().drop_front(2));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}});
}

/// A grouped 3-D convolution of the padded NCDHW `input` with `weight`
/// [M, C/G, kd, kh, kw], accumulated onto `acc` [N, M, OD, OH, OW].
Value groupedConv3D(OpBuilder &b, Location loc, Value input, Value weight,
                    Value acc, int64_t group, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> dilations) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  // Weights [M, C/G, ...] viewed as [G, M/G, C/G, ...].
  SmallVector<int64_t> wShape = {group, wType.getDimSize(0) / group};
  llvm::append_range(wShape, wType.getShape().drop_front(1));
  Value gw = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(wShape, wType.getElementType()), weight,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}, {5}});
  Value gi = splitGroups(b, loc, input, group);
  Value ga = splitGroups(b, loc, acc, group);
  // Loops (n, g, m, od, oh, ow, c, kd, kh, kw).
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < 10; ++i)
    d.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineExpr> in = {d[0], d[1], d[6]};
  for (unsigned s = 0; s < 3; ++s)
    in.push_back(d[3 + s] * strides[s] + d[7 + s] * dilations[s]);
  SmallVector<AffineMap> maps = {
      AffineMap::get(10, 0, in, ctx),
      AffineMap::get(10, 0, {d[1], d[2], d[6], d[7], d[8], d[9]}, ctx),
      AffineMap::get(10, 0, {d[0], d[1], d[2], d[3], d[4], d[5]}, ctx)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  iterators.append(4, utils::IteratorType::reduction);
  Value conv =
      linalg::GenericOp::create(
          b, loc, TypeRange{ga.getType()}, ValueRange{gi, gw}, ValueRange{ga},
          maps, iterators,
          [](OpBuilder &bb, Location l, ValueRange args) {
            Value product = arith::MulFOp::create(bb, l, args[0], args[1]);
            linalg::YieldOp::create(
                bb, l, arith::AddFOp::create(bb, l, args[2], product)
                           .getResult());
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, accType, conv,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}});
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A 3-D convolution: upstream's NCDHW named op, or with groups a
  /// generic over the grouped views [N, G, C/G, D, H, W] x
  /// [G, M/G, C/G, kd, kh, kw] -> [N, G, M/G, OD, OH, OW] (upstream has no
  /// grouped 3-D named op).
  static LogicalResult lower3D(ConvOp op, OpAdaptor adaptor,
                               ConversionPatternRewriter &rewriter) {
    auto x = getStaticType(adaptor.getInput());
    auto w = getStaticType(adaptor.getWeight());
    auto result = getStaticType(op.getResult());
    int64_t group = op.getGroup();
    if (!x || !w || x.getRank() != 5 || w.getRank() != 5 ||
        !isa<FloatType>(result.getElementType()) || group < 1 ||
        x.getDimSize(1) % group != 0 || w.getDimSize(0) % group != 0 ||
        w.getDimSize(1) * group != x.getDimSize(1))
      return rewriter.notifyMatchFailure(
          op, "only float 3-D conv with channels divisible by the groups");
    SmallVector<int64_t> strides = orOnes(op.getStrides(), 3);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), 3);
    if (strides.size() != 3 || dilations.size() != 3)
      return rewriter.notifyMatchFailure(op, "bad window");
    auto pads = resolvePads(x, w.getShape().drop_front(2), strides, dilations,
                            op.getPads(), op.getAutoPad(), false);
    if (failed(pads))
      return rewriter.notifyMatchFailure(op, "bad window");
    Location loc = op.getLoc();
    Type element = result.getElementType();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), *pads,
                             rewriter.getZeroAttr(element));
    Value acc = createFilledTensor(rewriter, loc, result, 0.0);
    Value conv =
        group == 1
            ? linalg::Conv3DNcdhwFcdhwOp::create(
                  rewriter, loc, TypeRange{result},
                  ValueRange{input, adaptor.getWeight()}, ValueRange{acc},
                  rewriter.getI64TensorAttr(strides),
                  rewriter.getI64TensorAttr(dilations))
                  .getResult(0)
            : groupedConv3D(rewriter, loc, input, adaptor.getWeight(), acc,
                            group, strides, dilations);
    if (Value bias = adaptor.getBias())
      conv = channelwise(rewriter, loc, conv, bias,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(b, l, a[0], a[1]);
                         });
    rewriter.replaceOp(op, conv);
    return success();
  }

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    std::optional<ArrayRef<int64_t>> strides = op.getStrides(),
                                     dilations = op.getDilations(),
                                     pads = op.getPads();
    if (auto type = getStaticType(op.getResult()); type && type.getRank() == 5)
      return lower3D(op, adaptor, rewriter);
    // A 1-D convolution is a 2-D one over a height of 1.
    SmallVector<int64_t> strides2, dilations2, pads2;
    auto oneD = getStaticType(op.getResult());
    bool is1D = oneD && oneD.getRank() == 3;
    RankedTensorType result;
    if (is1D) {
      auto x3 = getStaticType(input), w3 = getStaticType(weight);
      if (!x3 || !w3 || x3.getRank() != 3 || w3.getRank() != 3)
        return rewriter.notifyMatchFailure(op, "only static float conv");
      auto addHeight = [&](Value v, RankedTensorType t) -> Value {
        return tensor::ExpandShapeOp::create(
            rewriter, loc,
            RankedTensorType::get(
                {t.getDimSize(0), t.getDimSize(1), 1, t.getDimSize(2)},
                t.getElementType()),
            v, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
      };
      input = addHeight(input, x3);
      weight = addHeight(weight, w3);
      result = RankedTensorType::get({oneD.getDimSize(0), oneD.getDimSize(1),
                                      1, oneD.getDimSize(2)},
                                     oneD.getElementType());
      if (strides) {
        if (strides->size() != 1)
          return rewriter.notifyMatchFailure(op, "bad strides");
        strides2 = {1, (*strides)[0]};
        strides = ArrayRef<int64_t>(strides2);
      }
      if (dilations) {
        if (dilations->size() != 1)
          return rewriter.notifyMatchFailure(op, "bad dilations");
        dilations2 = {1, (*dilations)[0]};
        dilations = ArrayRef<int64_t>(dilations2);
      }
      if (pads) {
        if (pads->size() != 2)
          return rewriter.notifyMatchFailure(op, "bad pads");
        pads2 = {0, (*pads)[0], 0, (*pads)[1]};
        pads = ArrayRef<int64_t>(pads2);
      }
    } else {
      auto x = static4d(input), w = static4d(weight);
      result = static4d(op.getResult());
      if (!x || !w || !result)
        return rewriter.notifyMatchFailure(op, "only static 1-D/2-D float conv");
    }
    FailureOr<Value> built = mlc::detail::buildConv2D(
        rewriter, loc, input, weight, result, strides, dilations, pads,
        op.getAutoPad(), op.getGroup());
    if (failed(built))
      return rewriter.notifyMatchFailure(op, "bad window");
    Value conv = *built;
    if (Value bias = adaptor.getBias())
      conv = channelwise(rewriter, loc, conv, bias,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(b, l, a[0], a[1]);
                         });
    if (is1D)
      conv = tensor::CollapseShapeOp::create(
          rewriter, loc, oneD, conv,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    rewriter.replaceOp(op, conv);
    return success();
  }
};

template <typename OpTy> struct PoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    auto x = static4d(adaptor.getInput());
    auto result = static4d(op.getResult());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result || kernel.size() != 2)
      return rewriter.notifyMatchFailure(op, "only static 2-D float pooling");
    Location loc = op.getLoc();
    SmallVector<int64_t> strides = orOnes(op.getStrides());
    SmallVector<int64_t> dilations = orOnes(op.getDilations());
    auto pads = resolvePads(x, kernel, strides, dilations, op.getPads(),
                            op.getAutoPad(), op.getCeilMode());
    if (failed(pads))
      return rewriter.notifyMatchFailure(op, "bad window");
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), *pads, padValue);
    Value window =
        tensor::EmptyOp::create(rewriter, loc, kernel, x.getElementType());
    auto stridesAttr = rewriter.getI64TensorAttr(strides);
    auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
    if constexpr (isMax) {
      Value acc = createFilledTensor(rewriter, loc, result, padValue);
      rewriter.replaceOp(op, linalg::PoolingNchwMaxOp::create(
                                 rewriter, loc, TypeRange{result},
                                 ValueRange{input, window}, ValueRange{acc},
                                 stridesAttr, dilationsAttr)
                                 .getResult(0));
      return success();
    } else {
      Value sum =
          linalg::PoolingNchwSumOp::create(
              rewriter, loc, TypeRange{result}, ValueRange{input, window},
              ValueRange{createFilledTensor(rewriter, loc, result, 0.0)},
              stridesAttr, dilationsAttr)
              .getResult(0);
      bool padded = llvm::any_of(*pads, [](int64_t p) { return p != 0; });
      Value count;
      if (!padded || op.getCountIncludePad()) {
        // Windows past the explicit pads (ceil_mode) still exclude them.
        count =
            createFilledTensor(rewriter, loc, result, kernel[0] * kernel[1]);
      } else {
        // Count the real input positions in each window.
        Value ones =
            padSpatial(rewriter, loc, createFilledTensor(rewriter, loc, x, 1.0),
                       *pads, 0.0);
        count = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{result}, ValueRange{ones, window},
                    ValueRange{createFilledTensor(rewriter, loc, result, 0.0)},
                    stridesAttr, dilationsAttr)
                    .getResult(0);
      }
      Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                           result.getElementType());
      rewriter.replaceOp(
          op, mlc::detail::divideInto(rewriter, loc, sum, count, init));
      return success();
    }
  }
};

/// A max or sum over the windows of an already padded N-D input, as one
/// generic over (n, c, outputs..., window...): the pooling named ops are
/// 2-D (and 1-D/3-D in other layouts) only.
Value windowReduce(OpBuilder &b, Location loc, Value padded,
                   ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> dilations, RankedTensorType result,
                   bool isMax) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = result.getRank(), spatial = kernel.size();
  int64_t loops = rank + spatial;
  SmallVector<AffineExpr> in = {getAffineDimExpr(0, ctx),
                                getAffineDimExpr(1, ctx)};
  SmallVector<AffineExpr> window;
  for (int64_t i = 0; i < spatial; ++i) {
    in.push_back(getAffineDimExpr(2 + i, ctx) * strides[i] +
                 getAffineDimExpr(rank + i, ctx) * dilations[i]);
    window.push_back(getAffineDimExpr(rank + i, ctx));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, in, ctx), AffineMap::get(loops, 0, window, ctx),
      AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  Type element = result.getElementType();
  Value windowShape = tensor::EmptyOp::create(b, loc, kernel, element);
  if (auto integer = dyn_cast<IntegerType>(element)) {
    // Integer max pooling (MaxPool takes int8/uint8): the padding already
    // holds the type's minimum, which is also the initial value.
    Value init =
        linalg::FillOp::create(
            b, loc, integerMin(b, loc, integer),
            tensor::EmptyOp::create(b, loc, result.getShape(), element)
                .getResult())
            .getResult(0);
    Type signless = mlc::detail::getSignlessType(element);
    return linalg::GenericOp::create(
               b, loc, TypeRange{result}, ValueRange{padded, windowShape}, init,
               maps, iterators,
               [&](OpBuilder &bb, Location l, ValueRange a) {
                 Value x = mlc::detail::viewAs(bb, l, a[0], signless);
                 Value acc = mlc::detail::viewAs(bb, l, a[2], signless);
                 Value v =
                     integer.isUnsigned()
                         ? Value(arith::MaxUIOp::create(bb, l, x, acc))
                         : Value(arith::MaxSIOp::create(bb, l, x, acc));
                 linalg::YieldOp::create(bb, l,
                                         mlc::detail::viewAs(bb, l, v, element));
               })
        .getResult(0);
  }
  Value init = createFilledTensor(
      b, loc, result, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  return linalg::GenericOp::create(
             b, loc, TypeRange{result}, ValueRange{padded, windowShape}, init,
             maps, iterators,
             [&](OpBuilder &bb, Location l, ValueRange a) {
               Value v =
                   isMax ? Value(arith::MaximumFOp::create(bb, l, a[0], a[2]))
                         : Value(arith::AddFOp::create(bb, l, a[0], a[2]));
               linalg::YieldOp::create(bb, l, v);
             })
      .getResult(0);
}

/// Max and average pooling over 1 or 3 (or more) spatial dims; 2-D pooling
/// keeps the named ops, which the CPU backend vectorizes.
template <typename OpTy> struct PoolNdLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    auto x = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result)
      return rewriter.notifyMatchFailure(op, "static pooling only");
    auto integer = dyn_cast<IntegerType>(x.getElementType());
    bool isFloat = isa<FloatType>(x.getElementType());
    // 2-D float pooling keeps the named ops; integers are max-only.
    if ((isFloat && kernel.size() == 2) || (!isFloat && !(isMax && integer)))
      return rewriter.notifyMatchFailure(op, "handled elsewhere or unsupported");
    size_t spatial = kernel.size();
    SmallVector<int64_t> strides = orOnes(op.getStrides(), spatial);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), spatial);
    auto pads = resolvePads(x, kernel, strides, dilations, op.getPads(),
                            op.getAutoPad(), op.getCeilMode());
    if (failed(pads))
      return rewriter.notifyMatchFailure(op, "bad window");
    Location loc = op.getLoc();
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input =
        integer
            ? padSpatial(rewriter, loc, adaptor.getInput(), *pads,
                         integerMin(rewriter, loc, integer))
            : padSpatial(rewriter, loc, adaptor.getInput(), *pads, padValue);
    Value reduced = windowReduce(rewriter, loc, input, kernel, strides,
                                 dilations, result, isMax);
    if constexpr (isMax) {
      rewriter.replaceOp(op, reduced);
      return success();
    } else {
      bool padded = llvm::any_of(*pads, [](int64_t p) { return p != 0; });
      Value count;
      if (!padded || op.getCountIncludePad()) {
        int64_t size = 1;
        for (int64_t k : kernel)
          size *= k;
        count = createFilledTensor(rewriter, loc, result, size);
      } else {
        Value ones = padSpatial(rewriter, loc,
                                createFilledTensor(rewriter, loc, x, 1.0),
                                *pads, 0.0);
        count = windowReduce(rewriter, loc, ones, kernel, strides, dilations,
                             result, false);
      }
      int64_t rank = result.getRank();
      SmallVector<AffineMap> maps(3, rewriter.getMultiDimIdentityMap(rank));
      SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
      Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                           result.getElementType());
      rewriter.replaceOp(
          op, linalg::GenericOp::create(
                  rewriter, loc, TypeRange{result}, ValueRange{reduced, count},
                  ValueRange{init}, maps, it,
                  [](OpBuilder &b, Location l, ValueRange a) {
                    linalg::YieldOp::create(
                        b, l, Value(arith::DivFOp::create(b, l, a[0], a[1])));
                  })
                  .getResult(0));
      return success();
    }
  }
};

/// MaxPool's indices: a generic over (n, c, outputs..., window...) with two
/// accumulators, the running maximum and its flat input index; a later
/// element replaces them only when strictly greater (the first maximum
/// wins). Padded positions hold -inf and are never chosen over real ones.
struct MaxPoolIndicesLowering : OpConversionPattern<MaxPoolIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result || !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "static float pooling only");
    size_t spatial = kernel.size();
    SmallVector<int64_t> strides = orOnes(op.getStrides(), spatial);
    SmallVector<int64_t> dilations = orOnes(op.getDilations(), spatial);
    auto pads = resolvePads(x, kernel, strides, dilations, op.getPads(),
                            op.getAutoPad(), op.getCeilMode());
    if (failed(pads))
      return rewriter.notifyMatchFailure(op, "bad window");
    Location loc = op.getLoc();
    Type element = x.getElementType();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), *pads,
                             -std::numeric_limits<double>::infinity());
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = result.getRank(), loops = rank + spatial;
    SmallVector<AffineExpr> in = {getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(1, ctx)};
    SmallVector<AffineExpr> window;
    for (size_t i = 0; i < spatial; ++i) {
      in.push_back(getAffineDimExpr(2 + i, ctx) * strides[i] +
                   getAffineDimExpr(rank + i, ctx) * dilations[i]);
      window.push_back(getAffineDimExpr(rank + i, ctx));
    }
    AffineMap outMap =
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank);
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, in, ctx),
                                   AffineMap::get(loops, 0, window, ctx),
                                   outMap, outMap};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.append(spatial, utils::IteratorType::reduction);
    auto valueType = RankedTensorType::get(result.getShape(), element);
    Value windowShape = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    Value maxInit = createFilledTensor(
        rewriter, loc, valueType, -std::numeric_limits<double>::infinity());
    Value indexInit =
        createFilledTensor(rewriter, loc, result, APInt(64, 0));
    bool columnMajor = op.getStorageOrder() == 1;
    ArrayRef<int64_t> shape = x.getShape();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, result},
        ValueRange{input, windowShape}, ValueRange{maxInit, indexInit}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          // The unpadded input position of this window element.
          SmallVector<Value> position = {linalg::IndexOp::create(b, l, 0),
                                         linalg::IndexOp::create(b, l, 1)};
          for (size_t i = 0; i < spatial; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value k = linalg::IndexOp::create(b, l, rank + i);
            Value p = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, o, c(strides[i])),
                arith::MulIOp::create(b, l, k, c(dilations[i])));
            position.push_back(arith::SubIOp::create(b, l, p, c((*pads)[i])));
          }
          // Flat index: n, c, then the spatial dims in storage order.
          SmallVector<unsigned> order = {0, 1};
          for (size_t i = 0; i < spatial; ++i)
            order.push_back(columnMajor ? 2 + spatial - 1 - i : 2 + i);
          Value flat = c(0);
          for (unsigned d : order)
            flat = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, flat, c(shape[d])),
                position[d]);
          Value greater = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OGT, a[0], a[2]);
          Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, greater, a[0], a[2]),
                         arith::SelectOp::create(b, l, greater, index, a[3])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

struct GlobalAveragePoolLowering : OpConversionPattern<GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Dims may be known at run time only (an image of any size).
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!x || !result || x.getRank() != 4 || result.getRank() != 4 ||
        !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "only 2-D float pooling");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<OpFoldResult> in =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> sizes = {in[0], in[1], rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1)};
    Type element = result.getElementType();
    auto filled = [&](double v) {
      Value empty = mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
      return linalg::FillOp::create(
                 rewriter, loc,
                 Value(arith::ConstantOp::create(
                     rewriter, loc, element, rewriter.getFloatAttr(element, v))),
                 empty)
          .getResult(0);
    };
    AffineExpr n = rewriter.getAffineDimExpr(0),
               c = rewriter.getAffineDimExpr(1);
    AffineExpr zero = rewriter.getAffineConstantExpr(0);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(4),
        AffineMap::get(4, 0, {n, c, zero, zero}, ctx)};
    SmallVector<utils::IteratorType> it = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction, utils::IteratorType::reduction};
    // 1 / (H * W), computed once where the size is known at run time.
    Value scale;
    if (!x.isDynamicDim(2) && !x.isDynamicDim(3)) {
      scale = arith::ConstantOp::create(
          rewriter, loc, element,
          rewriter.getFloatAttr(element,
                                1.0 / (x.getDimSize(2) * x.getDimSize(3))));
    } else {
      Value area = arith::MulIOp::create(
          rewriter, loc,
          getValueOrCreateConstantIndexOp(rewriter, loc, in[2]),
          getValueOrCreateConstantIndexOp(rewriter, loc, in[3]));
      Value areaF = arith::UIToFPOp::create(
          rewriter, loc, element,
          arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                       area));
      scale = arith::DivFOp::create(
          rewriter, loc,
          arith::ConstantOp::create(rewriter, loc, element,
                                    rewriter.getFloatAttr(element, 1.0)),
          areaF);
    }
    Value sum = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{result}, adaptor.getInput(),
                    filled(0.0), maps, it,
                    [](OpBuilder &b, Location l, ValueRange a) {
                      linalg::YieldOp::create(
                          b, l, Value(arith::AddFOp::create(b, l, a[0], a[1])));
                    })
                    .getResult(0);
    SmallVector<AffineMap> scaleMaps(2, rewriter.getMultiDimIdentityMap(4));
    SmallVector<utils::IteratorType> par(4, utils::IteratorType::parallel);
    Value init = mlc::detail::createEmptyOfSizes(rewriter, loc, result, sizes);
    rewriter.replaceOp(
        op, linalg::GenericOp::create(
                rewriter, loc, TypeRange{result}, sum, init, scaleMaps, par,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  linalg::YieldOp::create(
                      b, l, Value(arith::MulFOp::create(b, l, a[0], scale)));
                })
                .getResult(0));
    return success();
  }
};

/// (x - mean) * scale / sqrt(var + epsilon) + bias, channel by channel.
} // namespace

void mlc::populateGraphConvPoolToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConvLowering, PoolLowering<MaxPoolOp>, PoolLowering<AveragePoolOp>,
           PoolNdLowering<MaxPoolOp>, PoolNdLowering<AveragePoolOp>,
           MaxPoolIndicesLowering,
           GlobalAveragePoolLowering>(
          patterns.getContext());
}
