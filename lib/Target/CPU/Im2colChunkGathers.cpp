//===- Im2colChunkGathers.cpp - Per-chunk im2col gathers ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Im2colChunkGathers.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

namespace {
/// Bytes of `columns` columns of `images` images of the matrix `gather`
/// makes.
int64_t chunkBytes(linalg::GenericOp gather, int64_t images,
                   int64_t columns, int64_t rows = 0) {
  auto type = cast<RankedTensorType>(gather->getResult(0).getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elementBytes =
      llvm::divideCeil(type.getElementTypeBitWidth(), int64_t(8));
  if (rows <= 0)
    rows = shape[1] * shape[2] * shape[3];
  return images * rows * columns * elementBytes;
}
} // namespace

int64_t mlc::target::chooseIm2colKBlock(linalg::GenericOp gather,
                                        int64_t kTile) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(gather->getResult(0).getType()).getShape();
  int64_t channels = shape[1], window = shape[2] * shape[3];
  if (kTile <= 0 || channels * window <= 2 * kTile)
    return 0;
  for (int64_t perBlock = channels / 2; perBlock >= 1; --perBlock)
    if (channels % perBlock == 0 && perBlock * window <= kTile + kTile / 8)
      return perBlock * window;
  return 0;
}

int64_t mlc::target::chooseIm2colRowFitBlock(linalg::GenericOp gather) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(gather->getResult(0).getType()).getShape();
  int64_t channels = shape[1], window = shape[2] * shape[3];
  int64_t oh = shape[4], ow = shape[5];
  // A batch keeps its whole gather, by a thread loop over the images.
  if (shape[0] != 1 || oh < 2 ||
      chunkBytes(gather, shape[0], ow) <= kMaxStackScratchBytes)
    return 0;
  for (int64_t perBlock = channels / 2; perBlock >= 1; --perBlock)
    if (channels % perBlock == 0 &&
        chunkBytes(gather, shape[0], ow, perBlock * window) <=
            kMaxStackScratchBytes)
      return perBlock * window;
  return 0;
}

int64_t mlc::target::chooseRowChunk(linalg::GenericOp gather, int64_t nTile,
                                    int64_t lanes, double maxLost,
                                    int64_t kBlock) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(gather->getResult(0).getType()).getShape();
  int64_t oh = shape[4], ow = shape[5];
  nTile = std::max<int64_t>(1, nTile);
  lanes = std::max<int64_t>(1, lanes);
  int64_t best = 0;
  double bestLost = 0;
  for (int64_t rows = 1; 2 * rows <= oh; ++rows) {
    int64_t columns = rows * ow;
    if (chunkBytes(gather, shape[0], columns, kBlock) > kMaxStackScratchBytes)
      break;
    if (oh % rows != 0)
      continue;
    // A narrower tile at the chunk's end costs about as much as a full one,
    // and as much again when it is not a whole number of vectors
    // (SqueezeNet's 111-column rows ran 3% slower at one thread in chunks
    // of one row than in 256-column blocks); an odd chunk count leaves one
    // thread of two idle for one chunk.
    int64_t chunks = oh / rows, rest = columns % nTile;
    double tiles = double(columns / nTile) + (rest ? 1.0 : 0.0) +
                   (rest % lanes ? 1.0 : 0.0);
    double lost = 1.0 - double(columns) / (double(nTile) * tiles) +
                  (chunks % 2 ? 1.0 / double(chunks) : 0.0);
    if (!best || lost < bestLost - 1e-9) {
      best = columns;
      bestLost = lost;
    }
  }
  return best && bestLost <= maxLost ? best : 0;
}

