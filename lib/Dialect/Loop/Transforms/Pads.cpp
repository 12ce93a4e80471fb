//===- Pads.cpp - Constant pads as a fill and an interior copy ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Pads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

void mlc::loop::rewritePadsAsFillAndCopy(RewriterBase &rewriter,
                                           func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) {
    if (pad.getResultType().hasStaticShape() &&
        pad.getSourceType().hasStaticShape())
      pads.push_back(pad);
  });
  for (tensor::PadOp pad : pads) {
    TypedAttr padValue;
    Value yielded = pad.getConstantPaddingValue();
    if (!yielded || !matchPattern(yielded, m_Constant(&padValue)))
      continue;
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    std::optional<SmallVector<int64_t>> low =
        getConstantIntValues(pad.getMixedLowPad());
    if (!low)
      continue;
    rewriter.setInsertionPoint(pad);
    Value value = arith::ConstantOp::create(rewriter, loc, padValue);
    Value padded = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
    ArrayRef<int64_t> outer = type.getShape();
    ArrayRef<int64_t> inner = pad.getSourceType().getShape();
    int64_t rank = type.getRank();
    auto attrs = [&](ArrayRef<int64_t> values) {
      return llvm::to_vector(llvm::map_range(values, [&](int64_t v) {
        return OpFoldResult(rewriter.getIndexAttr(v));
      }));
    };
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    // Only the border is filled: along dim d, the part below and above the
    // interior, with the dims before d already inside it (each border
    // element once; the interior is written by the copy).
    for (int64_t d = 0; d < rank; ++d) {
      int64_t above = outer[d] - (*low)[d] - inner[d];
      for (auto [start, size] : {std::pair((int64_t)0, (*low)[d]),
                                 std::pair((*low)[d] + inner[d], above)}) {
        if (size <= 0)
          continue;
        SmallVector<int64_t> offsets(rank, 0), sizes(outer);
        for (int64_t e = 0; e < d; ++e) {
          offsets[e] = (*low)[e];
          sizes[e] = inner[e];
        }
        offsets[d] = start;
        sizes[d] = size;
        Value strip = tensor::ExtractSliceOp::create(
            rewriter, loc, padded, attrs(offsets), attrs(sizes), ones);
        auto fill = linalg::FillOp::create(rewriter, loc, value, strip);
        fill->setAttr(kPadFillAttr, rewriter.getUnitAttr());
        padded = tensor::InsertSliceOp::create(rewriter, loc, fill.getResult(0),
                                               padded, attrs(offsets),
                                               attrs(sizes), ones);
      }
    }
    Value interior = tensor::ExtractSliceOp::create(
        rewriter, loc, padded, attrs(*low), attrs(inner), ones);
    Value copied =
        linalg::CopyOp::create(rewriter, loc, pad.getSource(), interior)
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, copied, padded, attrs(*low), attrs(inner), ones);
  }
}
