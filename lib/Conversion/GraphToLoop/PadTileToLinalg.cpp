//===- PadTileToLinalg.cpp - ONNX Pad and Tile ----------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Pad with constant pads (negative ones crop first, as an extract_slice):
// `constant` mode as tensor.pad (the CPU backend writes its border and
// copies the interior, on threads), `edge`, `reflect` and `wrap` as one
// generic over the result whose body reads the input at the clamped,
// mirrored or wrapped position. Tile as a generic reading input[i mod n].
// Both need static shapes; Pad's pads and value must be constants.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::buildGatherByIndex;
using mlc::detail::getStaticType;

namespace {
/// The position in [0, size) that `edge`, `reflect` or `wrap` padding reads
/// for the (possibly outside) input index `i`.
Value borderIndex(OpBuilder &b, Location loc, PadMode mode, Value i,
                  int64_t size) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto positiveRem = [&](Value v, int64_t n) -> Value {
    Value r = arith::RemSIOp::create(b, loc, v, cst(n));
    return arith::RemSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, r, cst(n)), cst(n));
  };
  if (mode == PadMode::Edge || size == 1) {
    Value low = arith::MaxSIOp::create(b, loc, i, cst(0));
    return arith::MinSIOp::create(b, loc, low, cst(size - 1));
  }
  if (mode == PadMode::Wrap)
    return positiveRem(i, size);
  // Reflect without repeating the edge: period 2 * (size - 1).
  int64_t period = 2 * (size - 1);
  Value r = positiveRem(i, period);
  Value mirrored = arith::SubIOp::create(b, loc, cst(period), r);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r,
                                       cst(size));
  return arith::SelectOp::create(b, loc, inside, r, mirrored);
}

/// Pad with pads read at run time (negative ones crop), in every mode.
LogicalResult lowerPadAtRunTime(PadOp op, PadOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) {
  using namespace mlc::detail;
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

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    std::optional<SmallVector<int64_t>> pads =
        mlc::detail::getConstantInts(op.getPads());
    if (!inputType || !resultType || !pads)
      return lowerPadAtRunTime(op, adaptor, rewriter);
    int64_t rank = inputType.getRank();
    if (static_cast<int64_t>(pads->size()) != 2 * rank)
      return rewriter.notifyMatchFailure(op, "pads of another rank");
    Location loc = op.getLoc();
    Type element = inputType.getElementType();

    // Negative pads crop.
    Value input = adaptor.getInput();
    SmallVector<int64_t> low(rank), high(rank), offsets(rank), sizes(rank);
    bool crop = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t begin = (*pads)[d], end = (*pads)[d + rank];
      low[d] = std::max<int64_t>(begin, 0);
      high[d] = std::max<int64_t>(end, 0);
      offsets[d] = std::max<int64_t>(-begin, 0);
      sizes[d] = inputType.getDimSize(d) - offsets[d] -
                 std::max<int64_t>(-end, 0);
      if (sizes[d] < 0)
        return rewriter.notifyMatchFailure(op, "crops more than the input");
      crop |= begin < 0 || end < 0;
    }
    if (crop) {
      SmallVector<int64_t> ones(rank, 1);
      input = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(sizes, element), input,
          ValueRange{}, ValueRange{}, ValueRange{}, offsets, sizes, ones);
    }

    PadMode mode = op.getMode();
    if (mode == PadMode::Constant) {
      if (!isa<FloatType>(element) && !element.isSignlessInteger())
        return rewriter.notifyMatchFailure(op, "constant pads of this type");
      TypedAttr value = rewriter.getZeroAttr(element);
      if (Value given = op.getConstantValue()) {
        DenseElementsAttr attr;
        if (!matchPattern(given, m_Constant(&attr)) ||
            attr.getNumElements() != 1)
          return rewriter.notifyMatchFailure(op, "needs a constant value");
        value = cast<TypedAttr>(*attr.getValues<Attribute>().begin());
        if (value.getType() != element)
          return rewriter.notifyMatchFailure(op, "value of another type");
      }
      Value fill = arith::ConstantOp::create(rewriter, loc, value);
      Value padded = tensor::PadOp::create(
          rewriter, loc, resultType, input,
          getAsIndexOpFoldResult(rewriter.getContext(), low),
          getAsIndexOpFoldResult(rewriter.getContext(), high), fill);
      rewriter.replaceOp(op, padded);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      if (sizes[d] == 0 && (low[d] > 0 || high[d] > 0))
        return rewriter.notifyMatchFailure(op, "pads an empty dim");
    Value result = buildGatherByIndex(
        rewriter, loc, resultType, input,
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d) {
            if (low[d] == 0 && high[d] == 0) {
              position.push_back(index[d]);
              continue;
            }
            Value i = arith::SubIOp::create(
                b, l, index[d], arith::ConstantIndexOp::create(b, l, low[d]));
            position.push_back(borderIndex(b, l, mode, i, sizes[d]));
          }
          return position;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Tile with repeats read at run time.
LogicalResult lowerTileAtRunTime(TileOp op, TileOp::Adaptor adaptor,
                                 ConversionPatternRewriter &rewriter) {
  using namespace mlc::detail;
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

struct TileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    if (!inputType || !resultType)
      return lowerTileAtRunTime(op, adaptor, rewriter);
    if (inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "ranks differ");
    for (int64_t size : inputType.getShape())
      if (size == 0)
        return rewriter.notifyMatchFailure(op, "tiles an empty tensor");
    Value result = buildGatherByIndex(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          SmallVector<Value> position;
          for (auto [d, i] : llvm::enumerate(index)) {
            int64_t size = inputType.getDimSize(d);
            position.push_back(
                size == resultType.getDimSize(d)
                    ? i
                    : Value(arith::RemUIOp::create(
                          b, l, i, arith::ConstantIndexOp::create(b, l, size))));
          }
          return position;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlc::populateGraphPadTileToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<PadLowering, TileLowering>(patterns.getContext());
}
