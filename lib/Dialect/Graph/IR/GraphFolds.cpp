//===- GraphFolds.cpp - Folders and canonicalizations of graph ops --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Only rewrites that are right for every input: identities (x + 0, x * 1,
// identity transposes and reshapes), composition of transposes and
// reshapes, and constant folding of same-shape elementwise arithmetic on
// dense constants. A fold never changes a value's type.
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// True when `attr` is a splat constant equal to `value` (int or float).
bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type element = splat.getElementType();
  if (isa<FloatType>(element))
    return splat.getSplatValue<APFloat>().convertToDouble() == value;
  if (isa<IntegerType>(element))
    return splat.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(value);
  return false;
}

/// Folds `x op c` to `x` when `c` is the splat identity and nothing
/// broadcasts (the result type equals x's type).
OpFoldResult foldRightIdentity(Value lhs, Attribute rhs, Type resultType,
                               double identity) {
  if (lhs.getType() == resultType && isSplatOf(rhs, identity))
    return lhs;
  return {};
}

/// Folds `f(a, b)` elementwise when both are dense constants of the result
/// type (no broadcasting), for floats and integers.
template <typename FloatFn, typename IntFn>
OpFoldResult foldArith(ArrayRef<Attribute> operands, Type resultType,
                       FloatFn floatFn, IntFn intFn) {
  if (operands.size() != 2 || !operands[0] || !operands[1])
    return {};
  auto lhs = dyn_cast<DenseElementsAttr>(operands[0]);
  auto rhs = dyn_cast<DenseElementsAttr>(operands[1]);
  if (!lhs || !rhs || lhs.getType() != resultType ||
      rhs.getType() != resultType)
    return {};
  if (isa<FloatType>(lhs.getElementType()))
    return constFoldBinaryOp<FloatAttr, APFloat, void>(operands, floatFn);
  if (isa<IntegerType>(lhs.getElementType()))
    return constFoldBinaryOp<IntegerAttr, APInt, void>(operands, intFn);
  return {};
}
} // namespace

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult IdentityOp::fold(FoldAdaptor) {
  return getInput().getType() == getType() ? getInput() : Value();
}

OpFoldResult NotOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NotOp>())
    if (inner.getInput().getType() == getType())
      return inner.getInput();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  return getInput().getType() == getType() ? getInput() : Value();
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldArith(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldArith(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a - b; },
      [](const APInt &a, const APInt &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldArith(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  // Integer division is not folded: a zero divisor must reach the runtime.
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  if (!isa<FloatType>(getType().getElementType()))
    return {};
  return foldArith(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a / b; },
      [](const APInt &a, const APInt &) { return a; });
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (type && type.hasStaticShape() && getInput().getType() == type)
    return getInput();
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type || getInput().getType() != getType())
    return {};
  std::optional<ArrayRef<int64_t>> perm = getPerm();
  bool identity = perm ? llvm::equal(*perm, llvm::seq<int64_t>(0, perm->size()))
                       : type.getRank() <= 1;
  return identity ? getInput() : Value();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto input = dyn_cast<RankedTensorType>(getInput().getType());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!input || !input.hasStaticShape() || !type || !type.hasStaticShape())
    return {};
  int64_t rank = input.getRank();
  auto clampAxis = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
  };
  int64_t start = clampAxis(getStart());
  int64_t end = clampAxis(getEnd() ? static_cast<int64_t>(*getEnd()) : rank);
  ArrayRef<int64_t> dims = input.getShape();
  SmallVector<int64_t> values(dims.begin() + start,
                              dims.begin() + std::max(start, end));
  if (static_cast<int64_t>(values.size()) != type.getDimSize(0))
    return {};
  return DenseIntElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    auto type = dyn_cast<RankedTensorType>(inner.getInput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked input");
    int64_t rank = type.getRank();
    auto permOf = [&](TransposeOp t) {
      std::optional<ArrayRef<int64_t>> p = t.getPerm();
      return p ? SmallVector<int64_t>(*p)
               : llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
    };
    SmallVector<int64_t> p1 = permOf(inner), p2 = permOf(op), composed;
    for (int64_t i : p2)
      composed.push_back(p1[i]);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), inner.getInput(),
        rewriter.getDenseI64ArrayAttr(composed));
    return success();
  }
};

/// reshape(reshape(x, s1), s2) -> reshape(x, s2) when the outer result is
/// static (its dims then become the constant shape, so `0` entries that
/// referred to the intermediate value cannot change meaning).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result is not static");
    auto shapeType =
        RankedTensorType::get({type.getRank()}, rewriter.getI64Type());
    Value shape = ConstantOp::create(
        rewriter, op.getLoc(), shapeType,
        DenseIntElementsAttr::get(shapeType, type.getShape()));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, inner.getInput(), shape,
                                           /*allowzero=*/true);
    return success();
  }
};

/// Moves known `dynamic_axes` (a constant, or of static length 0) into the
/// `axes` attribute, which is what the lowerings read; no axes at all
/// stay an absent attribute except for Unsqueeze, which needs one. The
/// result type was already refined by shape inference, which reads the
/// operand the same way.
template <typename OpTy> struct KnownAxesToAttribute : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value dynamic = op.getDynamicAxes();
    if (!dynamic)
      return rewriter.notifyMatchFailure(op, "no dynamic_axes");
    GivenAxes axes = getGivenAxes(std::nullopt, dynamic);
    if (!axes.values)
      return rewriter.notifyMatchFailure(op, "axes known at run time only");
    rewriter.modifyOpInPlace(op, [&] {
      if (!axes.values->empty() || std::is_same_v<OpTy, UnsqueezeOp>)
        op.setAxesAttr(rewriter.getDenseI64ArrayAttr(*axes.values));
      op.getDynamicAxesMutable().clear();
    });
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

#define MLC_GRAPH_AXES_CANONICALIZATION(OP)                                    \
  void OP::getCanonicalizationPatterns(RewritePatternSet &results,             \
                                       MLIRContext *context) {                 \
    results.add<KnownAxesToAttribute<OP>>(context);                            \
  }
MLC_GRAPH_AXES_CANONICALIZATION(SqueezeOp)
MLC_GRAPH_AXES_CANONICALIZATION(UnsqueezeOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceSumOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceMeanOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceMaxOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceMinOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceProdOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceL2Op)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceLogSumExpOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceLogSumOp)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceL1Op)
MLC_GRAPH_AXES_CANONICALIZATION(ReduceSumSquareOp)
#undef MLC_GRAPH_AXES_CANONICALIZATION
