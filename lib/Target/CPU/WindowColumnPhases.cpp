//===- WindowColumnPhases.cpp - Strided windows as phases -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WindowColumnPhases.h"

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

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

/// The column phases of a zero-or-constant padded input, built from the
/// unpadded one without the padded copy. Padded phase `p` (columns
/// `p, p + s, ...` of the padded input) is the unpadded input's phase
/// `r = (p - left) mod s` shifted right by `d = (left - p + r) / s`
/// columns. Each row of the result holds the unpadded phases one after
/// another in blocks `pitch` apart, `slack` columns of padding before and
/// `tail` after each block; the transpose of the input's column groups
/// writes the blocks, fills write the padding around them and the padded
/// rows, and phase `p` is the slice starting `d` columns before block `r`.
struct PaddedPhases {
  Value rows;
  int64_t slack = 0, pitch = 0;
  SmallVector<int64_t> block, shift;
};

std::optional<PaddedPhases>
paddedPhases(RewriterBase &rewriter, Location loc, tensor::PadOp pad,
             int64_t stride, int64_t count, ArrayRef<int64_t> widths) {
  auto xType = cast<RankedTensorType>(pad.getSource().getType());
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  Value padValue = pad.getConstantPaddingValue();
  if (!padValue || !xType.hasStaticShape() || xType.getRank() != 4 ||
      low[0] != 0 || low[1] != 0 || high[0] != 0 || high[1] != 0 ||
      llvm::any_of(low, ShapedType::isDynamic) ||
      llvm::any_of(high, ShapedType::isDynamic) ||
      llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v < 0; }) ||
      xType.getDimSize(3) % stride != 0)
    return std::nullopt;
  SmallVector<int64_t> shape(xType.getShape());
  int64_t groups = shape[3] / stride, left = low[3];
  PaddedPhases result;
  int64_t tail = 0;
  for (int64_t p = 0; p < count; ++p) {
    int64_t r = ((p - left) % stride + stride) % stride;
    int64_t d = (left - p + r) / stride;
    result.block.push_back(r);
    result.shift.push_back(d);
    result.slack = std::max(result.slack, d);
    tail = std::max(tail, widths[p] - d - groups);
  }
  result.pitch = result.slack + groups + tail;
  int64_t length = result.slack + stride * result.pitch;
  int64_t height = shape[2] + low[2] + high[2];
  Type f32 = xType.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  auto ones = [&](int64_t rank) {
    return getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1));
  };
  SmallVector<int64_t> rowsShape{shape[0], shape[1], height, length};
  Value rows = tensor::EmptyOp::create(rewriter, loc, rowsShape, f32);
  // Padding: the padded rows, then in the other rows the columns around
  // the blocks.
  auto fill = [&](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    if (llvm::is_contained(sizes, 0))
      return;
    auto type = RankedTensorType::get(sizes, f32);
    Value part = tensor::ExtractSliceOp::create(
        rewriter, loc, type, rows, getAsIndexOpFoldResult(ctx, offsets),
        getAsIndexOpFoldResult(ctx, sizes), ones(4));
    Value filled =
        linalg::FillOp::create(rewriter, loc, padValue, part).getResult(0);
    rows = tensor::InsertSliceOp::create(
        rewriter, loc, filled, rows, getAsIndexOpFoldResult(ctx, offsets),
        getAsIndexOpFoldResult(ctx, sizes), ones(4));
  };
  fill({0, 0, 0, 0}, {shape[0], shape[1], low[2], length});
  fill({0, 0, low[2] + shape[2], 0}, {shape[0], shape[1], high[2], length});
  for (int64_t r = 0; r < stride; ++r) {
    int64_t start = result.slack + r * result.pitch;
    fill({0, 0, low[2], start - result.slack},
         {shape[0], shape[1], shape[2], result.slack});
    fill({0, 0, low[2], start + groups}, {shape[0], shape[1], shape[2], tail});
  }
  // The blocks: the input's column groups transposed into a view of the
  // interior rows with rows of `pitch` columns.
  SmallVector<int64_t> interiorShape{shape[0], shape[1], shape[2],
                                     stride * result.pitch};
  SmallVector<int64_t> interiorOffsets{0, 0, low[2], result.slack};
  Value interior = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(interiorShape, f32), rows,
      getAsIndexOpFoldResult(ctx, interiorOffsets),
      getAsIndexOpFoldResult(ctx, interiorShape), ones(4));
  SmallVector<ReassociationIndices> split{{0}, {1}, {2}, {3, 4}};
  SmallVector<int64_t> pitched{shape[0], shape[1], shape[2], stride,
                               result.pitch};
  Value blocks = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(pitched, f32), interior, split);
  SmallVector<int64_t> blockShape{shape[0], shape[1], shape[2], stride,
                                  groups};
  Value target = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(blockShape, f32), blocks,
      getAsIndexOpFoldResult(ctx, {0, 0, 0, 0, 0}),
      getAsIndexOpFoldResult(ctx, blockShape), ones(5));
  Value view = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({shape[0], shape[1], shape[2], groups, stride},
                            f32),
      pad.getSource(), split);
  Value transposed =
      linalg::TransposeOp::create(rewriter, loc, view, target,
                                  ArrayRef<int64_t>{0, 1, 2, 4, 3})
          ->getResult(0);
  blocks = tensor::InsertSliceOp::create(
      rewriter, loc, transposed, blocks,
      getAsIndexOpFoldResult(ctx, {0, 0, 0, 0, 0}),
      getAsIndexOpFoldResult(ctx, blockShape), ones(5));
  interior = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get(interiorShape, f32), blocks, split);
  result.rows = tensor::InsertSliceOp::create(
      rewriter, loc, interior, rows,
      getAsIndexOpFoldResult(ctx, interiorOffsets),
      getAsIndexOpFoldResult(ctx, interiorShape), ones(4));
  return result;
}

