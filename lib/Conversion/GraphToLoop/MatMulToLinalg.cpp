//===- MatMulToLinalg.cpp - ONNX MatMul -----------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMul for every shape: a static 2-D product is one linalg.matmul, a
// [b..., M, K] x [K, N] one the same over the rows of every batch, a vector
// operand a matrix of one row or column; dims known at run time are checked
// to agree (naming the node), the operands cut to the checked sizes, and
// the product computed as loops of static matmuls on zero-padded blocks
// (blockedMatMul), so that the target's matmul strategy applies to each.
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
/// Block sizes of blockedMatMul: rows (multiples of the register tiles'
/// rows: blocks of kRowBlock rows, large enough that a weight is read few
/// times, then blocks of kTailRowBlock for the last rows, so that a short
/// sequence pads few), and the columns and depth of a dim known only at run
/// time (a static one is taken whole).
constexpr int64_t kRowBlock = 64;
constexpr int64_t kTailRowBlock = 16;
constexpr int64_t kDimBlock = 64;

/// `v` [b..., R, C] sliced at the batch position `batch` (unit dims
/// dropped) and at [row, col] of `rows` x `cols`: the slice itself when it
/// has the static [padRows, padCols], else copied into `scratch` (of that
/// type) zero-filled, whose new value is returned in `scratch`.
Value paddedBlock(OpBuilder &b, Location loc, Value v, ArrayRef<Value> batch,
                  OpFoldResult row, OpFoldResult col, OpFoldResult rows,
                  OpFoldResult cols, Value &scratch, Value zero) {
  auto type = cast<RankedTensorType>(v.getType());
  auto block = cast<RankedTensorType>(scratch.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t i = 0; i < rank - 2; ++i) {
    offsets.push_back(batch[i]);
    sizes.push_back(b.getIndexAttr(1));
  }
  offsets.append({row, col});
  sizes.append({rows, cols});
  SmallVector<int64_t> shape = {
      getConstantIntValue(rows).value_or(ShapedType::kDynamic),
      getConstantIntValue(cols).value_or(ShapedType::kDynamic)};
  Value part = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, offsets,
      sizes, strides);
  if (ArrayRef<int64_t>(shape) == block.getShape())
    return part;
  Value filled =
      linalg::FillOp::create(b, loc, zero, scratch).getResult(0);
  scratch = tensor::InsertSliceOp::create(
      b, loc, part, filled,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rows, cols},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  return scratch;
}

