//===- MatMulToLinalg.cpp - ONNX MatMul -----------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMul for every shape, one pattern over mixed static/dynamic sizes: a
// [b..., M, K] x [K, N] product is one linalg.matmul over the rows of
// every batch, other batched and broadcast products one contraction
// generic, a vector operand a matrix of one row or column. Dims known at
// run time are checked to agree (naming the node); the target's
// contraction strategy tiles the result whatever its sizes.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
/// A zero-filled tensor of `sizes` and `element` type.
Value zeros(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type element) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
  Value zero =
      arith::ConstantOp::create(b, loc, element, b.getFloatAttr(element, 0));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// Float MatMul of ranks >= 2, over sizes static or known at run time
/// alike (one pattern, as upstream's are written): the depth and the batch
/// dims that do not broadcast must agree, checked once (naming the node)
/// where a side is known only at run time, and the operands are cut to the
/// checked sizes. Then:
///  - [b..., M, K] x [K, N]: every row of every batch meets the same
///    right-hand side, so the batch dims are rows too: one
///    [b...*M, K] x [K, N] linalg.matmul between reshapes. (A batched
///    contraction would tile M alone: ViT's attention input projection,
///    [197, 1, 768] x [768, 2304], had register tiles of one row.) The
///    right-hand side is a weight in practice, packed by the target
///    whatever the rows are.
///  - otherwise one contraction generic whose maps broadcast a batch dim of
///    static size 1 (numpy's rule; a size-1 dim known only at run time is
///    not broadcast, and fails the check).
/// The target tiles either as a contraction; loops of run-time size take
/// the tiles of a large static loop, with remainders.
struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = dyn_cast<RankedTensorType>(lhs.getType());
    auto rt = dyn_cast<RankedTensorType>(rhs.getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!lt || !rt || !result || lt.getRank() < 2 || rt.getRank() < 2 ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs ranked float matrices");
    int64_t lr = lt.getRank(), rr = rt.getRank();
    int64_t rank = std::max(lr, rr);
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> ls = tensor::getMixedSizes(rewriter, loc, lhs);
    SmallVector<OpFoldResult> rs = tensor::getMixedSizes(rewriter, loc, rhs);
    AgreeingDims agree{rewriter, loc, {}};
    size_t k = agree.add(ls[lr - 1], rs[rr - 2]);
    // Batch dims of the result, aligned from the right: (position in lhs,
    // position in rhs, pair index), -1 where a side has none or broadcasts.
    struct BatchDim {
      int64_t l, r;
      int64_t pair = -1;
    };
    SmallVector<BatchDim> batch;
    for (int64_t d = 0; d < rank - 2; ++d) {
      BatchDim dim{d - (rank - lr), d - (rank - rr)};
      if (dim.l >= 0 && dim.r >= 0 && !isConstantIntValue(ls[dim.l], 1) &&
          !isConstantIntValue(rs[dim.r], 1))
        dim.pair = agree.add(ls[dim.l], rs[dim.r]);
      batch.push_back(dim);
    }
    if (agree.conflict)
      return rewriter.notifyMatchFailure(op, "dims that do not agree");
    SmallVector<OpFoldResult> sizes = agree.check(
        describe(op, "MatMul") + ": the operands' dims known only at run "
                                 "time do not agree (broadcasting such a dim "
                                 "is not supported)");
    // A reduction known on one side (the weights') stays static, so that
    // the weights keep their packed layout; where a check fails the rows
    // are none instead, and nothing is read past a narrower operand. (An
    // export's `reshape(b, s, -1)` leaves the attention's output projection
    // a K known only at run time: its weights read unpacked took 3x the
    // static compile's time in a decoder step.)
    std::optional<int64_t> staticK = getConstantIntValue(ls[lr - 1]);
    if (!staticK)
      staticK = getConstantIntValue(rs[rr - 2]);
    if (staticK && agree.ok && !getConstantIntValue(ls[lr - 2])) {
      sizes[k] = rewriter.getIndexAttr(*staticK);
      ls[lr - 2] =
          arith::SelectOp::create(
              rewriter, loc, agree.ok,
              getValueOrCreateConstantIndexOp(rewriter, loc, ls[lr - 2]),
              arith::ConstantIndexOp::create(rewriter, loc, 0))
              .getResult();
    }
    ls[lr - 1] = rs[rr - 2] = sizes[k];
    SmallVector<OpFoldResult> outSizes;
    for (const BatchDim &dim : batch) {
      if (dim.pair >= 0)
        ls[dim.l] = rs[dim.r] = sizes[dim.pair];
      bool lhsWhole = dim.l >= 0 && (dim.r < 0 || dim.pair >= 0 ||
                                     isConstantIntValue(rs[dim.r], 1));
      outSizes.push_back(lhsWhole ? ls[dim.l] : rs[dim.r]);
    }
    outSizes.append({ls[lr - 2], rs[rr - 1]});
    lhs = sliceTo(rewriter, loc, lhs, ls);
    rhs = sliceTo(rewriter, loc, rhs, rs);
    Type element = result.getElementType();
    auto outType = RankedTensorType::get(getShapeOf(outSizes), element);

    Value product;
    if (rr == 2) {
      // Rows of every batch against one right-hand side.
      SmallVector<ReassociationIndices> groups = {
          llvm::to_vector(llvm::seq<int64_t>(0, lr - 1)), {lr - 1}};
      Value rows = lhs;
      OpFoldResult m = ls[lr - 2];
      if (lr > 2) {
        rows = tensor::CollapseShapeOp::create(rewriter, loc, lhs, groups);
        m = tensor::getMixedSize(rewriter, loc, rows, 0);
      }
      product = linalg::MatmulOp::create(
                    rewriter, loc, ValueRange{rows, rhs},
                    ValueRange{zeros(rewriter, loc, {m, rs[1]}, element)})
                    .getResult(0);
      if (lr > 2)
        product = tensor::ExpandShapeOp::create(rewriter, loc, outType,
                                                product, groups, outSizes);
    } else {
      SmallVector<utils::IteratorType> iterators(
          rank, utils::IteratorType::parallel);
      iterators.push_back(utils::IteratorType::reduction);
      product =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{outType}, ValueRange{lhs, rhs},
              zeros(rewriter, loc, outSizes, element),
              getMatMulMaps(cast<RankedTensorType>(lhs.getType()),
                            cast<RankedTensorType>(rhs.getType()), outType),
              iterators,
              [](OpBuilder &bb, Location l, ValueRange v) {
                Value p = arith::MulFOp::create(bb, l, v[0], v[1]);
                linalg::YieldOp::create(
                    bb, l, Value(arith::AddFOp::create(bb, l, v[2], p)));
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, product, result));
    return success();
  }
};

