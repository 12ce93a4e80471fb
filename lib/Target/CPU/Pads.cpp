//===- Pads.cpp - Constant pads as a fill and an interior copy ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Pads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

void mlc::target::rewritePadsAsFillAndCopy(RewriterBase &rewriter,
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
    rewriter.setInsertionPoint(pad);
    Value value = arith::ConstantOp::create(rewriter, loc, padValue);
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    auto fill = linalg::FillOp::create(rewriter, loc, value, empty);
    fill->setAttr(kPadFillAttr, rewriter.getUnitAttr());
    SmallVector<OpFoldResult> offsets = pad.getMixedLowPad();
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : pad.getSourceType().getShape())
      sizes.push_back(rewriter.getIndexAttr(size));
    SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
    Value interior = tensor::ExtractSliceOp::create(
        rewriter, loc, fill.getResult(0), offsets, sizes, strides);
    Value copied =
        linalg::CopyOp::create(rewriter, loc, pad.getSource(), interior)
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, copied, fill.getResult(0), offsets, sizes, strides);
  }
}
