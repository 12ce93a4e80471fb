//===- LayoutToLinalg.cpp - Shape, reshapes, Transpose, Concat ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ops that move or view data, for every shape: Shape, Reshape to a
// static shape, Flatten, Squeeze and Unsqueeze with constant axes,
// Transpose and Concat. Sizes are mixed static/dynamic values (tensor.dim
// where known at run time only); dims that must agree (a concat's off its
// axis) are checked when the model runs, naming the node, and the inputs
// cut to the checked sizes, so that a failed check reads nothing past a
// buffer.
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
/// Shape of an input whose dims are known at run time (a static one folds
/// away before): its dims, read by tensor.dim.
struct ShapeLowering : OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || input.hasStaticShape() || !result ||
        !result.hasStaticShape() || result.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a dynamic ranked input");
    int64_t rank = input.getRank();
    auto clampAxis = [&](int64_t a) {
      return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
    };
    int64_t start = clampAxis(op.getStart());
    int64_t end = op.getEnd() ? clampAxis(*op.getEnd()) : rank;
    Location loc = op.getLoc();
    SmallVector<Value> dims = getDimsI64(rewriter, loc, adaptor.getInput());
    SmallVector<Value> picked;
    for (int64_t d = start; d < end; ++d)
      picked.push_back(dims[d]);
    if (int64_t(picked.size()) != result.getDimSize(0) ||
        !result.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "result length mismatch");
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, result, picked);
    return success();
  }
};

/// Reshape, Flatten, Squeeze (of static size-1 dims) and Unsqueeze with
/// constant axes: tensor.reshape to the result's dims, a constant shape
/// when the shapes are static, else (but for Reshape, whose shape known at
/// run time is RunTimeShapesToLinalg's, checked there) computed from the
/// input's.
template <typename OpTy> struct ReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !result)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    Location loc = op.getLoc();
    if (result.hasStaticShape() && input.hasStaticShape()) {
      auto shapeType =
          RankedTensorType::get({result.getRank()}, rewriter.getI64Type());
      Value shape = arith::ConstantOp::create(
          rewriter, loc, shapeType,
          DenseIntElementsAttr::get(shapeType, result.getShape()));
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, result,
                                                     adaptor.getInput(), shape);
      return success();
    }
    SmallVector<Value> in = getDimsI64(rewriter, loc, adaptor.getInput());
    int64_t rank = input.getRank();
    SmallVector<Value> dims;
    Value one = arith::ConstantIntOp::create(rewriter, loc,
                                             rewriter.getI64Type(), 1);
    if constexpr (std::is_same_v<OpTy, ReshapeOp>) {
      return rewriter.notifyMatchFailure(op, "a shape known at run time");
    } else if constexpr (std::is_same_v<OpTy, FlattenOp>) {
      int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
      if (axis < 0 || axis > rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      dims = {multiplyAll(rewriter, loc, ArrayRef<Value>(in).take_front(axis)),
              multiplyAll(rewriter, loc, ArrayRef<Value>(in).drop_front(axis))};
    } else {
      if (!op.getAxes() || adaptor.getDynamicAxes())
        return rewriter.notifyMatchFailure(op, "needs constant axes");
      constexpr bool squeeze = std::is_same_v<OpTy, SqueezeOp>;
      int64_t span = squeeze ? rank : result.getRank();
      SmallVector<bool> named(span, false);
      ArrayRef<int64_t> axes = *op.getAxes();
      for (int64_t a : axes) {
        int64_t axis = a < 0 ? a + span : a;
        if (axis < 0 || axis >= span)
          return rewriter.notifyMatchFailure(op, "axis out of range");
        named[axis] = true;
      }
      if (squeeze) {
        for (int64_t d = 0; d < rank; ++d) {
          if (!named[d]) {
            dims.push_back(in[d]);
            continue;
          }
          if (input.getDimSize(d) != 1)
            return rewriter.notifyMatchFailure(op, "squeezes a dim not 1");
        }
      } else {
        for (int64_t d = 0, next = 0; d < span; ++d)
          dims.push_back(named[d] ? one : in[next++]);
      }
    }
    if (int64_t(dims.size()) != result.getRank())
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Value shape = tensor::FromElementsOp::create(
        rewriter, loc,
        RankedTensorType::get({result.getRank()}, rewriter.getI64Type()), dims);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, result,
                                                   adaptor.getInput(), shape);
    return success();
  }
};