/// `lhs` [b..., M, K] times `rhs` [K, N] (`shared`, a weight) or
/// [b..., K, N], the checked sizes `ls` and `rs`, as loops over the batch
/// dims and blocks of the result (kRowBlock rows, the last ones in blocks of
/// kTailRowBlock; N whole when static, else kDimBlock columns) and, for a K known only at run time, over
/// kDimBlock-deep slices of it. Each step is a static linalg.matmul on
/// blocks zero-padded to their static sizes, so that the target's matmul
/// strategy (tiles, vectors, threads) applies to it; the rows and columns
/// that exist are inserted into the result. The padded blocks and the
/// accumulator are made once, outside the loops, and carried through them
/// (so that they are buffers of the model's arena, not of each iteration).
Value blockedMatMul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    ArrayRef<OpFoldResult> ls, ArrayRef<OpFoldResult> rs,
                    bool shared) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  Type element = lt.getElementType();
  int64_t rank = lt.getRank(), rr = rt.getRank();
  OpFoldResult m = ls[rank - 2], k = ls[rank - 1], n = rs[rr - 1];
  std::optional<int64_t> staticK = getConstantIntValue(k),
                         staticN = getConstantIntValue(n);
  int64_t kBlock = staticK ? *staticK : kDimBlock;
  int64_t nBlock = staticN ? *staticN : kDimBlock;
  SmallVector<OpFoldResult> outSizes(ls.drop_back());
  outSizes.push_back(n);
  auto empty = [&](ArrayRef<int64_t> shape) -> Value {
    return tensor::EmptyOp::create(b, loc, shape, element);
  };
  // Carried through every loop: the result, the rhs block, then the lhs
  // block and the accumulator of each row block size.
  SmallVector<Value> init = {
      tensor::EmptyOp::create(b, loc, outSizes, element),
      empty({kBlock, nBlock}),
      empty({kRowBlock, kBlock}),
      empty({kRowBlock, nBlock}),
      empty({kTailRowBlock, kBlock}),
      empty({kTailRowBlock, nBlock})};
  // The row block size of the loop being built, and where its scratch is.
  int64_t rowBlock = kRowBlock;
  unsigned aIndex = 2, accIndex = 3;
  Value zero = arith::ConstantOp::create(b, loc, element,
                                         b.getFloatAttr(element, 0));
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto index = [&](OpBuilder &nb, OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(nb, loc, v);
  };
  // The size of the block at `iv` of a dim of `size`: min(block, size - iv).
  auto remaining = [&](OpBuilder &nb, Value iv, OpFoldResult size,
                       int64_t block) -> OpFoldResult {
    if (auto c = getConstantIntValue(size); c && *c == block)
      return nb.getIndexAttr(block);
    return arith::MinSIOp::create(
               nb, loc, arith::ConstantIndexOp::create(nb, loc, block),
               arith::SubIOp::create(nb, loc, index(nb, size), iv))
        .getResult();
  };
  // One result block at batch position `batch`, rows `row`, columns `col`;
  // `iters` are the carried values, updated.
  auto computeBlock = [&](OpBuilder &nb, ArrayRef<Value> batch, Value row,
                          Value col, SmallVector<Value> iters) {
    OpFoldResult rows = remaining(nb, row, m, rowBlock);
    OpFoldResult cols = remaining(nb, col, n, nBlock);
    SmallVector<Value> rhsBatch(shared ? ArrayRef<Value>() : batch);
    Value &aScratch = iters[aIndex], &bScratch = iters[1];
    Value sum =
        linalg::FillOp::create(nb, loc, zero, iters[accIndex]).getResult(0);
    auto step = [&](OpBuilder &sb, Value depth, Value partial, Value &aS,
                    Value &bS) {
      OpFoldResult deep = remaining(sb, depth, k, kBlock);
      Value a = paddedBlock(sb, loc, lhs, batch, row, depth, rows, deep, aS,
                            zero);
      Value bb = paddedBlock(sb, loc, rhs, rhsBatch, depth, col, deep, cols,
                             bS, zero);
      return linalg::MatmulOp::create(sb, loc, ValueRange{a, bb},
                                      ValueRange{partial})
          .getResult(0);
    };
    if (staticK) {
      sum = step(nb, c0, sum, aScratch, bScratch);
    } else {
      auto loop = scf::ForOp::create(
          nb, loc, c0, index(nb, k),
          arith::ConstantIndexOp::create(nb, loc, kBlock),
          ValueRange{sum, aScratch, bScratch},
          [&](OpBuilder &sb, Location, Value depth, ValueRange iter) {
            Value aS = iter[1], bS = iter[2];
            Value next = step(sb, depth, iter[0], aS, bS);
            scf::YieldOp::create(sb, loc, ValueRange{next, aS, bS});
          });
      sum = loop.getResult(0);
      aScratch = loop.getResult(1);
      bScratch = loop.getResult(2);
    }
    iters[accIndex] = sum;
    Value valid = tensor::ExtractSliceOp::create(
        nb, loc,
        RankedTensorType::get(
            {getConstantIntValue(rows).value_or(ShapedType::kDynamic),
             getConstantIntValue(cols).value_or(ShapedType::kDynamic)},
            element),
        sum, ArrayRef<OpFoldResult>{nb.getIndexAttr(0), nb.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rows, cols},
        ArrayRef<OpFoldResult>{nb.getIndexAttr(1), nb.getIndexAttr(1)});
    SmallVector<OpFoldResult> offsets(batch.begin(), batch.end()), sizes,
        strides(rank, nb.getIndexAttr(1));
    sizes.assign(rank - 2, nb.getIndexAttr(1));
    offsets.append({row, col});
    sizes.append({rows, cols});
    iters[0] = tensor::InsertSliceOp::create(nb, loc, valid, iters[0], offsets,
                                             sizes, strides);
    return iters;
  };
  // Loops over the batch dims, the row blocks and the column blocks.
  SmallVector<Value> at;
  std::function<SmallVector<Value>(OpBuilder &, int64_t, ValueRange)> nest =
      [&](OpBuilder &nb, int64_t d, ValueRange iters) -> SmallVector<Value> {
    bool rows = d == rank - 2, cols = d == rank - 1;
    auto makeLoop = [&](Value lower, Value upper, int64_t stride,
                        ValueRange carried) {
      auto loop = scf::ForOp::create(
          nb, loc, lower, upper,
          stride == 1 ? c1 : arith::ConstantIndexOp::create(nb, loc, stride),
          carried, [&](OpBuilder &lb, Location, Value iv, ValueRange iter) {
            at.push_back(iv);
            SmallVector<Value> next =
                cols ? computeBlock(lb, ArrayRef<Value>(at).drop_back(2),
                                    at[rank - 2], iv, llvm::to_vector(iter))
                     : nest(lb, d + 1, iter);
            at.pop_back();
            scf::YieldOp::create(lb, loc, next);
          });
      return SmallVector<Value>(loop.getResults());
    };
    if (!rows)
      return makeLoop(c0, index(nb, cols ? n : ls[d]), cols ? nBlock : 1,
                      iters);
    // Whole blocks of kRowBlock rows, then the rest in kTailRowBlock ones.
    Value count = index(nb, m);
    Value whole = arith::SubIOp::create(
        nb, loc, count,
        arith::RemUIOp::create(
            nb, loc, count, arith::ConstantIndexOp::create(nb, loc, kRowBlock)));
    rowBlock = kRowBlock, aIndex = 2, accIndex = 3;
    SmallVector<Value> afterWhole = makeLoop(c0, whole, kRowBlock, iters);
    rowBlock = kTailRowBlock, aIndex = 4, accIndex = 5;
    SmallVector<Value> result =
        makeLoop(whole, count, kTailRowBlock, afterWhole);
    return result;
  };
  return nest(b, 0, init).front();
}

