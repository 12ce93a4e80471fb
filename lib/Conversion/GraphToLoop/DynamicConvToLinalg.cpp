//===- DynamicConvToLinalg.cpp - Convolutions of images of any size -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// 2-D convolutions and pooling whose batch, height or width are known only
// at run time (a detector compiled for images of any size): the same linalg
// named ops as for static shapes (convolutions plain, depthwise, grouped;
// max and average pooling), on an input padded with
// tensor.pad and an output whose spatial sizes are computed from the
// input's when the model runs. Weights and channels are static. An input
// smaller than the dilated window fails a run-time check naming the node
// (the output is then empty). Static shapes keep ConvPoolToLinalg.cpp.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
/// A window attribute's values, or `n` times `fill` when it is absent.
SmallVector<int64_t> attrOr(std::optional<ArrayRef<int64_t>> a, size_t n,
                            int64_t fill) {
  return a ? SmallVector<int64_t>(*a) : SmallVector<int64_t>(n, fill);
}

/// `input` (NCHW) zero- or `fill`-padded by `pads` [top, left, bottom,
/// right] (tensor.pad takes a source of any size).
Value padImage(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> pads,
               Value fill) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  SmallVector<int64_t> low = {0, 0, pads[0], pads[1]},
                       high = {0, 0, pads[2], pads[3]};
  auto type = cast<RankedTensorType>(input.getType());
  return tensor::PadOp::create(
             b, loc, tensor::PadOp::inferResultType(type, low, high), input,
             getAsIndexOpFoldResult(b.getContext(), low),
             getAsIndexOpFoldResult(b.getContext(), high), fill)
      .getResult();
}

/// The sizes of a window op's NCHW result: `channels` and, per spatial dim
/// of the padded `input`, (size - window) / stride + 1, with a run-time
/// check (naming `op`) that the input holds one window; where it fails,
/// every size is 0.
SmallVector<OpFoldResult> windowResultSizes(OpBuilder &b, Location loc,
                                            Operation *op, StringRef onnxOp,
                                            Value input, int64_t channels,
                                            ArrayRef<int64_t> kernel,
                                            ArrayRef<int64_t> strides,
                                            ArrayRef<int64_t> dilations,
                                            RankedTensorType result) {
  DimBuilder check(b, loc);
  SmallVector<Value> in = getDimsI64(b, loc, input);
  SmallVector<Value> out = {in[0], check.i64(channels)};
  for (int64_t i = 0; i < 2; ++i) {
    int64_t window = (kernel[i] - 1) * dilations[i] + 1;
    Value room = arith::SubIOp::create(b, loc, in[i + 2], check.i64(window));
    check.require(check.cmp(arith::CmpIPredicate::sge, room, check.i64(0)));
    out.push_back(check.add(
        arith::DivSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, room, check.i64(0)),
            check.i64(strides[i])),
        check.i64(1)));
  }
  SmallVector<Value> safe = checkedDims(
      check, result, out,
      describe(op, onnxOp) + ": the input is smaller than the (dilated) "
                             "window");
  SmallVector<OpFoldResult> sizes;
  for (Value v : safe)
    sizes.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult());
  return sizes;
}

/// A tensor of `type` and `sizes` filled with the float `value`.
Value filledOfSizes(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<OpFoldResult> sizes, double value) {
  Type element = type.getElementType();
  return linalg::FillOp::create(
             b, loc,
             Value(arith::ConstantOp::create(b, loc, element,
                                             b.getFloatAttr(element, value))),
             createEmptyOfSizes(b, loc, type, sizes))
      .getResult(0);
}

