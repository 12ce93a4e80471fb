//===- RunTimeShapesToLinalg.cpp - Shapes read at run time ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Slice, Expand, Tile and Pad with bounds, shapes, repeats and pads read at
// run time (gathered from a static input), and ReduceSum over axes read at
// run time (Reshape, Squeeze and Unsqueeze to shapes read at run time are
// LayoutToLinalg's). Each checks
// what ONNX requires of those values at run time (RunTimeShapes.h).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
/// Slice with bounds (and axes, steps) read at run time, clamped as ONNX
/// says; the result is gathered from the input.
struct RuntimeSliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    auto starts = getStaticType(adaptor.getStarts());
    if (!input || !result ||
        (result.hasStaticShape() && input.hasStaticShape()) || !starts ||
        starts.getRank() != 1 || result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    for (Value v : {adaptor.getEnds(), adaptor.getAxes(), adaptor.getSteps()})
      if (v && (!getStaticType(v) || getStaticType(v).getShape() !=
                                         starts.getShape()))
        return rewriter.notifyMatchFailure(op, "bounds of different lengths");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    int64_t rank = input.getRank();
    auto read = [&](Value v) {
      SmallVector<Value> values;
      if (!v)
        return values;
      for (Value x : extractAll(rewriter, loc, v))
        values.push_back(toI64(rewriter, loc, x, x.getType()));
      return values;
    };
    SmallVector<Value> begins = read(adaptor.getStarts());
    SmallVector<Value> ends = read(adaptor.getEnds());
    SmallVector<Value> axes = read(adaptor.getAxes());
    SmallVector<Value> steps = read(adaptor.getSteps());
    for (int64_t j = 0; j < int64_t(begins.size()); ++j) {
      if (axes.size() <= size_t(j))
        axes.push_back(c.i64(j));
      else
        axes[j] = c.normalizeAxis(axes[j], rank);
      if (steps.size() <= size_t(j))
        steps.push_back(c.i64(1));
      c.require(arith::XOrIOp::create(rewriter, loc, c.eq(steps[j], c.i64(0)),
                                      arith::ConstantIntOp::create(
                                          rewriter, loc, 1, 1)));
    }
    // Per dim: first index, step and count (the whole dim when no axis
    // names it; each dim at most once).
    SmallVector<Value> first(rank), stride(rank), dims(rank);
    SmallVector<Value> inputDims = getDimsI64(rewriter, loc, adaptor.getInput());
    for (int64_t d = 0; d < rank; ++d) {
      Value dim = inputDims[d];
      first[d] = c.i64(0);
      stride[d] = c.i64(1);
      dims[d] = dim;
      Value named = c.i64(0);
      for (size_t j = 0; j < begins.size(); ++j) {
        Value here = c.eq(axes[j], c.i64(d));
        named = c.add(named, c.toI64(here));
        Value step = c.select(c.eq(steps[j], c.i64(0)), c.i64(1), steps[j]);
        Value forward = c.cmp(arith::CmpIPredicate::sgt, step, c.i64(0));
        auto wrap = [&](Value v) {
          return c.select(c.cmp(arith::CmpIPredicate::slt, v, c.i64(0)),
                          c.add(v, dim), v);
        };
        auto clamp = [&](Value v, Value lo, Value hi) {
          return arith::MinSIOp::create(
              rewriter, loc, arith::MaxSIOp::create(rewriter, loc, v, lo), hi);
        };
        Value last = arith::SubIOp::create(rewriter, loc, dim, c.i64(1));
        Value begin = c.select(forward, clamp(wrap(begins[j]), c.i64(0), dim),
                               clamp(wrap(begins[j]), c.i64(0), last));
        Value end = c.select(forward, clamp(wrap(ends[j]), c.i64(0), dim),
                             clamp(wrap(ends[j]), c.i64(-1), last));
        Value count = arith::MaxSIOp::create(
            rewriter, loc,
            arith::CeilDivSIOp::create(rewriter, loc,
                                       arith::SubIOp::create(rewriter, loc,
                                                             end, begin),
                                       step),
            c.i64(0));
        first[d] = c.select(here, begin, first[d]);
        stride[d] = c.select(here, step, stride[d]);
        dims[d] = c.select(here, count, dims[d]);
      }
      c.require(c.cmp(arith::CmpIPredicate::sle, named, c.i64(1)));
    }
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Slice") + ": a step is 0, or an axis is out of range or "
                                "repeated");
    Value sliced = gatherInto(
        rewriter, loc, adaptor.getInput(), result, safe,
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          SmallVector<Value> source;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                                 index[d]);
            Value at = arith::AddIOp::create(
                b, l, first[d], arith::MulIOp::create(b, l, i, stride[d]));
            source.push_back(
                arith::IndexCastOp::create(b, l, b.getIndexType(), at));
          }
          return source;
        });
    rewriter.replaceOp(op, sliced);
    return success();
  }
};