/// Float MatMul of ranks >= 2: a static [M, K] x [K, N] is one
/// linalg.matmul; with dims known at run time, [b..., M, K] x [K, N] or
/// [b..., M, K] x [b..., K, N] (the same batch dims) is blockedMatMul's
/// loops of static matmuls. Static batched products are
/// ReductionsToLinalg's (a generic the CPU target tiles as a contraction).
struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = dyn_cast<RankedTensorType>(lhs.getType());
    auto rt = dyn_cast<RankedTensorType>(rhs.getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!lt || !rt || !result || !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs ranked float operands");
    if (!anyDynamic({lhs, rhs, op.getResult()})) {
      if (lt.getRank() != 2 || rt.getRank() != 2)
        return rewriter.notifyMatchFailure(op, "static batches are generics");
      Value acc = createFilledTensor(rewriter, op.getLoc(), result, 0.0);
      rewriter.replaceOpWithNewOp<linalg::MatmulOp>(op, ValueRange{lhs, rhs},
                                                    ValueRange{acc});
      return success();
    }
    int64_t lr = lt.getRank(), rr = rt.getRank();
    bool shared = rr == 2 && lr >= 2;
    if (!shared && (lr != rr || lr < 3))
      return rewriter.notifyMatchFailure(
          op, "needs [b..., M, K] x [K, N] or equal batch dims");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> ls = tensor::getMixedSizes(rewriter, loc, lhs);
    SmallVector<OpFoldResult> rs = tensor::getMixedSizes(rewriter, loc, rhs);
    AgreeingDims agree{rewriter, loc, {}};
    size_t k = agree.add(ls[lr - 1], rs[rr - 2]);
    SmallVector<size_t> batch;
    if (!shared)
      for (int64_t d = 0; d < lr - 2; ++d)
        batch.push_back(agree.add(ls[d], rs[d]));
    if (agree.conflict)
      return rewriter.notifyMatchFailure(op, "dims that broadcast");
    SmallVector<OpFoldResult> sizes = agree.check(
        describe(op, "MatMul") + ": the operands' dims known only at run "
                                 "time do not agree (broadcasting such a dim "
                                 "is not supported)");
    ls[lr - 1] = rs[rr - 2] = sizes[k];
    for (auto [d, at] : llvm::enumerate(batch))
      ls[d] = rs[d] = sizes[at];
    lhs = sliceTo(rewriter, loc, lhs, ls);
    rhs = sliceTo(rewriter, loc, rhs, rs);
    rewriter.replaceOp(
        op, castTo(rewriter, loc,
                   blockedMatMul(rewriter, loc, lhs, rhs, ls, rs, shared),
                   result));
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

/// [b..., M, K] x [K, N]: every row of every batch meets the same
/// right-hand side, so the batch dims are rows too: one [b...*M, K] x [K, N]
/// matmul between reshapes. A batched contraction would tile M alone, and
/// ViT's attention input projection ([197, 1, 768] x [768, 2304]) had
/// register tiles of one row.
struct SharedRhsMatMulLowering : OpConversionPattern<MatMulOp> {
  SharedRhsMatMulLowering(MLIRContext *ctx)
      : OpConversionPattern<MatMulOp>(ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhs = getStaticType(adaptor.getLhs()),
         rhs = getStaticType(adaptor.getRhs());
    auto result = getStaticType(op.getResult());
    if (!lhs || !rhs || !result || lhs.getRank() < 3 || rhs.getRank() != 2 ||
        result.getRank() != lhs.getRank() ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs [b..., M, K] x [K, N]");
    int64_t rank = lhs.getRank();
    ReassociationIndices rows =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    SmallVector<ReassociationIndices> groups = {rows, {rank - 1}};
    int64_t m = lhs.getNumElements() / lhs.getDimSize(rank - 1);
    Location loc = op.getLoc();
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({m, lhs.getDimSize(rank - 1)},
                              lhs.getElementType()),
        adaptor.getLhs(), groups);
    auto flatResult = RankedTensorType::get(
        {m, result.getDimSize(rank - 1)}, result.getElementType());
    Value product =
        linalg::MatmulOp::create(
            rewriter, loc, ValueRange{flat, adaptor.getRhs()},
            ValueRange{createFilledTensor(rewriter, loc, flatResult, 0.0)})
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, result, product,
                                                       groups);
    return success();
  }
};

} // namespace

void mlc::populateGraphMatMulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, SharedRhsMatMulLowering, VectorMatMulLowering>(
      patterns.getContext());
}