struct DynamicConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto w = getStaticType(adaptor.getWeight());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!x || !w || !result || x.hasStaticShape() || x.getRank() != 4 ||
        w.getRank() != 4 || x.isDynamicDim(1) ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a dynamic 2-D float conv");
    if (op.getAutoPad() != AutoPad::NotSet)
      return rewriter.notifyMatchFailure(op, "auto_pad needs static shapes");
    int64_t group = op.getGroup();
    int64_t c = x.getDimSize(1), m = w.getDimSize(0);
    if (group < 1 || c % group != 0 || m % group != 0 ||
        w.getDimSize(1) * group != c)
      return rewriter.notifyMatchFailure(op, "channels and groups disagree");
    SmallVector<int64_t> strides = attrOr(op.getStrides(), 2, 1);
    SmallVector<int64_t> dilations = attrOr(op.getDilations(), 2, 1);
    SmallVector<int64_t> pads = attrOr(op.getPads(), 4, 0);
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
        llvm::any_of(pads, [](int64_t p) { return p < 0; }) ||
        llvm::any_of(strides, [](int64_t s) { return s < 1; }))
      return rewriter.notifyMatchFailure(op, "bad window");

    Location loc = op.getLoc();
    Type element = result.getElementType();
    Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getZeroAttr(element));
    Value input = padImage(rewriter, loc, adaptor.getInput(), pads, zero);
    // Where the window check fails, the output is empty.
    SmallVector<OpFoldResult> outSizes = windowResultSizes(
        rewriter, loc, op, "Conv", input, m, w.getShape().drop_front(2),
        strides, dilations, result);
    Value acc = filledOfSizes(rewriter, loc, result, outSizes, 0.0);
    auto stridesAttr = rewriter.getI64TensorAttr(strides);
    auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
    Value weight = adaptor.getWeight();
    Value conv;
    if (group == 1) {
      conv = linalg::Conv2DNchwFchwOp::create(
                 rewriter, loc, TypeRange{acc.getType()},
                 ValueRange{input, weight}, ValueRange{acc}, stridesAttr,
                 dilationsAttr)
                 .getResult(0);
    } else if (group == c && m == c) {
      // Depthwise: weight [C, 1, kh, kw] -> [C, kh, kw].
      Value flat = tensor::CollapseShapeOp::create(
          rewriter, loc, weight,
          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
      conv = linalg::DepthwiseConv2DNchwChwOp::create(
                 rewriter, loc, TypeRange{acc.getType()},
                 ValueRange{input, flat}, ValueRange{acc}, stridesAttr,
                 dilationsAttr)
                 .getResult(0);
    } else {
      // Grouped: [N, G, C/G, H, W] x [G, M/G, C/G, kh, kw]; each group of
      // the expansions holds at most one dynamic dim.
      auto split = [&](Value v, int64_t parts) {
        SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, v);
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<OpFoldResult> shape = {
            sizes[0], rewriter.getIndexAttr(parts),
            rewriter.getIndexAttr(type.getDimSize(1) / parts), sizes[2],
            sizes[3]};
        SmallVector<int64_t> staticShape;
        for (OpFoldResult s : shape)
          staticShape.push_back(
              getConstantIntValue(s).value_or(ShapedType::kDynamic));
        return tensor::ExpandShapeOp::create(
            rewriter, loc,
            RankedTensorType::get(staticShape, type.getElementType()), v,
            SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}, shape);
      };
      Value gw = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({group, m / group, w.getDimSize(1),
                                 w.getDimSize(2), w.getDimSize(3)},
                                element),
          weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
      Value gi = split(input, group), ga = split(acc, group);
      Value g = linalg::Conv2DNgchwGfchwOp::create(
                    rewriter, loc, TypeRange{ga.getType()}, ValueRange{gi, gw},
                    ValueRange{ga}, stridesAttr, dilationsAttr)
                    .getResult(0);
      conv = tensor::CollapseShapeOp::create(
          rewriter, loc, g,
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }
    if (Value bias = adaptor.getBias())
      conv = channelwise(rewriter, loc, conv, bias,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(b, l, a[0], a[1]);
                         });
    if (conv.getType() != result)
      conv = tensor::CastOp::create(rewriter, loc, result, conv);
    rewriter.replaceOp(op, conv);
    return success();
  }
};

/// 2-D MaxPool and AveragePool with explicit pads (no auto_pad or
/// ceil_mode, which need the sizes at compile time) of inputs whose dims
/// are known at run time: the named pooling ops, as for static shapes.
template <typename OpTy>
struct DynamicPoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!x || !result || x.hasStaticShape() || x.getRank() != 4 ||
        x.isDynamicDim(1) || kernel.size() != 2 ||
        !isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs dynamic 2-D float pooling");
    if (op.getAutoPad() != AutoPad::NotSet || op.getCeilMode())
      return rewriter.notifyMatchFailure(op, "auto_pad and ceil_mode need "
                                             "static shapes");
    SmallVector<int64_t> strides = attrOr(op.getStrides(), 2, 1);
    SmallVector<int64_t> dilations = attrOr(op.getDilations(), 2, 1);
    SmallVector<int64_t> pads = attrOr(op.getPads(), 4, 0);
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
      return rewriter.notifyMatchFailure(op, "bad window");
    Location loc = op.getLoc();
    Type element = x.getElementType();
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value fill = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getFloatAttr(element,
                                                                 padValue));
    Value input = padImage(rewriter, loc, adaptor.getInput(), pads, fill);
    SmallVector<OpFoldResult> sizes = windowResultSizes(
        rewriter, loc, op, isMax ? "MaxPool" : "AveragePool", input,
        x.getDimSize(1), kernel, strides, dilations, result);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    auto stridesAttr = rewriter.getI64TensorAttr(strides);
    auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
    Value acc = filledOfSizes(rewriter, loc, result, sizes, padValue);
    if constexpr (isMax) {
      rewriter.replaceOp(op, linalg::PoolingNchwMaxOp::create(
                                 rewriter, loc, TypeRange{acc.getType()},
                                 ValueRange{input, window}, ValueRange{acc},
                                 stridesAttr, dilationsAttr)
                                 .getResult(0));
      return success();
    }
    Value sum = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{acc.getType()},
                    ValueRange{input, window}, ValueRange{acc}, stridesAttr,
                    dilationsAttr)
                    .getResult(0);
    Value count;
    bool includePad = false;
    if constexpr (!isMax)
      includePad = op.getCountIncludePad();
    if (llvm::all_of(pads, [](int64_t p) { return p == 0; }) || includePad) {
      count = filledOfSizes(rewriter, loc, result, sizes,
                            double(kernel[0] * kernel[1]));
    } else {
      // The real input positions in each window: the same sum over ones.
      Value ones = filledOfSizes(
          rewriter, loc, x,
          tensor::getMixedSizes(rewriter, loc, adaptor.getInput()), 1.0);
      Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                             rewriter.getZeroAttr(element));
      count = linalg::PoolingNchwSumOp::create(
                  rewriter, loc, TypeRange{acc.getType()},
                  ValueRange{padImage(rewriter, loc, ones, pads, zero), window},
                  ValueRange{filledOfSizes(rewriter, loc, result, sizes, 0.0)},
                  stridesAttr, dilationsAttr)
                  .getResult(0);
    }
    Value init = createEmptyOfSizes(rewriter, loc, result, sizes);
    rewriter.replaceOp(op, divideInto(rewriter, loc, sum, count, init));
    return success();
  }
};
} // namespace

void mlc::populateGraphDynamicConvToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DynamicConvLowering, DynamicPoolLowering<MaxPoolOp>,
               DynamicPoolLowering<AveragePoolOp>>(patterns.getContext());
}