/// Expand to a shape read at run time (numpy broadcasting).
struct RuntimeExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto shape = getStaticType(adaptor.getShape());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !shape || !result || result.hasStaticShape() ||
        shape.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a static input");
    int64_t n = input.getRank(), k = shape.getDimSize(0);
    int64_t rank = std::max(n, k);
    if (result.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> target = extractAll(rewriter, loc, adaptor.getShape());
    SmallVector<Value> dims(rank);
    for (int64_t m = 0; m < rank; ++m) {
      int64_t j = m - (rank - n);      // the input's dim, if any
      int64_t t = m - (rank - k);      // the shape's entry, if any
      int64_t size = j >= 0 ? input.getDimSize(j) : 1;
      if (t < 0) {
        dims[m] = c.i64(size);
        continue;
      }
      Value want = target[t];
      if (size == 1) {
        c.require(c.cmp(arith::CmpIPredicate::sge, want, c.i64(0)));
        dims[m] = want;
      } else {
        c.require(c.either(c.eq(want, c.i64(size)), c.eq(want, c.i64(1))));
        dims[m] = c.i64(size);
      }
    }
    int64_t maxCount;
    requireElementsFit(c, dims, input.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Expand") +
            ": the shape does not broadcast with the input's, or the result "
            "would hold more than " +
            std::to_string(maxCount) + " elements");
    rewriter.replaceOp(
        op, gatherInto(rewriter, loc, adaptor.getInput(), result, safe,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                         SmallVector<Value> source;
                         for (int64_t j = 0; j < n; ++j)
                           source.push_back(
                               input.getDimSize(j) == 1
                                   ? arith::ConstantIndexOp::create(b, l, 0)
                                   : index[j + (rank - n)]);
                         return source;
                       }));
    return success();
  }
};

/// Tile with repeats read at run time.
struct RuntimeTileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto repeats = getStaticType(adaptor.getRepeats());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !repeats || !result || result.hasStaticShape() ||
        repeats.getRank() != 1 || repeats.getDimSize(0) != input.getRank() ||
        result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    int64_t rank = input.getRank();
    SmallVector<Value> times = extractAll(rewriter, loc, adaptor.getRepeats());
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d) {
      c.require(c.cmp(arith::CmpIPredicate::sge, times[d], c.i64(0)));
      int64_t size = input.getDimSize(d);
      // repeats * size, checked against the limit below (size <= 2^62).
      Value bounded = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, times[d],
                                                c.i64(0)),
          c.i64(int64_t(1) << 40));
      dims.push_back(arith::MulIOp::create(rewriter, loc, bounded,
                                           c.i64(size)));
      c.require(c.cmp(arith::CmpIPredicate::sle, times[d],
                      c.i64(int64_t(1) << 40)));
    }
    int64_t maxCount;
    requireElementsFit(c, dims, input.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Tile") + ": a repeat count is negative, or the result "
                               "would hold more than " +
            std::to_string(maxCount) + " elements");
    rewriter.replaceOp(
        op, gatherInto(rewriter, loc, adaptor.getInput(), result, safe,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                         SmallVector<Value> source;
                         for (int64_t d = 0; d < rank; ++d)
                           source.push_back(arith::RemUIOp::create(
                               b, l, index[d],
                               arith::ConstantIndexOp::create(
                                   b, l, std::max<int64_t>(
                                             1, input.getDimSize(d)))));
                         return source;
                       }));
    return success();
  }
};