bool mlc::target::gatherInChunk(RewriterBase &rewriter,
                                linalg::LinalgOp chunk, int64_t kBlock) {
  bool changed = false;
  for (OpOperand *input : chunk.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice)
      continue;
    linalg::GenericOp gather = getIm2colGather(slice.getSource());
    if (!gather)
      continue;
    auto collapse = slice.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(gather->getResult(0).getType()).getShape();
    RankedTensorType sliceType = slice.getResultType();
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    int64_t ow = shape[5], window = shape[2] * shape[3];
    int64_t rows = shape[1] * window, columns = shape[4] * ow;
    // Only blocks of whole channels that divide the rows are gathered again.
    int64_t rowsPerBlock =
        kBlock > 0 && kBlock % window == 0 && rows % kBlock == 0 ? kBlock : 0;
    // Whole output rows and whole channels, not all of the matrix (a chunk
    // of the matrix's rows reads every column), within the stack's share.
    if (sliceType.getRank() != 3 || !slice.hasUnitStride() ||
        !sliceType.hasStaticShape())
      continue;
    int64_t sliceRows = sliceType.getDimSize(1);
    int64_t sliceColumns = sliceType.getDimSize(2);
    bool someRows = sliceRows < rows, someColumns = sliceColumns < columns;
    if ((!someRows && !someColumns) || sliceRows % window != 0 ||
        sliceColumns % ow != 0 ||
        (!someRows && !isZeroInteger(offsets[1])) ||
        chunkBytes(gather, sliceType.getDimSize(0), sliceColumns,
                   someRows ? sliceRows : rowsPerBlock) >
            kMaxStackScratchBytes)
      continue;
    // The slice's offsets are multiples of its sizes: of `ow` for columns,
    // of `window` for rows.
    Location loc = slice.getLoc();
    rewriter.setInsertionPoint(slice);
    AffineExpr offset = rewriter.getAffineDimExpr(0);
    OpFoldResult row = affine::makeComposedFoldedAffineApply(
        rewriter, loc, offset.floorDiv(ow), {offsets[2]});
    OpFoldResult channel = affine::makeComposedFoldedAffineApply(
        rewriter, loc, offset.floorDiv(window), {offsets[1]});
    OpFoldResult zero = rewriter.getIndexAttr(0);
    SmallVector<OpFoldResult> tileOffsets{offsets[0], channel, zero, zero,
                                          row, zero};
    SmallVector<OpFoldResult> tileSizes{
        rewriter.getIndexAttr(sliceType.getDimSize(0)),
        rewriter.getIndexAttr(sliceRows / window),
        rewriter.getIndexAttr(shape[2]),
        rewriter.getIndexAttr(shape[3]),
        rewriter.getIndexAttr(sliceColumns / ow),
        rewriter.getIndexAttr(ow)};
    FailureOr<TilingResult> tile =
        cast<TilingInterface>(gather.getOperation())
            .generateResultTileValue(rewriter, 0, tileOffsets, tileSizes);
    if (failed(tile) || tile->tiledValues.size() != 1 ||
        tile->tiledOps.size() != 1)
      continue;
    // The gather writes every element of its block: a block of its own
    // (a scratch buffer on the thread's stack), not a slice of the whole
    // matrix's buffer.
    auto tiled = cast<linalg::GenericOp>(tile->tiledOps.front());
    OpOperand &init = tiled.getDpsInitsMutable()[0];
    auto blockType = cast<RankedTensorType>(init.get().getType());
    rewriter.setInsertionPoint(tiled);
    Value block = tensor::EmptyOp::create(rewriter, loc, blockType.getShape(),
                                          blockType.getElementType());
    rewriter.modifyOpInPlace(tiled, [&] {
      init.set(block);
      // A chunk's gather may be split again into its reduction blocks.
      tiled->setAttr(kIm2colAttr, rewriter.getUnitAttr());
    });
    rewriter.setInsertionPoint(slice);
    Value matrix = tensor::CollapseShapeOp::create(
        rewriter, loc, sliceType, tile->tiledValues[0],
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    rewriter.replaceOp(slice, matrix);
    if (collapse->use_empty()) {
      rewriter.eraseOp(collapse);
      if (gather->use_empty())
        rewriter.eraseOp(gather);
    }
    changed = true;
  }
  return changed;
}
