//===- DynamicShapesToLinalg.cpp - Ops on dims known at run time ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shape, Squeeze/Unsqueeze/Flatten with constant axes, Transpose, MatMul
// and Concat on tensors whose dims are known only at run time (a model's
// symbolic sequence length or image size): the same linalg ops as the
// static lowerings, with sizes read by tensor.dim. Dims that must agree
// (a contraction's, a batch matmul's batch dims) are checked at run time,
// and the operands are cut to the checked sizes (0 where the check fails),
// so that a failed check computes nothing rather than reading past a
// buffer. Static shapes keep their own patterns (StructuredToLinalg.cpp).
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
/// True when any of `values` has a type of dims known only at run time.
bool anyDynamic(ValueRange values) {
  return llvm::any_of(values, [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && !t.hasStaticShape();
  });
}

/// The shape `sizes` give (dynamic where a size is not a constant).
SmallVector<int64_t> getShapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  return shape;
}

/// `v` cut to `sizes` from its origin, or `v` when they are its own.
Value sliceTo(OpBuilder &b, Location loc, Value v,
              ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> own = tensor::getMixedSizes(b, loc, v);
  if (llvm::equal(own, sizes))
    return v;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(getShapeOf(sizes), type.getElementType()), v,
      offsets, sizes, strides);
}

/// Dims of two operands that must agree: pairs are added, then `check`
/// asserts that they do (naming the node) and gives each pair's size, 0
/// where the check fails.
struct AgreeingDims {
  OpBuilder &b;
  Location loc;
  SmallVector<std::pair<OpFoldResult, OpFoldResult>> pairs;
  bool conflict = false;

  /// Index of the pair (a, b).
  size_t add(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy && *cx != *cy)
      conflict = true;
    pairs.push_back({x, y});
    return pairs.size() - 1;
  }

  SmallVector<OpFoldResult> check(const std::string &message) {
    Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
    bool checked = false;
    for (auto [x, y] : pairs) {
      if (getConstantIntValue(x) && getConstantIntValue(y))
        continue;
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                getValueOrCreateConstantIndexOp(b, loc, x),
                                getValueOrCreateConstantIndexOp(b, loc, y)));
      checked = true;
    }
    if (checked)
      cf::AssertOp::create(b, loc, ok, message);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<OpFoldResult> sizes;
    for (auto [x, y] : pairs) {
      if (getConstantIntValue(x) && getConstantIntValue(y)) {
        sizes.push_back(x);
        continue;
      }
      // A static side is the size where the check holds.
      OpFoldResult known = getConstantIntValue(x) ? x : y;
      sizes.push_back(
          arith::SelectOp::create(b, loc, ok,
                                  getValueOrCreateConstantIndexOp(b, loc, known),
                                  zero)
              .getResult());
    }
    return sizes;
  }
};

/// `value` (of `type`'s rank) as `type`: a cast when only the static
/// knowledge of its dims differs.
Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

struct DynamicShapeLowering : OpConversionPattern<ShapeOp> {
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

/// Squeeze (of static size-1 dims), Unsqueeze and Flatten with constant
/// axes: tensor.reshape to the dims computed from the input's.
template <typename OpTy>
struct DynamicAxesReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !result || input.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a dynamic ranked input");
    Location loc = op.getLoc();
    SmallVector<Value> in = getDimsI64(rewriter, loc, adaptor.getInput());
    int64_t rank = input.getRank();
    SmallVector<Value> dims;
    Value one = arith::ConstantIntOp::create(rewriter, loc,
                                             rewriter.getI64Type(), 1);
    if constexpr (std::is_same_v<OpTy, FlattenOp>) {
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

struct DynamicTransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !result || !anyDynamic({adaptor.getInput(), op.getResult()}))
      return rewriter.notifyMatchFailure(op, "needs dynamic ranked shapes");
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

/// Float MatMul of ranks >= 2, [b..., M, K] x [K, N] or [b..., M, K] x
/// [b..., K, N] (the same batch dims), as blockedMatMul's loops of static
/// matmuls.
struct DynamicMatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = dyn_cast<RankedTensorType>(lhs.getType());
    auto rt = dyn_cast<RankedTensorType>(rhs.getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!lt || !rt || !result || !anyDynamic({lhs, rhs, op.getResult()}) ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs dynamic float shapes");
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
/// Concat of inputs whose dims are known at run time: the dims off the
/// axis are checked to agree and the inputs cut to the checked sizes, then
/// tensor.concat's decomposition into insert_slices.
struct DynamicConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = dyn_cast<RankedTensorType>(op.getType());
    SmallVector<Value> inputs(adaptor.getInputs());
    if (!result || inputs.empty() || !anyDynamic(inputs) ||
        llvm::any_of(inputs, [&](Value v) {
          auto t = dyn_cast<RankedTensorType>(v.getType());
          return !t || t.getRank() != result.getRank();
        }))
      return rewriter.notifyMatchFailure(op, "needs dynamic ranked inputs");
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

void mlc::populateGraphDynamicShapesToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DynamicShapeLowering, DynamicAxesReshapeLowering<SqueezeOp>,
               DynamicAxesReshapeLowering<UnsqueezeOp>,
               DynamicAxesReshapeLowering<FlattenOp>, DynamicTransposeLowering,
               DynamicMatMulLowering, DynamicConcatLowering>(
      patterns.getContext());
}