/// Transpose: linalg.transpose into a tensor of the permuted sizes.
struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !result)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t rank = input.getRank();
    SmallVector<int64_t> perm =
        op.getPerm() ? SmallVector<int64_t>(*op.getPerm())
                     : llvm::to_vector(
                           llvm::reverse(llvm::seq<int64_t>(0, rank)));
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> in =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : perm)
      sizes.push_back(in[p]);
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         input.getElementType());
    Value transposed = linalg::TransposeOp::create(rewriter, loc,
                                                   adaptor.getInput(), init,
                                                   perm)
                           .getResult()[0];
    rewriter.replaceOp(op, castTo(rewriter, loc, transposed, result));
    return success();
  }
};

/// Concat through tensor.concat's decomposition into insert_slices; dims
/// known at run time off the axis are checked to agree and the inputs cut
/// to the checked sizes.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = dyn_cast<RankedTensorType>(op.getType());
    SmallVector<Value> inputs(adaptor.getInputs());
    if (!result || inputs.empty() ||
        llvm::any_of(inputs, [&](Value v) {
          auto t = dyn_cast<RankedTensorType>(v.getType());
          return !t || t.getRank() != result.getRank();
        }))
      return rewriter.notifyMatchFailure(op, "needs ranked inputs");
    int64_t rank = result.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Location loc = op.getLoc();
    SmallVector<SmallVector<OpFoldResult>> sizes;
    for (Value v : inputs)
      sizes.push_back(tensor::getMixedSizes(rewriter, loc, v));
    AgreeingDims agree{rewriter, loc, {}};
    SmallVector<SmallVector<size_t>> at(inputs.size());
    for (size_t i = 1; i < inputs.size(); ++i)
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          at[i].push_back(agree.add(sizes[0][d], sizes[i][d]));
    if (agree.conflict)
      return rewriter.notifyMatchFailure(op, "dims that differ");
    SmallVector<OpFoldResult> checked = agree.check(
        describe(op, "Concat") + ": the inputs' dims known only at run time "
                                 "differ off the axis");
    for (size_t i = 1; i < inputs.size(); ++i) {
      for (auto [k, d] : llvm::enumerate(llvm::make_filter_range(
               llvm::seq<int64_t>(0, rank),
               [&](int64_t d) { return d != axis; })))
        sizes[i][d] = sizes[0][d] = checked[at[i][k]];
    }
    for (auto [i, v] : llvm::enumerate(inputs))
      v = sliceTo(rewriter, loc, v, sizes[i]);
    // The result's type from the inputs' (tensor.concat's verifier wants
    // the one it infers), cast to the op's.
    SmallVector<int64_t> shape(getShapeOf(sizes[0]));
    shape[axis] = 0;
    for (Value v : inputs) {
      int64_t d = cast<RankedTensorType>(v.getType()).getDimSize(axis);
      shape[axis] = ShapedType::isDynamic(d) || ShapedType::isDynamic(shape[axis])
                        ? ShapedType::kDynamic
                        : shape[axis] + d;
    }
    auto type = RankedTensorType::get(shape, result.getElementType());
    auto concat = tensor::ConcatOp::create(rewriter, loc, type, axis, inputs);
    FailureOr<SmallVector<Value>> parts = concat.decomposeOperation(rewriter);
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "concat decomposition failed");
    rewriter.replaceOp(op, castTo(rewriter, loc, parts->front(), result));
    rewriter.eraseOp(concat);
    return success();
  }
};
} // namespace

void mlc::populateGraphLayoutToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ShapeLowering, ReshapeLowering<ReshapeOp>,
               ReshapeLowering<FlattenOp>, ReshapeLowering<SqueezeOp>,
               ReshapeLowering<UnsqueezeOp>, TransposeLowering, ConcatLowering>(
      patterns.getContext());
}
