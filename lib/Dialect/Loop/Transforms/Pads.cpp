//===- Pads.cpp - Constant pads as a fill and an interior copy ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Pads.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

void mlc::loop::rewritePadsAsFillAndCopy(RewriterBase &rewriter,
                                           func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  for (tensor::PadOp pad : pads) {
    TypedAttr padValue;
    Value yielded = pad.getConstantPaddingValue();
    if (!yielded || !matchPattern(yielded, m_Constant(&padValue)))
      continue;
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    rewriter.setInsertionPoint(pad);
    // Sizes known at run time are values: the source's dims and the pads.
    SmallVector<OpFoldResult> low = pad.getMixedLowPad();
    SmallVector<OpFoldResult> high = pad.getMixedHighPad();
    SmallVector<OpFoldResult> inner =
        tensor::getMixedSizes(rewriter, loc, pad.getSource());
    int64_t rank = type.getRank();
    AffineExpr s0, s1, s2;
    bindSymbols(rewriter.getContext(), s0, s1, s2);
    SmallVector<OpFoldResult> outer, above;
    for (int64_t d = 0; d < rank; ++d) {
      outer.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0 + s1 + s2, {low[d], inner[d], high[d]}));
      above.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0 + s1, {low[d], inner[d]}));
    }
    Value value = arith::ConstantOp::create(rewriter, loc, padValue);
    Value padded = tensor::EmptyOp::create(rewriter, loc, outer,
                                           type.getElementType());
    if (padded.getType() != type)
      padded = tensor::CastOp::create(rewriter, loc, type, padded);
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    // Only the border is filled: along dim d, the part below and above the
    // interior, with the dims before d already inside it (each border
    // element once; the interior is written by the copy).
    for (int64_t d = 0; d < rank; ++d) {
      for (auto [start, size] : {std::pair(OpFoldResult(rewriter.getIndexAttr(0)),
                                           low[d]),
                                 std::pair(above[d], high[d])}) {
        if (isConstantIntValue(size, 0))
          continue;
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
            sizes(outer);
        for (int64_t e = 0; e < d; ++e) {
          offsets[e] = low[e];
          sizes[e] = inner[e];
        }
        offsets[d] = start;
        sizes[d] = size;
        Value strip = tensor::ExtractSliceOp::create(rewriter, loc, padded,
                                                     offsets, sizes, ones);
        auto fill = linalg::FillOp::create(rewriter, loc, value, strip);
        fill->setAttr(kPadFillAttr, rewriter.getUnitAttr());
        padded = tensor::InsertSliceOp::create(rewriter, loc,
                                               fill.getResult(0), padded,
                                               offsets, sizes, ones);
      }
    }
    Value interior = tensor::ExtractSliceOp::create(rewriter, loc, padded, low,
                                                    inner, ones);
    Value source = pad.getSource();
    if (source.getType() != interior.getType())
      source = tensor::CastOp::create(rewriter, loc, interior.getType(), source);
    Value copied =
        linalg::CopyOp::create(rewriter, loc, source, interior).getResult(0);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(pad, copied, padded,
                                                       low, inner, ones);
  }
}
