//===- SignalToLinalg.cpp - ONNX DFT and Det ------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// DFT: the definition as one contraction generic over (result..., j): the
// result's last dim selects the real or imaginary part of
//   sum_j x[j] * exp(-+ 2 pi i (j k mod n) / n)
// (the index product is reduced mod n in integers before it becomes an
// angle, and the angle is evaluated in f64). O(n^2) per signal: exact
// for the short transforms of audio front ends; an FFT is future work.
//
// Det: Gaussian elimination with partial pivoting per matrix, in scf.for
// loops over a loop-carried scratch copy (so the static memory plan holds
// one [n, n] buffer): the determinant is the product of the pivots with a
// sign flip per row swap; a zero pivot column gives 0.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
struct DFTLowering : OpConversionPattern<DFTOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!x || !result)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = x.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t n = x.getDimSize(axis);
    bool complex = x.getDimSize(rank - 1) == 2;
    bool inverse = op.getInverse();
    MLIRContext *ctx = rewriter.getContext();
    // Loops: the result's dims, then j (the summed signal position).
    int64_t loops = rank + 1;
    auto inputMap = [&](int64_t part) {
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d + 1 < rank; ++d)
        exprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      exprs.push_back(getAffineConstantExpr(part, ctx));
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<Value> ins = {adaptor.getInput()};
    SmallVector<AffineMap> maps = {inputMap(0)};
    if (complex) {
      ins.push_back(adaptor.getInput());
      maps.push_back(inputMap(1));
    }
    maps.push_back(
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Location loc = op.getLoc();
    Type t = result.getElementType();
    Value init = mlc::detail::createFilledTensor(rewriter, loc, result, 0.0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ins, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type f64 = b.getF64Type();
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value k = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          Value part = linalg::IndexOp::create(b, l, rank - 1);
          Value m = arith::RemUIOp::create(
              b, l, arith::MulIOp::create(b, l, j, k), c(n));
          Value angle = arith::MulFOp::create(
              b, l,
              arith::UIToFPOp::create(
                  b, l, f64,
                  arith::IndexCastUIOp::create(b, l, b.getI64Type(), m)),
              arith::ConstantOp::create(
                  b, l, b.getF64FloatAttr((inverse ? 2.0 : -2.0) * M_PI / n)));
          Value cos = math::CosOp::create(b, l, angle);
          Value sin = math::SinOp::create(b, l, angle);
          Value re = arith::ExtFOp::create(b, l, f64, a[0]);
          if (t == f64)
            re = a[0];
          Value im;
          if (complex)
            im = t == f64 ? a[1] : Value(arith::ExtFOp::create(b, l, f64, a[1]));
          // (re + i im)(cos + i sin)
          Value outRe = arith::MulFOp::create(b, l, re, cos);
          Value outIm = arith::MulFOp::create(b, l, re, sin);
          if (im) {
            outRe = arith::SubFOp::create(
                b, l, outRe, arith::MulFOp::create(b, l, im, sin));
            outIm = arith::AddFOp::create(
                b, l, outIm, arith::MulFOp::create(b, l, im, cos));
          }
          Value isRe = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                             part, c(0));
          Value v = arith::SelectOp::create(b, l, isRe, outRe, outIm);
          if (inverse)
            v = arith::MulFOp::create(
                b, l, v, arith::ConstantOp::create(b, l, b.getF64FloatAttr(1.0 / n)));
          if (t != f64)
            v = arith::TruncFOp::create(b, l, t, v);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, a.back(), v)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct DetLowering : OpConversionPattern<DetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!x || !result)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = x.getRank(), n = x.getDimSize(rank - 1);
    int64_t batch = result.getNumElements();
    Type t = x.getElementType();
    Location loc = op.getLoc();
    auto c = [&](OpBuilder &b, Location l, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    auto f = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, t, b.getFloatAttr(t, v));
    };
    // [batch, n, n] and [batch] views of the operand and the result.
    SmallVector<ReassociationIndices> toBatch;
    if (rank == 2) {
      toBatch = {};
    } else {
      ReassociationIndices leading;
      for (int64_t d = 0; d + 2 < rank; ++d)
        leading.push_back(d);
      toBatch = {leading, {rank - 2}, {rank - 1}};
    }
    auto matrices = RankedTensorType::get({batch, n, n}, t);
    Value input =
        rank == 2
            ? Value(tensor::ExpandShapeOp::create(
                  rewriter, loc, matrices, adaptor.getInput(),
                  SmallVector<ReassociationIndices>{{0, 1}, {2}}))
            : Value(tensor::CollapseShapeOp::create(rewriter, loc, matrices,
                                                    adaptor.getInput(),
                                                    toBatch));
    Value dets = tensor::EmptyOp::create(rewriter, loc, {batch}, t);
    Value scratch = tensor::EmptyOp::create(rewriter, loc, {n, n}, t);
    auto outer = scf::ForOp::create(
        rewriter, loc, c(rewriter, loc, 0), c(rewriter, loc, batch),
        c(rewriter, loc, 1), ValueRange{dets, scratch},
        [&](OpBuilder &b, Location l, Value m, ValueRange iter) {
          auto sliceType = RankedTensorType::get({n, n}, t);
          Value slice = tensor::ExtractSliceOp::create(
              b, l, sliceType, input,
              ArrayRef<OpFoldResult>{m, b.getIndexAttr(0), b.getIndexAttr(0)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(n),
                                     b.getIndexAttr(n)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(1)});
          Value a0 = linalg::CopyOp::create(b, l, slice, iter[1]).getResult(0);
          auto elim = scf::ForOp::create(
              b, l, c(b, l, 0), c(b, l, n), c(b, l, 1),
              ValueRange{a0, f(b, l, 1.0)},
              [&](OpBuilder &b, Location l, Value k, ValueRange st) {
                Value a = st[0], det = st[1];
                auto at = [&](Value mat, Value i, Value j) {
                  return tensor::ExtractOp::create(b, l, mat, ValueRange{i, j})
                      .getResult();
                };
                // Pivot: the row at or below k with the largest |a[i, k]|.
                auto search = scf::ForOp::create(
                    b, l, k, c(b, l, n), c(b, l, 1),
                    ValueRange{k, f(b, l, -1.0)},
                    [&](OpBuilder &b, Location l, Value i, ValueRange best) {
                      Value v = math::AbsFOp::create(b, l, at(a, i, k));
                      Value better = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::OGT, v, best[1]);
                      scf::YieldOp::create(
                          b, l,
                          ValueRange{
                              arith::SelectOp::create(b, l, better, i, best[0]),
                              arith::SelectOp::create(b, l, better, v,
                                                      best[1])});
                    });
                Value p = search.getResult(0);
                // Swap rows k and p (a no-op when p == k).
                auto swap = scf::ForOp::create(
                    b, l, c(b, l, 0), c(b, l, n), c(b, l, 1), ValueRange{a},
                    [&](OpBuilder &b, Location l, Value j, ValueRange s) {
                      Value rowK = at(s[0], k, j), rowP = at(s[0], p, j);
                      Value m1 = tensor::InsertOp::create(b, l, rowP, s[0],
                                                          ValueRange{k, j});
                      Value m2 = tensor::InsertOp::create(b, l, rowK, m1,
                                                          ValueRange{p, j});
                      scf::YieldOp::create(b, l, m2);
                    });
                a = swap.getResult(0);
                Value swapped = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ne, p, k);
                Value pivot = at(a, k, k);
                det = arith::MulFOp::create(b, l, det, pivot);
                det = arith::SelectOp::create(
                    b, l, swapped, arith::NegFOp::create(b, l, det), det);
                Value zero = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::OEQ, pivot, f(b, l, 0.0));
                Value safe =
                    arith::SelectOp::create(b, l, zero, f(b, l, 1.0), pivot);
                // Eliminate below the pivot.
                Value next = arith::AddIOp::create(b, l, k, c(b, l, 1));
                auto rows = scf::ForOp::create(
                    b, l, next, c(b, l, n), c(b, l, 1), ValueRange{a},
                    [&](OpBuilder &b, Location l, Value i, ValueRange r) {
                      Value factor = arith::DivFOp::create(
                          b, l, at(r[0], i, k), safe);
                      auto cols = scf::ForOp::create(
                          b, l, k, c(b, l, n), c(b, l, 1), ValueRange{r[0]},
                          [&](OpBuilder &b, Location l, Value j,
                              ValueRange s) {
                            Value v = arith::SubFOp::create(
                                b, l, at(s[0], i, j),
                                arith::MulFOp::create(b, l, factor,
                                                      at(s[0], k, j)));
                            scf::YieldOp::create(
                                b, l,
                                Value(tensor::InsertOp::create(
                                    b, l, v, s[0], ValueRange{i, j})));
                          });
                      scf::YieldOp::create(b, l, cols.getResult(0));
                    });
                scf::YieldOp::create(b, l, ValueRange{rows.getResult(0), det});
              });
          Value d = tensor::InsertOp::create(b, l, elim.getResult(1), iter[0],
                                             ValueRange{m});
          scf::YieldOp::create(b, l, ValueRange{d, elim.getResult(0)});
        });
    Value flat = outer.getResult(0);
    Value out =
        rank == 2
            ? Value(tensor::CollapseShapeOp::create(
                  rewriter, loc, result, flat,
                  SmallVector<ReassociationIndices>{}))
            : rank == 3 ? flat
                        : Value(tensor::ExpandShapeOp::create(
                              rewriter, loc, result, flat,
                              SmallVector<ReassociationIndices>{
                                  llvm::to_vector(llvm::seq<int64_t>(
                                      0, rank - 2))}));
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void mlc::populateGraphSignalToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DFTLowering, DetLowering>(patterns.getContext());
}
