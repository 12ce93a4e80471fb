//===- UniqueToLinalg.cpp - ONNX Unique -----------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unique over a static input, its results sized when the model runs. The
// input is viewed as n items of L elements: the elements themselves without
// `axis`, else the slices along it (moved to the front). Then, with scalar
// loops (scf.for over tensors):
//
//   first[i]  the first item equal to item i (element by element);
//   rank[i]   for a first occurrence, its place in the output: the number
//             of first occurrences before it, or with `sorted` the number
//             of first occurrences that are lexicographically smaller;
//   U         the number of first occurrences, the output's length.
//
// The outputs (U items, their first indices, their counts, and each item's
// output index) are filled in one more pass. Comparisons are O(n^2 L):
// Unique is rare in inference graphs and small where it appears; the
// reference's sort is what a larger use would want.
//
//===----------------------------------------------------------------------===//

#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
struct UniqueToLinalg : OpConversionPattern<UniqueOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    if (!input)
      return rewriter.notifyMatchFailure(op, "needs a static input");
    for (Value r : op.getResults())
      if (!isa<RankedTensorType>(r.getType()))
        return rewriter.notifyMatchFailure(op, "needs ranked results");
    Type element = input.getElementType();
    if (!element.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "compares numbers only");
    Location loc = op.getLoc();
    int64_t rank = input.getRank();
    std::optional<int64_t> axis;
    if (op.getAxis())
      axis = normalizeAxis(*op.getAxis(), rank);
    // The items: [n, L].
    int64_t n = axis ? input.getDimSize(*axis) : input.getNumElements();
    int64_t length = 1;
    for (int64_t d = 0; axis && d < rank; ++d)
      if (d != *axis)
        length *= input.getDimSize(d);
    if (cast<RankedTensorType>(op.getOutput().getType()).getRank() !=
        (axis ? rank : 1))
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    SmallVector<int64_t> perm;
    if (axis) {
      perm.push_back(*axis);
      for (int64_t d = 0; d < rank; ++d)
        if (d != *axis)
          perm.push_back(d);
    }
    Value items = adaptor.getInput();
    SmallVector<int64_t> moved(input.getShape());
    if (axis && *axis != 0) {
      for (int64_t d = 0; d < rank; ++d)
        moved[d] = input.getDimSize(perm[d]);
      Value init = tensor::EmptyOp::create(rewriter, loc, moved, element);
      items = linalg::TransposeOp::create(rewriter, loc, items, init, perm)
                  .getResult()[0];
    }
    auto flatType = RankedTensorType::get({n, length}, element);
    auto shapeType = RankedTensorType::get({2}, rewriter.getI64Type());
    items = tensor::ReshapeOp::create(
        rewriter, loc, flatType, items,
        arith::ConstantOp::create(
            rewriter, loc, shapeType,
            DenseIntElementsAttr::get(shapeType, ArrayRef<int64_t>{n, length})));

    Type indexType = rewriter.getIndexType(), i1 = rewriter.getI1Type();
    auto cIndex = [&](OpBuilder &b, Location l, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    Value c0 = cIndex(rewriter, loc, 0), c1 = cIndex(rewriter, loc, 1);
    Value cL = cIndex(rewriter, loc, length), cN = cIndex(rewriter, loc, n);
    // 0 or 1 (index_cast would sign-extend i1 true to -1).
    auto boolToIndex = [&](OpBuilder &b, Location l, Value flag) -> Value {
      Value wide = arith::ExtUIOp::create(b, l, b.getI64Type(), flag);
      return arith::IndexCastOp::create(b, l, indexType, wide);
    };
    auto boolConst = [&](OpBuilder &b, Location l, bool v) -> Value {
      return arith::ConstantIntOp::create(b, l, i1, v);
    };
    auto read = [&](OpBuilder &b, Location l, Value i, Value k) -> Value {
      return tensor::ExtractOp::create(b, l, items, ValueRange{i, k});
    };
    bool isFloat = isa<FloatType>(element);
    bool isUnsigned = element.isUnsignedInteger();
    auto equal = [&](OpBuilder &b, Location l, Value x, Value y) -> Value {
      if (isFloat)
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x, y);
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, y);
    };
    auto less = [&](OpBuilder &b, Location l, Value x, Value y) -> Value {
      if (isFloat)
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, y);
      return arith::CmpIOp::create(b, l,
                                   isUnsigned ? arith::CmpIPredicate::ult
                                              : arith::CmpIPredicate::slt,
                                   x, y);
    };
    // Items i and j: (equal, i < j lexicographically).
    auto compare = [&](OpBuilder &b, Location l, Value i,
                       Value j) -> std::pair<Value, Value> {
      auto loop = scf::ForOp::create(
          b, l, c0, cL, c1,
          ValueRange{boolConst(b, l, true), boolConst(b, l, false)},
          [&](OpBuilder &lb, Location ll, Value k, ValueRange state) {
            Value x = read(lb, ll, i, k), y = read(lb, ll, j, k);
            Value same = equal(lb, ll, x, y);
            // The first difference decides.
            Value smaller = arith::AndIOp::create(lb, ll, state[0],
                                                  less(lb, ll, x, y));
            Value lt = arith::OrIOp::create(lb, ll, state[1], smaller);
            Value eq = arith::AndIOp::create(lb, ll, state[0], same);
            scf::YieldOp::create(lb, ll, ValueRange{eq, lt});
          });
      return {loop.getResult(0), loop.getResult(1)};
    };

    // first[i]: the first item equal to item i.
    Value firstInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{std::max<int64_t>(n, 1)}, indexType);
    auto firsts = scf::ForOp::create(
        rewriter, loc, c0, cN, c1, ValueRange{firstInit},
        [&](OpBuilder &b, Location l, Value i, ValueRange state) {
          auto search = scf::ForOp::create(
              b, l, c0, i, c1, ValueRange{i},
              [&](OpBuilder &sb, Location sl, Value j, ValueRange found) {
                Value unset = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::eq, found[0], i);
                Value same = compare(sb, sl, i, j).first;
                Value take = arith::AndIOp::create(sb, sl, unset, same);
                scf::YieldOp::create(
                    sb, sl,
                    ValueRange{arith::SelectOp::create(sb, sl, take, j,
                                                       found[0])});
              });
          scf::YieldOp::create(
              b, l,
              ValueRange{tensor::InsertOp::create(b, l, search.getResult(0),
                                                  state[0], ValueRange{i})});
        });
    Value first = firsts.getResult(0);
    auto isFirst = [&](OpBuilder &b, Location l, Value i) -> Value {
      Value f = tensor::ExtractOp::create(b, l, first, ValueRange{i});
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, f, i);
    };
    // rank[i] of each first occurrence, and their number.
    bool sorted = op.getSorted();
    auto ranks = scf::ForOp::create(
        rewriter, loc, c0, cN, c1, ValueRange{firstInit, c0},
        [&](OpBuilder &b, Location l, Value i, ValueRange state) {
          Value place = state[1];
          if (sorted) {
            auto smaller = scf::ForOp::create(
                b, l, c0, cN, c1, ValueRange{cIndex(b, l, 0)},
                [&](OpBuilder &sb, Location sl, Value j, ValueRange count) {
                  Value lt = compare(sb, sl, j, i).second;
                  Value counted =
                      arith::AndIOp::create(sb, sl, isFirst(sb, sl, j), lt);
                  Value next = arith::AddIOp::create(
                      sb, sl, count[0], boolToIndex(sb, sl, counted));
                  scf::YieldOp::create(sb, sl, ValueRange{next});
                });
            place = smaller.getResult(0);
          }
          Value one = boolToIndex(b, l, isFirst(b, l, i));
          scf::YieldOp::create(
              b, l,
              ValueRange{tensor::InsertOp::create(b, l, place, state[0],
                                                  ValueRange{i}),
                         arith::AddIOp::create(b, l, state[1], one)});
        });
    Value rankOf = ranks.getResult(0);
    Value unique = ranks.getResult(1);

    // The outputs at U.
    Type i64 = rewriter.getI64Type();
    auto itemsType = RankedTensorType::get({ShapedType::kDynamic, length},
                                           element);
    auto vectorType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    Value uniqueItems =
        tensor::EmptyOp::create(rewriter, loc, itemsType, ValueRange{unique});
    Value indices =
        tensor::EmptyOp::create(rewriter, loc, vectorType, ValueRange{unique});
    Value counts = linalg::FillOp::create(
                       rewriter, loc,
                       ValueRange{arith::ConstantIntOp::create(rewriter, loc,
                                                               i64, 0)},
                       ValueRange{tensor::EmptyOp::create(
                           rewriter, loc, vectorType, ValueRange{unique})})
                       .getResult(0);
    Value inverse = tensor::EmptyOp::create(
        rewriter, loc, RankedTensorType::get({n}, i64), ValueRange{});
    auto fill = scf::ForOp::create(
        rewriter, loc, c0, cN, c1,
        ValueRange{uniqueItems, indices, counts, inverse},
        [&](OpBuilder &b, Location l, Value i, ValueRange state) {
          Value f = tensor::ExtractOp::create(b, l, first, ValueRange{i});
          Value slot = tensor::ExtractOp::create(b, l, rankOf, ValueRange{f});
          Value slot64 = arith::IndexCastOp::create(b, l, i64, slot);
          Value inv = tensor::InsertOp::create(b, l, slot64, state[3],
                                               ValueRange{i});
          Value old = tensor::ExtractOp::create(b, l, state[2],
                                                ValueRange{slot});
          Value cnt = tensor::InsertOp::create(
              b, l,
              arith::AddIOp::create(b, l, old,
                                    arith::ConstantIntOp::create(b, l, i64, 1)),
              state[2], ValueRange{slot});
          auto own = scf::IfOp::create(
              b, l, isFirst(b, l, i),
              [&](OpBuilder &t, Location tl) {
                Value idx = tensor::InsertOp::create(
                    t, tl, arith::IndexCastOp::create(t, tl, i64, i), state[1],
                    ValueRange{slot});
                auto copy = scf::ForOp::create(
                    t, tl, c0, cL, c1, ValueRange{state[0]},
                    [&](OpBuilder &cb, Location cl, Value k, ValueRange dst) {
                      scf::YieldOp::create(
                          cb, cl,
                          ValueRange{tensor::InsertOp::create(
                              cb, cl, read(cb, cl, i, k), dst[0],
                              ValueRange{slot, k})});
                    });
                scf::YieldOp::create(t, tl,
                                     ValueRange{copy.getResult(0), idx});
              },
              [&](OpBuilder &e, Location el) {
                scf::YieldOp::create(e, el, ValueRange{state[0], state[1]});
              });
          scf::YieldOp::create(b, l,
                               ValueRange{own.getResult(0), own.getResult(1),
                                          cnt, inv});
        });

    // The unique items back in the input's layout: [U] without an axis,
    // else the slices along it.
    Value output = fill.getResult(0);
    SmallVector<int64_t> outShape = {ShapedType::kDynamic};
    SmallVector<OpFoldResult> outSizes = {OpFoldResult(unique)};
    if (axis)
      for (int64_t d = 1; d < rank; ++d) {
        outShape.push_back(moved[d]);
        outSizes.push_back(rewriter.getIndexAttr(moved[d]));
      }
    auto movedType = RankedTensorType::get(outShape, element);
    if (!axis) {
      output = tensor::CollapseShapeOp::create(
          rewriter, loc, movedType, output,
          SmallVector<ReassociationIndices>{{0, 1}});
    } else {
      // [U, L] to [U, the other dims].
      ReassociationIndices rest;
      for (int64_t d = 1; d < rank; ++d)
        rest.push_back(d);
      SmallVector<ReassociationIndices> groups = {{0}};
      if (rank > 1)
        groups.push_back(rest);
      else
        groups.front().push_back(1);
      output = rank > 1 ? tensor::ExpandShapeOp::create(rewriter, loc,
                                                        movedType, output,
                                                        groups, outSizes)
                              .getResult()
                        : tensor::CollapseShapeOp::create(rewriter, loc,
                                                          movedType, output,
                                                          groups)
                              .getResult();
    }
    if (axis && *axis != 0) {
      SmallVector<int64_t> inverseDims(rank);
      for (int64_t d = 0; d < rank; ++d)
        inverseDims[perm[d]] = d;
      SmallVector<int64_t> shape(rank);
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < rank; ++d) {
        shape[d] = outShape[inverseDims[d]];
        if (ShapedType::isDynamic(shape[d]))
          dynamic.push_back(unique);
      }
      Value init = tensor::EmptyOp::create(rewriter, loc, shape, element,
                                           dynamic);
      output = linalg::TransposeOp::create(rewriter, loc, output, init,
                                           inverseDims)
                   .getResult()[0];
    }
    auto castTo = [&](Value v, Value result) -> Value {
      return v.getType() == result.getType()
                 ? v
                 : tensor::CastOp::create(rewriter, loc, result.getType(), v)
                       .getResult();
    };
    rewriter.replaceOp(op, {castTo(output, op.getOutput()),
                            castTo(fill.getResult(1), op.getIndices()),
                            castTo(fill.getResult(3), op.getInverseIndices()),
                            castTo(fill.getResult(2), op.getCounts())});
    return success();
  }
};
} // namespace

void mlc::populateGraphUniqueToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<UniqueToLinalg>(patterns.getContext());
}
