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

#include <limits>

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

/// Reshapes `input` to the run-time `dims` when `dims.ok` holds, else to
/// [elements, 1, ...] so that what follows stays in bounds; the result's
/// static dims are checked too. Fails the check with `message`.
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                RankedTensorType result, SmallVector<Value> dims,
                DimBuilder &checks, const std::string &message) {
  Value elements = multiplyAll(b, loc, getDimsI64(b, loc, input));
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (!result.isDynamicDim(d))
      checks.require(checks.eq(dims[d], checks.i64(result.getDimSize(d))));
  cf::AssertOp::create(b, loc, checks.ok, message);
  for (int64_t d = 0; d < result.getRank(); ++d)
    dims[d] = checks.select(
        checks.ok, dims[d],
        d == 0 && result.isDynamicDim(0)
            ? elements
            : checks.i64(result.isDynamicDim(d) ? 1 : result.getDimSize(d)));
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({result.getRank()}, b.getI64Type()), dims);
  return tensor::ReshapeOp::create(b, loc, result, input, shape);
}

/// Reshape to the shape its operand gives when the model runs (ONNX's 0
/// and -1 rules), checked.
LogicalResult lowerRunTimeShape(ReshapeOp op, ReshapeOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto shape = getStaticType(adaptor.getShape());
  auto result = dyn_cast<RankedTensorType>(op.getType());
  if (!input || !shape || !result || shape.getRank() != 1 ||
      shape.getDimSize(0) != result.getRank())
    return rewriter.notifyMatchFailure(op, "needs a ranked input and a "
                                           "shape of static length");
  Location loc = op.getLoc();
  DimBuilder c(rewriter, loc);
  // The input's dims, read at run time where they are dynamic.
  SmallVector<Value> inputDims = getDimsI64(rewriter, loc, adaptor.getInput());
  Value n = multiplyAll(rewriter, loc, inputDims);
  SmallVector<Value> requested = extractAll(rewriter, loc, adaptor.getShape());
  SmallVector<Value> dims, inferred;
  Value product = c.i64(1), unknowns = c.i64(0);
  Value maxValue = c.i64(std::numeric_limits<int64_t>::max());
  for (auto [i, v] : llvm::enumerate(requested)) {
    Value isInferred = c.eq(v, c.i64(-1));
    Value dim = v;
    if (!op.getAllowzero()) {
      Value copy = c.eq(v, c.i64(0));
      Value from = int64_t(i) < input.getRank() ? inputDims[i] : c.i64(0);
      if (int64_t(i) >= input.getRank())
        c.require(arith::XOrIOp::create(rewriter, loc, copy,
                                        arith::ConstantIntOp::create(
                                            rewriter, loc, 1, 1)));
      dim = c.select(copy, from, v);
    }
    c.require(c.either(isInferred,
                       c.cmp(arith::CmpIPredicate::sge, dim, c.i64(0))));
    Value factor = c.select(isInferred, c.i64(1), dim);
    // factor <= INT64_MAX / product, so the product cannot wrap.
    Value room = arith::DivSIOp::create(
        rewriter, loc, maxValue,
        arith::MaxSIOp::create(rewriter, loc, product, c.i64(1)));
    c.require(c.either(c.cmp(arith::CmpIPredicate::slt, factor, c.i64(0)),
                       c.cmp(arith::CmpIPredicate::sle, factor, room)));
    product = arith::MulIOp::create(rewriter, loc, product,
                                    arith::MaxSIOp::create(rewriter, loc,
                                                           factor, c.i64(0)));
    unknowns = c.add(unknowns, c.toI64(isInferred));
    dims.push_back(dim);
    inferred.push_back(isInferred);
  }
  Value one = c.eq(unknowns, c.i64(1));
  Value divisor = arith::MaxSIOp::create(rewriter, loc, product, c.i64(1));
  Value fits = c.select(
      one,
      c.both(c.cmp(arith::CmpIPredicate::sgt, product, c.i64(0)),
             c.eq(arith::RemSIOp::create(rewriter, loc, n, divisor),
                  c.i64(0))),
      c.eq(product, n));
  c.require(c.both(fits, c.cmp(arith::CmpIPredicate::sle, unknowns,
                               c.i64(1))));
  Value missing = arith::DivSIOp::create(rewriter, loc, n, divisor);
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = c.select(inferred[i], missing, dims[i]);
  rewriter.replaceOp(
      op, reshapeTo(rewriter, loc, adaptor.getInput(), result, dims, c,
                    describe(op, "Reshape") +
                        ": the shape does not fit the input's " +
                        (input.hasStaticShape()
                             ? std::to_string(input.getNumElements()) + " "
                             : std::string()) +
                        "elements (or has more than one -1, a negative "
                        "dim, or a 0 past the input's rank)"));
  return success();
}