/// A vector operand (numpy's rule, as ONNX MatMul has it): a 1-D lhs [K]
/// is the row [1, K], a 1-D rhs [K] the column [K, 1], and the unit dim is
/// dropped from the product. The matmul of the matrices is made again as a
/// graph op and lowered by the other patterns.
struct VectorMatMulLowering : OpConversionPattern<MatMulOp> {
  VectorMatMulLowering(MLIRContext *ctx)
      : OpConversionPattern<MatMulOp>(ctx, /*benefit=*/3) {}
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhs = getStaticType(adaptor.getLhs()),
         rhs = getStaticType(adaptor.getRhs());
    auto result = getStaticType(op.getResult());
    if (!lhs || !rhs || !result || (lhs.getRank() != 1 && rhs.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "needs a static 1-D operand");
    Location loc = op.getLoc();
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    SmallVector<int64_t> shape(result.getShape());
    if (lhs.getRank() == 1) {
      a = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({1, lhs.getDimSize(0)}, lhs.getElementType()),
          a, SmallVector<ReassociationIndices>{{0, 1}});
      // The product's M = 1 before its last dim (N, or nothing when the
      // rhs is a vector too).
      shape.insert(shape.end() - (rhs.getRank() == 1 ? 0 : 1), 1);
    }
    if (rhs.getRank() == 1) {
      b = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rhs.getDimSize(0), 1}, rhs.getElementType()),
          b, SmallVector<ReassociationIndices>{{0, 1}});
      shape.push_back(1);
    }
    auto productType = RankedTensorType::get(shape, result.getElementType());
    Value product = MatMulOp::create(rewriter, loc, productType, a, b);
    // The unit dims join their neighbours: the last two dims (M or N and
    // the inserted 1) become one, or the 1x1 product of two vectors a
    // scalar.
    int64_t rank = productType.getRank();
    SmallVector<ReassociationIndices> groups;
    if (result.getRank() > 0) {
      for (int64_t d = 0; d < rank - 2; ++d)
        groups.push_back({d});
      groups.push_back({rank - 2, rank - 1});
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, result, product,
                                                         groups);
    return success();
  }
};

} // namespace

SmallVector<AffineMap, 3>
mlc::detail::getMatMulMaps(RankedTensorType a, RankedTensorType b,
                           RankedTensorType result) {
  int64_t rank = result.getRank(); // loops: batch..., m, n, then k
  int64_t k = rank;
  MLIRContext *ctx = result.getContext();
  auto operandMap = [&](RankedTensorType t, bool isLhs) {
    SmallVector<AffineExpr> exprs;
    int64_t batch = t.getRank() - 2, offset = (rank - 2) - batch;
    for (int64_t i = 0; i < batch; ++i)
      exprs.push_back(t.getDimSize(i) == 1 &&
                              result.getDimSize(i + offset) != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(i + offset, ctx));
    if (isLhs) {
      exprs.push_back(getAffineDimExpr(rank - 2, ctx));
      exprs.push_back(getAffineDimExpr(k, ctx));
    } else {
      exprs.push_back(getAffineDimExpr(k, ctx));
      exprs.push_back(getAffineDimExpr(rank - 1, ctx));
    }
    return AffineMap::get(rank + 1, 0, exprs, ctx);
  };
  return {operandMap(a, true), operandMap(b, false),
          AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
              .getMajorSubMap(rank)};
}

void mlc::populateGraphMatMulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, VectorMatMulLowering>(
      patterns.getContext());
}
