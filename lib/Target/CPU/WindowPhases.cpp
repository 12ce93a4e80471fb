//===- WindowPhases.cpp - Strided windows as unit-stride phases -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WindowPhases.h"
#include "TensorTypes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {
/// input[n, c, h, j * stride + phase] for j < width: a copy, so that the
/// phase's window reads contiguous rows.
Value phaseColumns(RewriterBase &rewriter, Location loc, Value input,
                   int64_t stride, int64_t phase, int64_t width) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[3] = width;
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  auto read = AffineMap::get(4, 0, {d0, d1, d2, d3 * stride + phase}, ctx);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, empty.getType(), input, empty,
             ArrayRef<AffineMap>{read, rewriter.getMultiDimIdentityMap(4)},
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, args[0]);
             })
      .getResult(0);
}

void splitWindow(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!strides || !dilations || !op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperandTypes(), mlc::target::isStaticF32))
    return;
  SmallVector<int64_t> s(strides.getValues<int64_t>());
  SmallVector<int64_t> d(dilations.getValues<int64_t>());
  if (s.size() != 2 || s[1] == 1 || d[1] != 1)
    return;
  Value input = op.getDpsInputs()[0], window = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  auto windowType = cast<RankedTensorType>(window.getType());
  auto accType = cast<RankedTensorType>(acc.getType());
  int64_t kw = windowType.getShape().back();
  int64_t ow = accType.getDimSize(3);
  Location loc = op.getLoc();
  auto phaseStrides = rewriter.getI64TensorAttr({s[0], 1});
  auto phaseDilations = rewriter.getI64TensorAttr({d[0], 1});
  rewriter.setInsertionPoint(op);
  for (int64_t p = 0; p < std::min(s[1], kw); ++p) {
    int64_t tapCount = (kw - p + s[1] - 1) / s[1];
    Value columns =
        phaseColumns(rewriter, loc, input, s[1], p, ow + tapCount - 1);
    SmallVector<int64_t> tapShape(windowType.getShape());
    tapShape.back() = tapCount;
    if (isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation())) {
      SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0));
      offsets[2] = rewriter.getIndexAttr(p);
      SmallVector<OpFoldResult> sizes =
          getAsIndexOpFoldResult(rewriter.getContext(), tapShape);
      SmallVector<OpFoldResult> steps(3, rewriter.getIndexAttr(1));
      steps[2] = rewriter.getIndexAttr(s[1]);
      Value taps = tensor::ExtractSliceOp::create(rewriter, loc, window,
                                                  offsets, sizes, steps);
      acc = linalg::DepthwiseConv2DNchwChwOp::create(
                rewriter, loc, TypeRange{accType}, ValueRange{columns, taps},
                ValueRange{acc}, phaseStrides, phaseDilations)
                .getResult(0);
      continue;
    }
    Value taps = tensor::EmptyOp::create(rewriter, loc, tapShape,
                                         windowType.getElementType());
    if (isa<linalg::PoolingNchwMaxOp>(op.getOperation()))
      acc = linalg::PoolingNchwMaxOp::create(
                rewriter, loc, TypeRange{accType}, ValueRange{columns, taps},
                ValueRange{acc}, phaseStrides, phaseDilations)
                .getResult(0);
    else
      acc = linalg::PoolingNchwSumOp::create(
                rewriter, loc, TypeRange{accType}, ValueRange{columns, taps},
                ValueRange{acc}, phaseStrides, phaseDilations)
                .getResult(0);
  }
  rewriter.replaceOp(op, acc);
}
} // namespace

SmallVector<linalg::LinalgOp>
mlc::target::collectWindowOps(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> windows;
  func.walk([&](Operation *op) {
    if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
            linalg::PoolingNchwSumOp>(op))
      windows.push_back(cast<linalg::LinalgOp>(op));
  });
  return windows;
}

void mlc::target::splitStridedWindows(RewriterBase &rewriter,
                                      func::FuncOp func) {
  for (linalg::LinalgOp op : collectWindowOps(func))
    splitWindow(rewriter, op);
}