/// Squeeze and Unsqueeze with axes read when the model runs, checked (in
/// range, distinct, squeezing dims of 1).
template <typename OpTy>
LogicalResult lowerRunTimeAxes(OpTy op, typename OpTy::Adaptor adaptor,
                               ConversionPatternRewriter &rewriter) {
  constexpr bool kSqueeze = std::is_same_v<OpTy, SqueezeOp>;
  auto input = getStaticType(adaptor.getInput());
  auto axes = adaptor.getDynamicAxes()
                  ? getStaticType(adaptor.getDynamicAxes())
                  : RankedTensorType();
  auto result = dyn_cast<RankedTensorType>(op.getType());
  if (!input || !axes || !result || axes.getRank() != 1)
    return rewriter.notifyMatchFailure(op, "needs static input and axes "
                                           "count");
  int64_t count = axes.getDimSize(0);
  int64_t rank = input.getRank();
  int64_t outRank = kSqueeze ? rank - count : rank + count;
  if (outRank < 0 || result.getRank() != outRank)
    return rewriter.notifyMatchFailure(op, "rank mismatch");
  Location loc = op.getLoc();
  DimBuilder c(rewriter, loc);
  SmallVector<Value> normalized;
  for (Value axis : extractAll(rewriter, loc, adaptor.getDynamicAxes()))
    normalized.push_back(c.normalizeAxis(axis, kSqueeze ? rank : outRank));
  // marked[d]: whether dim d (of the input for Squeeze, of the result for
  // Unsqueeze) is named; each axis must name a different dim.
  int64_t span = kSqueeze ? rank : outRank;
  SmallVector<Value> marked;
  Value total = c.i64(0);
  for (int64_t d = 0; d < span; ++d) {
    Value named = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    for (Value axis : normalized)
      named = c.either(named, c.eq(axis, c.i64(d)));
    marked.push_back(named);
    total = c.add(total, c.toI64(named));
  }
  c.require(c.eq(total, c.i64(count)));
  ArrayRef<int64_t> inDims = input.getShape();
  SmallVector<Value> dims(outRank, c.i64(0));
  if (kSqueeze) {
    // Kept dim d lands at d - (named dims before it); named ones are 1.
    Value before = c.i64(0);
    for (int64_t d = 0; d < rank; ++d) {
      if (inDims[d] != 1)
        c.require(arith::XOrIOp::create(
            rewriter, loc, marked[d],
            arith::ConstantIntOp::create(rewriter, loc, 1, 1)));
      Value position = arith::SubIOp::create(rewriter, loc, c.i64(d), before);
      for (int64_t m = 0; m < outRank; ++m) {
        Value here = c.both(
            arith::XOrIOp::create(rewriter, loc, marked[d],
                                  arith::ConstantIntOp::create(rewriter, loc,
                                                               1, 1)),
            c.eq(position, c.i64(m)));
        dims[m] = c.select(here, c.i64(inDims[d]), dims[m]);
      }
      before = c.add(before, c.toI64(marked[d]));
    }
  } else {
    // Result dim m is 1 where named, else the input's next dim.
    Value inserted = c.i64(0);
    for (int64_t m = 0; m < outRank; ++m) {
      Value from = arith::SubIOp::create(rewriter, loc, c.i64(m), inserted);
      Value original = c.select(marked[m], c.i64(0), from);
      Value dim = c.staticDim(inDims, original);
      dims[m] = c.select(marked[m], c.i64(1), dim);
      inserted = c.add(inserted, c.toI64(marked[m]));
    }
  }
  rewriter.replaceOp(
      op, reshapeTo(rewriter, loc, adaptor.getInput(), result, dims, c,
                    describe(op, kSqueeze ? "Squeeze" : "Unsqueeze") +
                        ": an axis is out of range or repeated" +
                        (kSqueeze ? ", or names a dim that is not 1" : "")));
  return success();
}

/// Reshape, Flatten, Squeeze and Unsqueeze: tensor.reshape to the result's
/// dims, a constant shape when the shapes are static, else computed from
/// the input's dims (Flatten; Squeeze of static size-1 dims and Unsqueeze
/// with constant axes), or from a shape or axes read when the model runs
/// and checked.
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
    if constexpr (std::is_same_v<OpTy, ReshapeOp>) {
      return lowerRunTimeShape(op, adaptor, rewriter);
    } else if constexpr (!std::is_same_v<OpTy, FlattenOp>) {
      if (adaptor.getDynamicAxes())
        return lowerRunTimeAxes(op, adaptor, rewriter);
    }
    SmallVector<Value> in = getDimsI64(rewriter, loc, adaptor.getInput());
    int64_t rank = input.getRank();
    SmallVector<Value> dims;
    Value one = arith::ConstantIntOp::create(rewriter, loc,
                                             rewriter.getI64Type(), 1);
    if constexpr (std::is_same_v<OpTy, ReshapeOp>) {
      // Returned above: this branch only keeps the others out of Reshape.
    } else if constexpr (std::is_same_v<OpTy, FlattenOp>) {
      int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
      if (axis < 0 || axis > rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      dims = {multiplyAll(rewriter, loc, ArrayRef<Value>(in).take_front(axis)),
              multiplyAll(rewriter, loc, ArrayRef<Value>(in).drop_front(axis))};
    } else {
      if (!op.getAxes())
        return rewriter.notifyMatchFailure(op, "needs axes");
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