/// Pad with pads read at run time (negative ones crop), in every mode.
struct RuntimePadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto pads = getStaticType(adaptor.getPads());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !pads || !result || result.hasStaticShape() ||
        pads.getRank() != 1 || pads.getDimSize(0) != 2 * input.getRank() ||
        result.getRank() != input.getRank())
      return rewriter.notifyMatchFailure(op, "needs a static input");
    Location loc = op.getLoc();
    int64_t rank = input.getRank();
    PadMode mode = op.getMode();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> amounts = extractAll(rewriter, loc, adaptor.getPads());
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = input.getDimSize(d);
      // Pads beyond 2^40 cannot give a result under the size limit.
      Value limit = c.i64(int64_t(1) << 40);
      for (Value amount : {amounts[d], amounts[rank + d]})
        c.require(c.both(c.cmp(arith::CmpIPredicate::sle, amount, limit),
                         c.cmp(arith::CmpIPredicate::sge, amount,
                               c.i64(-(int64_t(1) << 40)))));
      Value dim = c.add(c.i64(size), c.add(amounts[d], amounts[rank + d]));
      c.require(c.cmp(arith::CmpIPredicate::sge, dim, c.i64(0)));
      // Crops leave `kept` of the input (never less than nothing); edge,
      // reflect and wrap read from what is kept, which then cannot be empty.
      auto crop = [&](Value amount) {
        return arith::MaxSIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, c.i64(0),
                                                 amount),
            c.i64(0));
      };
      Value kept = arith::SubIOp::create(
          rewriter, loc,
          arith::SubIOp::create(rewriter, loc, c.i64(size), crop(amounts[d])),
          crop(amounts[rank + d]));
      c.require(c.cmp(arith::CmpIPredicate::sge, kept, c.i64(0)));
      // As ONNX Runtime: edge and reflect need something left to read, and
      // reflect pads at most kept - 1 on a side.
      if (mode != PadMode::Constant)
        c.require(c.cmp(arith::CmpIPredicate::sgt, kept, c.i64(0)));
      if (mode == PadMode::Reflect)
        for (Value amount : {amounts[d], amounts[rank + d]})
          c.require(c.cmp(arith::CmpIPredicate::slt, amount, kept));
      dims.push_back(dim);
    }
    int64_t maxCount;
    requireElementsFit(c, dims, input.getElementType(), maxCount);
    SmallVector<Value> safe = checkedDims(
        c, result, dims,
        describe(op, "Pad") + ": a dim would be negative, a crop removes "
                              "more than the input has (or all of it, for "
                              "edge and reflect), a reflect pad reaches past "
                              "what is kept, or the result would hold more "
                              "than " +
            std::to_string(maxCount) + " elements");
    Type element = input.getElementType();
    Value fill;
    if (Value v = adaptor.getConstantValue(); v && getStaticType(v) &&
                                              getStaticType(v).getNumElements() ==
                                                  1)
      fill = extractScalar(rewriter, loc, v);
    else
      fill = arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getZeroAttr(
                                           mlc::detail::getSignlessType(element)));
    if (fill.getType() != element)
      fill = UnrealizedConversionCastOp::create(rewriter, loc, element, fill)
                 .getResult(0);
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (result.isDynamicDim(d))
        dynamicSizes.push_back(arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(), safe[d]));
    Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                         element, dynamicSizes);
    Type i64 = rewriter.getI64Type();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange(), init,
        ArrayRef<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
          SmallVector<Value> source;
          auto constant = [&](int64_t v) {
            return arith::ConstantIntOp::create(b, l, i64, v).getResult();
          };
          for (int64_t d = 0; d < rank; ++d) {
            // Negative pads crop first; the mode then pads the cropped
            // input, whose first index is `low` and size `kept`.
            int64_t size = input.getDimSize(d);
            Value i = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, d));
            Value low = arith::MaxSIOp::create(
                b, l, arith::SubIOp::create(b, l, constant(0), amounts[d]),
                constant(0));
            Value high = arith::MaxSIOp::create(
                b, l,
                arith::SubIOp::create(b, l, constant(0), amounts[rank + d]),
                constant(0));
            Value remaining = arith::SubIOp::create(
                b, l, arith::SubIOp::create(b, l, constant(size), low), high);
            Value kept = arith::MaxSIOp::create(b, l, remaining, constant(1));
            Value at = arith::SubIOp::create(
                b, l, i,
                arith::MaxSIOp::create(b, l, amounts[d], constant(0)));
            Value last = arith::SubIOp::create(b, l, kept, constant(1));
            auto clamp = [&](Value v) {
              return arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, v, constant(0)), last);
            };
            auto positiveRem = [&](Value v, Value m) {
              Value r = arith::RemSIOp::create(b, l, v, m);
              Value negative = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, r, constant(0));
              return arith::SelectOp::create(
                  b, l, negative, arith::AddIOp::create(b, l, r, m), r);
            };
            Value from;
            switch (mode) {
            case PadMode::Constant:
              inside = arith::AndIOp::create(
                  b, l, inside,
                  arith::AndIOp::create(
                      b, l,
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                            at, constant(0)),
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                            at, remaining)));
              from = clamp(at);
              break;
            case PadMode::Edge:
              from = clamp(at);
              break;
            case PadMode::Wrap:
              from = positiveRem(at, kept);
              break;
            case PadMode::Reflect: {
              // Period 2 (kept - 1); a single element reflects onto itself.
              Value period = arith::MaxSIOp::create(
                  b, l, arith::MulIOp::create(b, l, constant(2), last),
                  constant(1));
              Value m = positiveRem(at, period);
              Value back = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::sge, m, kept);
              from = clamp(arith::SelectOp::create(
                  b, l, back, arith::SubIOp::create(b, l, period, m), m));
              break;
            }
            }
            // Never past the input, even where the value is not used.
            from = arith::MinSIOp::create(
                b, l, arith::AddIOp::create(b, l, from, low),
                constant(std::max<int64_t>(size - 1, 0)));
            source.push_back(
                arith::IndexCastOp::create(b, l, b.getIndexType(), from));
          }
          Value value = fill;
          if (input.getNumElements() > 0) {
            Value read =
                tensor::ExtractOp::create(b, l, adaptor.getInput(), source);
            value = arith::SelectOp::create(b, l, inside, read, fill);
          }
          linalg::YieldOp::create(b, l, value);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};
