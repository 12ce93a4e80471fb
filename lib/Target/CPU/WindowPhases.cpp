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

/// All `stride` column phases of `input` at once, as `[n, c, h, stride,
/// columns]`: a view of its whole groups of `stride` columns, transposed
/// (one pass that vectorizes, where a copy per phase read every `stride`-th
/// element and LLVM made it scalar code), and the columns after the whole
/// groups (the last column of an odd width: SqueezeNet's 111-column max
/// pooling) copied in after them. Null when a phase would need more than
/// one column past the whole groups. Phase `p` is row `p`.
Value transposedPhases(RewriterBase &rewriter, Location loc, Value input,
                       int64_t stride, int64_t widest) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  Type f32 = type.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  int64_t groups = shape[3] / stride, rest = shape[3] % stride;
  if (groups < 1 || widest > groups + (rest ? 1 : 0))
    return {};
  int64_t columns = groups + (widest > groups ? 1 : 0);
  SmallVector<int64_t> phasesShape{shape[0], shape[1], shape[2], stride,
                                   columns};
  SmallVector<int64_t> groupShape{shape[0], shape[1], shape[2], stride,
                                  groups};
  auto ones = getAsIndexOpFoldResult(ctx, {1, 1, 1, 1, 1});
  Value whole = input;
  if (rest) {
    SmallVector<int64_t> sliced(shape);
    sliced[3] = groups * stride;
    whole = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(sliced, f32), input,
        getAsIndexOpFoldResult(ctx, {0, 0, 0, 0}),
        getAsIndexOpFoldResult(ctx, sliced),
        getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
  }
  Value view = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({shape[0], shape[1], shape[2], groups, stride},
                            f32),
      whole, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  Value phases = tensor::EmptyOp::create(rewriter, loc, phasesShape, f32);
  Value target = phases;
  if (columns != groups)
    target = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(groupShape, f32), phases,
        getAsIndexOpFoldResult(ctx, {0, 0, 0, 0, 0}),
        getAsIndexOpFoldResult(ctx, groupShape), ones);
  Value transposed =
      linalg::TransposeOp::create(rewriter, loc, view, target,
                                  ArrayRef<int64_t>{0, 1, 2, 4, 3})
          ->getResult(0);
  if (columns == groups)
    return transposed;
  phases = tensor::InsertSliceOp::create(
      rewriter, loc, transposed, phases,
      getAsIndexOpFoldResult(ctx, {0, 0, 0, 0, 0}),
      getAsIndexOpFoldResult(ctx, groupShape), ones);
  // The columns past the whole groups, as the last column of the first
  // `rest` phases.
  SmallVector<int64_t> tailShape{shape[0], shape[1], shape[2], rest};
  Value tail = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(tailShape, f32), input,
      getAsIndexOpFoldResult(ctx, {0, 0, 0, groups * stride}),
      getAsIndexOpFoldResult(ctx, tailShape),
      getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
  Value tailColumn = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({shape[0], shape[1], shape[2], rest, 1}, f32),
      tail, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  return tensor::InsertSliceOp::create(
      rewriter, loc, tailColumn, phases,
      getAsIndexOpFoldResult(ctx, {0, 0, 0, 0, groups}),
      getAsIndexOpFoldResult(ctx, {shape[0], shape[1], shape[2], rest, 1}),
      ones);
}

/// Phase `phase`, `width` columns, of transposedPhases' result.
Value phaseOf(RewriterBase &rewriter, Location loc, Value phases,
              int64_t phase, int64_t width) {
  auto type = cast<RankedTensorType>(phases.getType());
  ArrayRef<int64_t> shape = type.getShape();
  MLIRContext *ctx = rewriter.getContext();
  return tensor::ExtractSliceOp::create(
      rewriter, loc,
      RankedTensorType::get({shape[0], shape[1], shape[2], width},
                            type.getElementType()),
      phases, getAsIndexOpFoldResult(ctx, {0, 0, 0, phase, 0}),
      getAsIndexOpFoldResult(ctx, {shape[0], shape[1], shape[2], 1, width}),
      getAsIndexOpFoldResult(ctx, {1, 1, 1, 1, 1}));
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
  // Phase 0 has the most taps and columns.
  Value phases = transposedPhases(rewriter, loc, input, s[1],
                                  ow + (kw + s[1] - 1) / s[1] - 1);
  for (int64_t p = 0; p < std::min(s[1], kw); ++p) {
    int64_t tapCount = (kw - p + s[1] - 1) / s[1];
    int64_t width = ow + tapCount - 1;
    Value columns =
        phases ? phaseOf(rewriter, loc, phases, p, width)
               : phaseColumns(rewriter, loc, input, s[1], p, width);
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
