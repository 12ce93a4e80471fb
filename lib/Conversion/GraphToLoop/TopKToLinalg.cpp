//===- TopKToLinalg.cpp - ONNX TopK ---------------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// TopK with `k` read at run time. Each slice along the axis is scanned k
// times: the j-th pass picks the first element, in ONNX's order (value
// descending for `largest`, ascending otherwise; equal values by index), that
// comes after the one the previous pass picked, so no scratch memory is
// needed (k * n comparisons a slice). The result is sorted, which `sorted =
// 0` allows too. A k below 0 or above the axis' size fails a run-time check.
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
struct TopKToLinalg : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto k = getStaticType(adaptor.getK());
    auto valuesType = dyn_cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!input || input.getRank() == 0 || !k || k.getNumElements() != 1 ||
        !valuesType || !indicesType ||
        valuesType.getRank() != input.getRank() ||
        indicesType.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input");
    Type element = input.getElementType();
    Type compute = getSignlessType(element);
    if (!isa<FloatType>(compute) && !isa<IntegerType>(compute))
      return rewriter.notifyMatchFailure(op, "needs numbers");
    Location loc = op.getLoc();
    int64_t rank = input.getRank();
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), rank);
    int64_t size = input.getDimSize(axis);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= input.getDimSize(d);
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= input.getDimSize(d);

    DimBuilder c(rewriter, loc);
    Value count = extractScalar(rewriter, loc, adaptor.getK());
    c.require(c.both(c.cmp(arith::CmpIPredicate::sge, count, c.i64(0)),
                     c.cmp(arith::CmpIPredicate::sle, count, c.i64(size))));
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d == axis ? count : c.i64(input.getDimSize(d)));
    SmallVector<Value> safe = checkedDims(
        c, valuesType, dims,
        describe(op, "TopK") + ": k is negative or larger than the axis' " +
            std::to_string(size) + " elements");
    Value picks = arith::IndexCastOp::create(rewriter, loc,
                                             rewriter.getIndexType(),
                                             safe[axis]);

    // The input as [outer, size, inner]; the results as [outer, k, inner],
    // reshaped to their ranks at the end.
    Value data = adaptor.getInput();
    if (compute != element)
      data = UnrealizedConversionCastOp::create(
                 rewriter, loc,
                 RankedTensorType::get(input.getShape(), compute), data)
                 .getResult(0);
    auto flatShape = [&](ArrayRef<int64_t> dims) {
      auto type = RankedTensorType::get({int64_t(dims.size())},
                                        rewriter.getI64Type());
      return arith::ConstantOp::create(
          rewriter, loc, type, DenseIntElementsAttr::get(type, dims));
    };
    Value view = tensor::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get({outer, size, inner}, compute),
        data, flatShape({outer, size, inner}));
    Type i64 = rewriter.getI64Type();
    auto slice = [&](Type t) {
      return tensor::EmptyOp::create(
          rewriter, loc, ArrayRef<int64_t>{outer, ShapedType::kDynamic, inner},
          t, ValueRange{picks});
    };
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value slices =
        arith::ConstantIndexOp::create(rewriter, loc, outer * inner);
    Value innerSize = arith::ConstantIndexOp::create(rewriter, loc, inner);
    Value length = arith::ConstantIndexOp::create(rewriter, loc, size);
    bool largest = op.getLargest();
    bool isUnsigned = element.isUnsignedInteger();
    // Whether (va, ia) comes before (vb, ib) in the result's order.
    auto before = [&](OpBuilder &b, Location l, Value va, Value ia, Value vb,
                      Value ib) {
      Value better, same;
      if (isa<FloatType>(compute)) {
        better = arith::CmpFOp::create(
            b, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
            va, vb);
        same = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, va, vb);
      } else {
        auto p = largest ? (isUnsigned ? arith::CmpIPredicate::ugt
                                       : arith::CmpIPredicate::sgt)
                         : (isUnsigned ? arith::CmpIPredicate::ult
                                       : arith::CmpIPredicate::slt);
        better = arith::CmpIOp::create(b, l, p, va, vb);
        same = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, va, vb);
      }
      Value earlier =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, ia, ib);
      return arith::OrIOp::create(b, l, better,
                                  arith::AndIOp::create(b, l, same, earlier))
          .getResult();
    };
    Value zeroValue =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(compute));
    auto perSlice = scf::ForOp::create(
        rewriter, loc, c0, slices, c1,
        ValueRange{slice(compute), slice(i64)},
        [&](OpBuilder &b, Location l, Value s, ValueRange results) {
          Value o = arith::DivUIOp::create(b, l, s, innerSize);
          Value in = arith::RemUIOp::create(b, l, s, innerSize);
          // Pass j: the first element after the previous pick.
          Value none = arith::ConstantIntOp::create(b, l, 0, 1);
          auto passes = scf::ForOp::create(
              b, l, c0, picks, c1,
              ValueRange{results[0], results[1], zeroValue, c0, none},
              [&](OpBuilder &pb, Location pl, Value j, ValueRange carried) {
                Value prevValue = carried[2], prevIndex = carried[3];
                Value havePrev = carried[4];
                auto scan = scf::ForOp::create(
                    pb, pl, c0, length, c1,
                    ValueRange{zeroValue, c0, none},
                    [&](OpBuilder &sb, Location sl, Value p,
                        ValueRange best) {
                      Value v = tensor::ExtractOp::create(
                          sb, sl, view, ValueRange{o, p, in});
                      Value after = arith::OrIOp::create(
                          sb, sl,
                          arith::XOrIOp::create(
                              sb, sl, havePrev,
                              arith::ConstantIntOp::create(sb, sl, 1, 1)),
                          before(sb, sl, prevValue, prevIndex, v, p));
                      Value improves = arith::OrIOp::create(
                          sb, sl,
                          arith::XOrIOp::create(
                              sb, sl, best[2],
                              arith::ConstantIntOp::create(sb, sl, 1, 1)),
                          before(sb, sl, v, p, best[0], best[1]));
                      Value take =
                          arith::AndIOp::create(sb, sl, after, improves);
                      scf::YieldOp::create(
                          sb, sl,
                          ValueRange{
                              arith::SelectOp::create(sb, sl, take, v, best[0]),
                              arith::SelectOp::create(sb, sl, take, p, best[1]),
                              arith::OrIOp::create(sb, sl, best[2], take)});
                    });
                Value value = scan.getResult(0), index = scan.getResult(1);
                Value values = tensor::InsertOp::create(
                    pb, pl, value, carried[0], ValueRange{o, j, in});
                Value indices = tensor::InsertOp::create(
                    pb, pl,
                    arith::IndexCastOp::create(pb, pl, pb.getI64Type(), index),
                    carried[1], ValueRange{o, j, in});
                scf::YieldOp::create(
                    pb, pl,
                    ValueRange{values, indices, value, index,
                               arith::ConstantIntOp::create(pb, pl, 1, 1)});
              });
          scf::YieldOp::create(
              b, l, ValueRange{passes.getResult(0), passes.getResult(1)});
        });
    // Back to the results' ranks.
    SmallVector<Value> shapeValues;
    for (int64_t d = 0; d < rank; ++d)
      shapeValues.push_back(safe[d]);
    Value shape = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({rank}, i64), shapeValues);
    Value values = tensor::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(valuesType.getShape(), compute),
        perSlice.getResult(0), shape);
    if (compute != element)
      values = UnrealizedConversionCastOp::create(rewriter, loc, valuesType,
                                                  values)
                   .getResult(0);
    Value indices = tensor::ReshapeOp::create(rewriter, loc, indicesType,
                                              perSlice.getResult(1), shape);
    rewriter.replaceOp(op, {values, indices});
    return success();
  }
};
} // namespace

void mlc::populateGraphTopKToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TopKToLinalg>(patterns.getContext());
}