/// ReduceSum over axes read at run time: every element is added into its
/// place in a flat accumulator of the kept dims (at most as many elements
/// as the input), whose first elements are then the result.
struct RuntimeReduceSumLowering : OpConversionPattern<ReduceSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = getStaticType(adaptor.getInput());
    auto axes = adaptor.getDynamicAxes()
                    ? getStaticType(adaptor.getDynamicAxes())
                    : RankedTensorType();
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!input || !axes || axes.getRank() != 1 || !result ||
        input.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "needs a static input");
    int64_t rank = input.getRank();
    int64_t count = axes.getDimSize(0);
    bool keep = op.getKeepdims();
    Type element = input.getElementType();
    Type compute = getSignlessType(element);
    if (count == 0 && op.getNoopWithEmptyAxes())
      return rewriter.notifyMatchFailure(op, "no axes: nothing to reduce");
    int64_t outRank = keep ? rank : (count == 0 ? 0 : rank - count);
    if (result.getRank() != outRank)
      return rewriter.notifyMatchFailure(op, "rank mismatch");
    Location loc = op.getLoc();
    DimBuilder c(rewriter, loc);
    SmallVector<Value> normalized;
    for (Value axis : extractAll(rewriter, loc, adaptor.getDynamicAxes()))
      normalized.push_back(c.normalizeAxis(axis, rank));
    SmallVector<Value> marked;
    Value total = c.i64(0);
    for (int64_t d = 0; d < rank; ++d) {
      Value named = arith::ConstantIntOp::create(rewriter, loc, count == 0, 1);
      for (Value axis : normalized)
        named = c.either(named, c.eq(axis, c.i64(d)));
      marked.push_back(named);
      total = c.add(total, c.toI64(named));
    }
    if (count > 0)
      c.require(c.eq(total, c.i64(count)));
    // Kept dims, their row-major strides, and the result's dims.
    SmallVector<Value> kept(rank), strides(rank);
    Value stride = c.i64(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      kept[d] = c.select(marked[d], c.i64(1), c.i64(input.getDimSize(d)));
      strides[d] = stride;
      stride = arith::MulIOp::create(rewriter, loc, stride, kept[d]);
    }
    Value elements = stride;
    SmallVector<Value> dims(outRank, c.i64(1));
    if (keep) {
      dims = kept;
    } else if (count > 0) {
      Value before = c.i64(0);
      Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
      for (int64_t d = 0; d < rank; ++d) {
        Value position = arith::SubIOp::create(rewriter, loc, c.i64(d), before);
        for (int64_t m = 0; m < outRank; ++m)
          dims[m] = c.select(
              c.both(arith::XOrIOp::create(rewriter, loc, marked[d], yes),
                     c.eq(position, c.i64(m))),
              c.i64(input.getDimSize(d)), dims[m]);
        before = c.add(before, c.toI64(marked[d]));
      }
    }
    for (int64_t d = 0; d < outRank; ++d)
      if (!result.isDynamicDim(d))
        c.require(c.eq(dims[d], c.i64(result.getDimSize(d))));
    cf::AssertOp::create(rewriter, loc, c.ok,
                         describe(op, "ReduceSum") +
                             ": an axis is out of range or repeated");
    // On a failed check: one element, reduced over everything.
    Value one = c.i64(1);
    for (int64_t d = 0; d < rank; ++d)
      strides[d] = c.select(c.ok, strides[d], c.i64(0));
    elements = c.select(c.ok, elements, one);
    for (Value &d : dims)
      d = c.select(c.ok, d, one);

    int64_t size = input.getNumElements();
    Value data = adaptor.getInput();
    if (compute != element)
      data = UnrealizedConversionCastOp::create(
                 rewriter, loc, RankedTensorType::get(input.getShape(), compute),
                 data)
                 .getResult(0);
    auto flatType = RankedTensorType::get({size}, compute);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(compute));
    Value acc = linalg::FillOp::create(
                    rewriter, loc, zero,
                    ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                                       flatType.getShape(),
                                                       compute)})
                    .getResult(0);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Type i64 = rewriter.getI64Type();
    auto sum = scf::ForOp::create(
        rewriter, loc, c0, arith::ConstantIndexOp::create(rewriter, loc, size),
        c1, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          SmallVector<Value> sizes;
          for (int64_t d = 0; d < rank; ++d)
            sizes.push_back(
                arith::ConstantIndexOp::create(b, l, input.getDimSize(d)));
          SmallVector<Value> coords = unravelIndex(b, l, i, sizes);
          Value at = arith::ConstantIntOp::create(b, l, i64, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value coord = arith::SelectOp::create(
                b, l, marked[d], arith::ConstantIntOp::create(b, l, i64, 0),
                arith::IndexCastOp::create(b, l, i64, coords[d]));
            at = arith::AddIOp::create(
                b, l, at, arith::MulIOp::create(b, l, coord, strides[d]));
          }
          Value slot = arith::IndexCastOp::create(b, l, b.getIndexType(), at);
          Value x = tensor::ExtractOp::create(b, l, data, coords);
          Value old = tensor::ExtractOp::create(b, l, carried[0], slot);
          Value added = isa<FloatType>(compute)
                            ? arith::AddFOp::create(b, l, old, x).getResult()
                            : arith::AddIOp::create(b, l, old, x).getResult();
          scf::YieldOp::create(
              b, l, tensor::InsertOp::create(b, l, added, carried[0], slot)
                        .getResult());
        });
    Value used = tensor::ExtractSliceOp::create(
        rewriter, loc, sum.getResult(0),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{
            arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                       elements)
                .getResult()},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    Value shape = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({outRank}, i64), dims);
    Value out = tensor::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(result.getShape(), compute), used,
        shape);
    if (compute != element)
      out = UnrealizedConversionCastOp::create(rewriter, loc, result, out)
                .getResult(0);
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void mlc::populateGraphRunTimeShapesToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RuntimePadLowering, RuntimeReduceSumLowering,
               RuntimeSliceLowering, RuntimeExpandLowering,
               RuntimeTileLowering>(patterns.getContext());
}
