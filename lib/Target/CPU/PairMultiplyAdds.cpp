//===- PairMultiplyAdds.cpp - Register tiles of i16 pairs -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "PairMultiplyAdds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {
/// The dims of `map` whose extent in `ranges` is not one.
SmallVector<unsigned> wideDims(AffineMap map, ArrayRef<int64_t> ranges) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (ranges[d] != 1)
      dims.push_back(d);
  }
  return dims;
}

/// `value` read whole as a vector of its own shape, cast to `shape`.
Value readAs(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Type element = type.getElementType();
  Value padding =
      arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  Value read = vector::TransferReadOp::create(
      b, loc, VectorType::get(type.getShape(), element), value,
      SmallVector<Value>(type.getRank(), zero), padding,
      SmallVector<bool>(type.getRank(), true));
  return vector::ShapeCastOp::create(b, loc, VectorType::get(shape, element),
                                     read);
}

/// The lane-wise sums of the products of the pairs of `x` and `y` (2n
/// i16 each): n i32.
Value multiplyAddPairs(OpBuilder &b, Location loc, Value x, Value y,
                       StringRef intrinsic) {
  auto type = cast<VectorType>(x.getType());
  int64_t n = type.getNumElements() / 2;
  auto result = VectorType::get({n}, b.getI32Type());
  if (!intrinsic.empty())
    return LLVM::CallIntrinsicOp::create(b, loc, result,
                                         b.getStringAttr(intrinsic),
                                         ValueRange{x, y})
        .getResult(0);
  SmallVector<int64_t> even, odd;
  for (int64_t i = 0; i < n; ++i) {
    even.push_back(2 * i);
    odd.push_back(2 * i + 1);
  }
  auto half = [&](Value v, ArrayRef<int64_t> lanes) {
    Value picked = vector::ShuffleOp::create(b, loc, v, v, lanes);
    return arith::ExtSIOp::create(b, loc, result, picked).getResult();
  };
  Value evens = arith::MulIOp::create(b, loc, half(x, even), half(y, even));
  Value odds = arith::MulIOp::create(b, loc, half(x, odd), half(y, odd));
  return arith::AddIOp::create(b, loc, evens, odds);
}
} // namespace

LogicalResult mlc::target::vectorizePairTile(RewriterBase &rewriter,
                                             linalg::LinalgOp op,
                                             unsigned pairDim, int64_t lanes,
                                             StringRef intrinsic) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges[pairDim] != 2)
    return failure();
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
  OpOperand *out = op.getDpsInitOperand(0);
  // One wide dim besides the pair in each input (a row, a column), and the
  // result [rows, columns].
  SmallVector<unsigned> lhsDims =
      wideDims(op.getMatchingIndexingMap(lhs), ranges);
  SmallVector<unsigned> rhsDims =
      wideDims(op.getMatchingIndexingMap(rhs), ranges);
  SmallVector<unsigned> outDims =
      wideDims(op.getMatchingIndexingMap(out), ranges);
  if (lhsDims.empty() || lhsDims.back() != pairDim || lhsDims.size() > 2 ||
      rhsDims.empty() || rhsDims.back() != pairDim || rhsDims.size() > 2)
    return failure();
  int64_t rows = lhsDims.size() == 2 ? ranges[lhsDims[0]] : 1;
  int64_t cols = rhsDims.size() == 2 ? ranges[rhsDims[0]] : 1;
  SmallVector<unsigned> expected;
  if (rows > 1)
    expected.push_back(lhsDims[0]);
  if (cols > 1)
    expected.push_back(rhsDims[0]);
  if (outDims != expected)
    return failure();

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type i16 = rewriter.getIntegerType(16), i32 = rewriter.getI32Type();
  Value pairs = readAs(rewriter, loc, lhs->get(), {rows, 2});
  // The panel's row is contiguous: read as one vector, not unrolled into
  // reads of its innermost dim, a pair each.
  auto rhsType = cast<RankedTensorType>(rhs->get().getType());
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, rhsType.getRank()));
  Value row = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({2 * cols}, i16), rhs->get(),
      ArrayRef<ReassociationIndices>{all});
  Value panel = readAs(rewriter, loc, row, {2 * cols});
  Value sums = readAs(rewriter, loc, out->get(), {rows, cols});
  // Vectors of `lanes` columns, then the rest.
  SmallVector<std::pair<int64_t, int64_t>> chunks;
  for (int64_t c = 0; c < cols; c += lanes)
    chunks.push_back({c, std::min(lanes, cols - c)});
  for (int64_t r = 0; r < rows; ++r) {
    Value pair = vector::ExtractOp::create(rewriter, loc, pairs, r);
    Value word = vector::ExtractOp::create(
        rewriter, loc,
        vector::BitCastOp::create(rewriter, loc, VectorType::get({1}, i32),
                                  pair),
        0);
    Value sumsRow = vector::ExtractOp::create(rewriter, loc, sums, r);
    for (auto [start, width] : chunks) {
      Value words = vector::BroadcastOp::create(
          rewriter, loc, VectorType::get({width}, i32), word);
      Value left = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({2 * width}, i16), words);
      Value right = vector::ExtractStridedSliceOp::create(
          rewriter, loc, panel, {2 * start}, {2 * width}, {1});
      Value products = multiplyAddPairs(
          rewriter, loc, left, right, width == lanes ? intrinsic : "");
      Value part = vector::ExtractStridedSliceOp::create(
          rewriter, loc, sumsRow, {start}, {width}, {1});
      part = arith::AddIOp::create(rewriter, loc, part, products);
      sumsRow = vector::InsertStridedSliceOp::create(rewriter, loc, part,
                                                     sumsRow, {start}, {1});
    }
    sums = vector::InsertOp::create(rewriter, loc, sumsRow, sums, r);
  }
  auto outType = cast<RankedTensorType>(out->get().getType());
  Value written = vector::ShapeCastOp::create(
      rewriter, loc, VectorType::get(outType.getShape(), i32), sums);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value result = vector::TransferWriteOp::create(
                     rewriter, loc, written, out->get(),
                     SmallVector<Value>(outType.getRank(), zero),
                     SmallVector<bool>(outType.getRank(), true))
                     .getResult();
  rewriter.replaceOp(op, result);
  return success();
}
