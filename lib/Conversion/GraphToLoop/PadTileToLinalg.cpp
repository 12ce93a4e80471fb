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

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    std::optional<SmallVector<int64_t>> pads =
        mlc::detail::getConstantInts(op.getPads());
    int64_t rank = inputType.getRank();
    if (!pads || static_cast<int64_t>(pads->size()) != 2 * rank)
      return rewriter.notifyMatchFailure(op, "needs constant pads");
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

struct TileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = getStaticType(adaptor.getInput());
    auto resultType = getStaticType(op.getResult());
    if (!inputType || !resultType ||
        inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
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