/// Padded phase `phase`, `width` columns, of paddedPhases' result.
Value paddedPhaseOf(RewriterBase &rewriter, Location loc,
                    const PaddedPhases &phases, int64_t phase, int64_t width) {
  auto type = cast<RankedTensorType>(phases.rows.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t start = phases.slack + phases.block[phase] * phases.pitch -
                  phases.shift[phase];
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<int64_t> sizes{shape[0], shape[1], shape[2], width};
  return tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(sizes, type.getElementType()),
      phases.rows, getAsIndexOpFoldResult(ctx, {0, 0, 0, start}),
      getAsIndexOpFoldResult(ctx, sizes),
      getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
}

void splitWindow(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!strides || !dilations || !op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperandTypes(), mlc::loop::isStaticF32))
    return;
  SmallVector<int64_t> s(strides.getValues<int64_t>());
  SmallVector<int64_t> d(dilations.getValues<int64_t>());
  if (s.size() != 2 || s[1] == 1 || d[1] != 1)
    return;
  Value input = op.getDpsInputs()[0], window = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  // Each phase is tiled as the strategy decided for the whole window.
  Attribute schedule =
      op->getAttr(mlc::loop::LoopDialect::getScheduleAttrName());
  auto inheritSchedule = [&](Value phase) {
    if (schedule)
      phase.getDefiningOp()->setAttr(
          mlc::loop::LoopDialect::getScheduleAttrName(), schedule);
  };
  auto windowType = cast<RankedTensorType>(window.getType());
  auto accType = cast<RankedTensorType>(acc.getType());
  int64_t kw = windowType.getShape().back();
  int64_t ow = accType.getDimSize(3);
  Location loc = op.getLoc();
  auto phaseStrides = rewriter.getI64TensorAttr({s[0], 1});
  auto phaseDilations = rewriter.getI64TensorAttr({d[0], 1});
  rewriter.setInsertionPoint(op);
  int64_t count = std::min(s[1], kw);
  SmallVector<int64_t> widths;
  for (int64_t p = 0; p < count; ++p)
    widths.push_back(ow + (kw - p + s[1] - 1) / s[1] - 1);
  // A padded input: the phases of the unpadded one, padded around.
  std::optional<PaddedPhases> padded;
  if (auto pad = input.getDefiningOp<tensor::PadOp>(); pad && pad->hasOneUse())
    padded = paddedPhases(rewriter, loc, pad, s[1], count, widths);
  // Phase 0 has the most taps and columns.
  Value phases = padded ? Value()
                        : transposedPhases(rewriter, loc, input, s[1],
                                           widths.front());
  for (int64_t p = 0; p < count; ++p) {
    int64_t tapCount = (kw - p + s[1] - 1) / s[1];
    int64_t width = widths[p];
    Value columns =
        padded   ? paddedPhaseOf(rewriter, loc, *padded, p, width)
        : phases ? phaseOf(rewriter, loc, phases, p, width)
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
      inheritSchedule(acc);
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
    inheritSchedule(acc);
  }
  Operation *pad = input.getDefiningOp<tensor::PadOp>();
  rewriter.replaceOp(op, acc);
  if (padded && pad->use_empty())
    rewriter.eraseOp(pad);
}
} // namespace

SmallVector<linalg::LinalgOp>
mlc::target::collectWindowOps(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> windows;
  func.walk([&](Operation *op) {
    if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::DepthwiseConv2DNhwcHwcOp,
            linalg::PoolingNchwMaxOp,
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
