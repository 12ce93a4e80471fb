//===- DynamicConvToLinalg.cpp - Convolutions of images of any size -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// 2-D convolutions whose batch, height or width are known only at run time
// (a detector compiled for images of any size): the same linalg named ops
// as for static shapes (plain, depthwise, grouped), on an input padded with
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

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
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
    auto orFill = [](std::optional<ArrayRef<int64_t>> a, size_t n,
                     int64_t fill) {
      return a ? SmallVector<int64_t>(*a) : SmallVector<int64_t>(n, fill);
    };
    SmallVector<int64_t> strides = orFill(op.getStrides(), 2, 1);
    SmallVector<int64_t> dilations = orFill(op.getDilations(), 2, 1);
    SmallVector<int64_t> pads = orFill(op.getPads(), 4, 0);
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
        llvm::any_of(pads, [](int64_t p) { return p < 0; }) ||
        llvm::any_of(strides, [](int64_t s) { return s < 1; }))
      return rewriter.notifyMatchFailure(op, "bad window");

    Location loc = op.getLoc();
    Type element = result.getElementType();
    Value input = adaptor.getInput();
    // Pad the spatial dims (tensor.pad takes a source of any size).
    if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
      SmallVector<int64_t> low = {0, 0, pads[0], pads[1]},
                           high = {0, 0, pads[2], pads[3]};
      auto padded = tensor::PadOp::inferResultType(x, low, high);
      Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                             rewriter.getZeroAttr(element));
      input = tensor::PadOp::create(
                  rewriter, loc, padded, input,
                  getAsIndexOpFoldResult(rewriter.getContext(), low),
                  getAsIndexOpFoldResult(rewriter.getContext(), high), zero)
                  .getResult();
    }
    // Output sizes: (padded - window) / stride + 1, checked not negative.
    DimBuilder check(rewriter, loc);
    SmallVector<Value> in = getDimsI64(rewriter, loc, input);
    SmallVector<Value> out = {in[0], check.i64(m)};
    for (int64_t i = 0; i < 2; ++i) {
      int64_t window = (w.getDimSize(i + 2) - 1) * dilations[i] + 1;
      Value room = arith::SubIOp::create(rewriter, loc, in[i + 2],
                                         check.i64(window));
      check.require(check.cmp(arith::CmpIPredicate::sge, room, check.i64(0)));
      out.push_back(check.add(
          arith::DivSIOp::create(
              rewriter, loc,
              arith::MaxSIOp::create(rewriter, loc, room, check.i64(0)),
              check.i64(strides[i])),
          check.i64(1)));
    }
    SmallVector<Value> safe = checkedDims(
        check, result, out,
        describe(op, "Conv") + ": the input is smaller than the (dilated) "
                               "window");
    // Where the check fails, the output is empty, and so is the input read.
    SmallVector<OpFoldResult> outSizes;
    for (Value v : safe)
      outSizes.push_back(
          arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v)
              .getResult());
    Value empty = createEmptyOfSizes(rewriter, loc, result, outSizes);
    Value acc = linalg::FillOp::create(
                    rewriter, loc,
                    Value(arith::ConstantOp::create(
                        rewriter, loc, element, rewriter.getZeroAttr(element))),
                    empty)
                    .getResult(0);
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
} // namespace

void mlc::populateGraphDynamicConvToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DynamicConvLowering>(patterns.getContext());
}
