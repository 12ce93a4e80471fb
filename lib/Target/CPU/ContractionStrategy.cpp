//===- ContractionStrategy.cpp - How the CPU schedules a contraction ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/TargetInfo.h"
#include "ContractionStrategy.h"

#include "Im2colChunkGathers.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using mlc::loop::isStaticF32;
using mlc::target::ContractionSchedule;
using mlc::target::kMinParallelFlops;
using mlc::target::Tiles;
using mlc::target::isConstant;

namespace {


using mlc::target::kMinChunkTiles;

using mlc::target::kMaxStreamedRows;

using mlc::target::kMaxRowChunkLoss;

/// Size of the thread chunks of a contraction loop of extent `range` whose
/// register tile is `tile` wide: a size that divides the loop into at least
/// two chunks. The iterations past the last multiple of `tile` in a chunk
/// run in narrower register tiles; the smallest size that loses at most 2%
/// of the work that way, else the one that loses least (SqueezeNet's
/// classifier has 1000 rows: chunks of 8 left 2 of every 8 rows to 2-row
/// tiles, a sixth of the work at a third of the speed; chunks of 125 leave
/// 5 of 125 to 5-row tiles). 0 if none divides.
int64_t chooseChunk(int64_t range, int64_t tile) {
  auto lost = [&](int64_t size) {
    int64_t rest = size % tile;
    return double(rest) * double(tile - rest) / double(tile) / double(size);
  };
  SmallVector<int64_t> sizes;
  for (int64_t size : {int64_t(8), int64_t(16), int64_t(32), range / 8,
                       range / 4, range / 2})
    if (size >= tile && range % size == 0 && range / size >= 2)
      sizes.push_back(size);
  llvm::sort(sizes);
  for (int64_t size : sizes)
    if (lost(size) <= 0.02)
      return size;
  int64_t best = 0;
  for (int64_t size : sizes)
    if (!best || lost(size) < lost(best))
      best = size;
  return best;
}

/// The smallest multiple of `tile` that divides `range` into an even number
/// of chunks, or 0.
int64_t evenChunk(int64_t range, int64_t tile) {
  for (int64_t size = tile; 2 * size <= range; size += tile)
    if (range % size == 0 && (range / size) % 2 == 0)
      return size;
  return 0;
}

/// Size of the thread chunks of the columns of a contraction when no
/// multiple of the register tile `tile` divides them (a 1000-class
/// classifier at batch 1). Each chunk ends in a narrower tile; one whose
/// width is not a multiple of `lanes` runs about as slowly again. Among the
/// sizes that divide the columns into at least two chunks, the one with the
/// least work lost to both, counting an odd number of chunks as leaving a
/// second thread idle for one chunk: 1000 columns take two chunks of 500.
/// Chunks are at least `minTiles` register tiles wide. 0 if none divides.
int64_t chooseColumnChunk(int64_t range, int64_t tile, int64_t lanes,
                          int64_t minTiles = 1) {
  lanes = std::max<int64_t>(1, lanes);
  auto lost = [&](int64_t size) {
    int64_t rest = size % tile;
    double cost = double(size / tile) + (rest ? 1.0 : 0.0) +
                  (rest % lanes ? 1.0 : 0.0);
    int64_t chunks = range / size;
    return 1.0 - double(size) / double(tile) / cost +
           (chunks % 2 ? 1.0 / double(chunks) : 0.0);
  };
  int64_t best = 0;
  for (int64_t size = minTiles * tile; size <= range / 2; ++size)
    if (range % size == 0 && (!best || lost(size) < lost(best)))
      best = size;
  return best;
}



} // namespace

bool mlc::target::isConstant(Value value) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  return value.getDefiningOp<arith::ConstantOp>() != nullptr;
}

std::optional<unsigned> mlc::target::getPairDim(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
  }
  auto isInt = [&](Value v, unsigned width) {
    return getElementTypeOrSelf(v.getType()).isInteger(width);
  };
  if (!isInt(op.getDpsInputs()[0], 16) || !isInt(op.getDpsInputs()[1], 16) ||
      !isInt(op.getDpsInits()[0], 32))
    return std::nullopt;
  std::optional<unsigned> pair;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.getNumResults() || !map.isProjectedPermutation())
      return std::nullopt;
    unsigned last = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (pair && *pair != last)
      return std::nullopt;
    pair = last;
  }
  if (op.getStaticLoopRanges()[*pair] != 2 ||
      op.getIteratorTypesArray()[*pair] != utils::IteratorType::reduction)
    return std::nullopt;
  return pair;
}

std::optional<ContractionSchedule>
mlc::target::scheduleContraction(linalg::LinalgOp op, const Tiles &packedTiles,
                    const Tiles &unpackedTiles, int64_t lanes, bool parallel) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  // A contraction of pairs: its pair dim stays whole and innermost, the
  // other reduction dim counts pairs.
  // Floats, or pairs of integers. Loops known only at run time (a map's
  // pixels, a batch, attention's sequence, also as the depth of its second
  // product) take the tiles of a large static loop (kNominalDynamicRange);
  // a reduction of run-time size stays whole (no cache blocks of it).
  std::optional<unsigned> pairDim = getPairDim(op);
  if (!pairDim)
    for (Value operand : op->getOperands())
      if (!getElementTypeOrSelf(operand.getType()).isF32())
        return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<bool> dynamic;
  for (int64_t &range : ranges) {
    dynamic.push_back(ShapedType::isDynamic(range));
    if (dynamic.back())
      range = mlc::target::kNominalDynamicRange;
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;
  // Rows known only at run time against packed weights (a transformer's
  // tokens) take the streamed schedule of at most kMaxStreamedRows rows.
  // (Threads still go by the large nominal size: the rows may be many.)
  SmallVector<int64_t> nominalRanges = ranges;
  if (dims->m.size() == 1 && dynamic[dims->m.front()])
    ranges[dims->m.front()] = mlc::target::kMaxStreamedRows;
  if (pairDim) {
    llvm::erase(dims->k, *pairDim);
    if (dims->k.empty())
      return std::nullopt;
  }
  // The last result of an input's map, before the pair dim.
  auto innermostOf = [&](AffineMap map) {
    ArrayRef<AffineExpr> results = map.getResults();
    if (pairDim && results.size() >= 2)
      results = results.drop_back();
    return cast<AffineDimExpr>(results.back()).getPosition();
  };

  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto innermost = dyn_cast<AffineDimExpr>(resultMap.getResults().back());
  if (!innermost || !llvm::is_contained(dims->n, innermost.getPosition()))
    return std::nullopt;
  unsigned nDim = innermost.getPosition();
  OpOperand *rhs = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (map.getNumResults() && llvm::any_of(map.getResults(), [&](AffineExpr e) {
          return cast<AffineDimExpr>(e).getPosition() == nDim;
        })) {
      if (innermostOf(map) != nDim)
        return std::nullopt;
      rhs = input;
    }
  }
  // Packed weights (mlc-loop-pack-weights: a constant read with the column
  // dim split into panels and columns) take the tiles their panels were
  // made for; any other right-hand side is read in rows.
  bool packed = rhs && dims->n.size() >= 2 && isConstant(rhs->get());
  const Tiles &tiles = packed ? packedTiles : unpackedTiles;
  int64_t mTile = tiles.m, nTile = tiles.n, kTile = tiles.k,
          nBlock = tiles.nBlock;
  // A k-tile of pairs holds as many products as one of floats.
  if (pairDim)
    kTile /= 2;
  // The register tile's rows: the innermost `m` dim of the result.
  std::optional<unsigned> mDim;
  for (AffineExpr e : resultMap.getResults())
    if (llvm::is_contained(dims->m, cast<AffineDimExpr>(e).getPosition()))
      mDim = cast<AffineDimExpr>(e).getPosition();
  if (!mDim)
    return std::nullopt;

  ContractionSchedule schedule;
  unsigned numLoops = op.getNumLoops();
  schedule.parallelTiles.assign(numLoops, 0);
  schedule.cacheTiles.assign(numLoops, 0);
  schedule.registerTiles.assign(numLoops, 1);
  for (ArrayRef<unsigned> group : {ArrayRef<unsigned>(dims->batch),
                                   ArrayRef<unsigned>(dims->m),
                                   ArrayRef<unsigned>(dims->n),
                                   ArrayRef<unsigned>(dims->k)})
    for (unsigned d : group)
      schedule.loopOrder.push_back(d);
  if (pairDim) {
    schedule.loopOrder.push_back(*pairDim);
    schedule.registerTiles[*pairDim] = 2;
  }
  if (schedule.loopOrder.size() != numLoops)
    return std::nullopt;
  schedule.registerTiles[*mDim] = std::min(mTile, ranges[*mDim]);
  schedule.registerTiles[nDim] = std::min(nTile, ranges[nDim]);
  if (nBlock > 0 && ranges[nDim] > nBlock)
    schedule.cacheTiles[nDim] = nBlock;
  // Outer column dims (the panel index of a packed right-hand side) take
  // the rest of the column block.
  for (unsigned d : dims->n)
    if (d != nDim && nBlock > 0) {
      int64_t panels = std::max<int64_t>(1, nBlock / ranges[nDim]);
      if (ranges[d] > panels)
        schedule.cacheTiles[d] = panels;
    }
  // Few rows against packed weights (a convolution on a 7x7 or 14x14 map as
  // a matmul, mlc-loop-convolutions-as-matmuls): a block of the rows
  // stays in L2 while the weights stream past once, so a cache block is one
  // panel, with the deepest reduction whose rows and panel fill at most half
  // of L2 (2 * nBlock * kTile floats: the column block fills a quarter). Ten
  // panels of 192 had each k block's weights come as ten interleaved
  // streams, reused by only a few row tiles: five chained 3x3 512 -> 512
  // convolutions on 7x7 maps (47 MB of weights, beyond L3) 6.8 -> 5.2 ms,
  // six 256 -> 256 on 14x14 5.9 -> 5.4 ms (Zen 5, one thread).
  int64_t rows = 1;
  for (unsigned d : dims->m)
    rows *= ranges[d];
  if (packed && dims->n.size() == 2 && dims->k.size() == 1 && kTile > 0 &&
      nBlock > 0 && rows <= kMaxStreamedRows) {
    for (unsigned d : dims->n)
      if (d != nDim)
        schedule.cacheTiles[d] = ranges[d] > 1 ? 1 : 0;
    int64_t depth = 2 * nBlock * kTile / (rows + ranges[nDim]);
    kTile = std::max(kTile, depth / kTile * kTile);
  }
  // A reduction up to twice the k-tile stays whole: a second block would
  // store and reload every accumulator and keep the result's init as a
  // pass of its own (see AccumulatorInits.h).
  if (dims->k.size() == 1 && kTile > 0 && !dynamic[dims->k[0]] &&
      ranges[dims->k[0]] > 2 * kTile)
    schedule.cacheTiles[dims->k[0]] = kTile;
  // An im2col matrix's reduction blocks are whole channels, so that each
  // thread chunk gathers one block at a time (Im2colChunkGathers.h): a chunk of
  // ResNet's 28x28 3x3 128 -> 128 convolutions then holds 288 of its 1152
  // rows, and 7 output rows make 4 chunks where 4 rows of all 1152 made 7.
  linalg::GenericOp gather =
      rhs ? mlc::target::getIm2colGather(rhs->get()) : nullptr;
  int64_t gatherKBlock = 0;
  if (gather && dims->k.size() == 1 && parallel)
    if ((gatherKBlock = mlc::target::chooseIm2colKBlock(gather, kTile)))
      schedule.cacheTiles[dims->k[0]] = gatherKBlock;
  // Rows too wide for one output row of the whole matrix to fit a chunk's
  // gather (a segmentation network's 3x3 convolution of 32 channels on
  // 1024-pixel rows) are gathered in blocks of channels that fit, rather
  // than the whole 1.2 GB matrix written out and read back.
  if (gather && dims->k.size() == 1 && parallel && !gatherKBlock)
    if ((gatherKBlock = mlc::target::chooseIm2colRowFitBlock(gather)))
      schedule.cacheTiles[dims->k[0]] = gatherKBlock;

  // Threads take chunks of columns, or of rows, that divide evenly (so that
  // every chunk keeps static shapes) and leave at least two chunks.
  int64_t flops = 2;
  for (int64_t r : nominalRanges)
    flops *= r;
  if (parallel && flops >= kMinParallelFlops) {
    // The first size that divides the loop into an even number of chunks,
    // else the first into at least 8, else the first into at least two. A
    // few odd chunks leave a thread idle for one of them: ViT's 768-column
    // matmuls made 3 chunks of 8 panels, 2 threads ran them 1.41x as fast
    // as one, 6 chunks of 4 panels 1.8x; its 2304-column ones made 9
    // chunks of 8 panels, one thread doing 5 of them, where 18 chunks of 4
    // split evenly.
    auto chunk = [&](unsigned dim, ArrayRef<int64_t> sizes) -> int64_t {
      auto divides = [&](int64_t size, int64_t atLeast) {
        return ranges[dim] % size == 0 && ranges[dim] / size >= atLeast;
      };
      for (int64_t size : sizes)
        if (divides(size, 2) && (ranges[dim] / size) % 2 == 0)
          return size;
      for (int64_t atLeast : {8, 2})
        for (int64_t size : sizes)
          if (divides(size, atLeast))
            return size;
      return 0;
    };
    // Columns first: for a convolution they are output pixels, so a thread
    // keeps the pixels it wrote for the next 1x1 convolution (rows, the
    // output channels, would make every thread read what all others
    // wrote); for a matmul each thread streams only its share of the
    // packed weights.
    // Columns that no multiple of the register tile divides (a 1000-class
    // classifier at batch 1 has one row) take chunks with a narrower tile at
    // their end rather than staying on one thread.
    // Chunks of 8, 4 or 1 register tiles, whatever the cache block: a
    // 336-column block (256-bit vectors, 1 MiB L2) divides no convolution's
    // pixels and left every one of them in 16-column chunks.
    // Packed weights: chunks of panels (outer column dims) before rows, so
    // that each thread streams its share of the weights, with no row tile
    // cut short (BERT's 128 rows made two chunks of 64, each ending in an
    // 8-row tile of 14-row tiles).
    auto panelChunk = [&]() {
      for (unsigned d : dims->n)
        if (d != nDim)
          if (int64_t panels = chunk(d, {8, 4, 2, 1})) {
            schedule.parallelTiles[d] = panels;
            return true;
          }
      return false;
    };
    // The register tile's rows size row chunks where it is narrower than
    // the line-wide tile.
    int64_t rowTile = tiles.registerM > 0 ? tiles.registerM : mTile;
    auto oddPanelChunks = [&]() {
      for (unsigned d : dims->n)
        if (d != nDim)
          if (int64_t panels = chunk(d, {8, 4, 2, 1}))
            return (ranges[d] / panels) % 2 == 1 && ranges[d] / panels < 8;
      return false;
    };
    auto evenRowChunk = [&]() {
      return evenChunk(ranges[*mDim], rowTile);
    };
    // Chunks of line-wide row tiles, or of register tiles where only those
    // split evenly: EfficientNet's 80- and 112-channel projections made 5
    // and 7 chunks of 16 rows, one thread doing 3 of 5, where 10 and 14
    // chunks of its 8-row register tile split evenly. (Rows that no
    // line-wide tile splits stay with the column chunks below: SqueezeNet's
    // 16-channel squeezes keep their threads on the pixels they read.)
    auto rowChunk = [&]() -> int64_t {
      int64_t rows = chooseChunk(ranges[*mDim], mTile);
      if (rows && (ranges[*mDim] / rows) % 2 == 1)
        if (int64_t even = evenRowChunk())
          return even;
      return rows;
    };
    // An im2col matrix: chunks of whole output rows, each gathering its
    // own columns (Im2colChunkGathers.h).
    if (int64_t cols = gather ? mlc::target::chooseRowChunk(
                                    gather, nTile, lanes, kMaxRowChunkLoss,
                                    gatherKBlock)
                              : 0) {
      schedule.parallelTiles[nDim] = cols;
      // A chunk gathered block by block keeps its columns whole: its blocks
      // are whole output rows (and fit the stack by the choice above).
      if (gatherKBlock)
        schedule.cacheTiles[nDim] = 0;
    }
    else if (int64_t cols = chunk(nDim, {8 * nTile, 4 * nTile, nTile}))
      // Chunks of one register tile re-read the whole left-hand side (a
      // convolution's weights) per tile: a 28x28 map's 784 = 49 x 16
      // columns made 49 chunks, and a 1x1 128 -> 512 convolution ran at
      // 0.69 ms on one thread, 0.50 ms in two chunks of 392 (Zen 5).
      schedule.parallelTiles[nDim] =
          cols == nTile && ranges[nDim] / nTile >= 8
              ? std::max(cols, chooseColumnChunk(ranges[nDim], nTile, lanes,
                                                 kMinChunkTiles))
              : cols;
    else if (int64_t rows = packed && oddPanelChunks() ? evenRowChunk() : 0)
      // A few panels split unevenly where the rows split evenly:
      // MobileNetV2's 196-row projections to 96 channels made 3 chunks of
      // one panel (one thread doing 2) instead of 2 chunks of 98 rows.
      schedule.parallelTiles[*mDim] = rows;
    else if (packed && panelChunk()) {
      // Split by panels.
    } else if (int64_t rows = rowChunk()) {
      schedule.parallelTiles[*mDim] = rows;
    } else if (int64_t cols =
                   chooseColumnChunk(ranges[nDim], nTile, lanes)) {
      schedule.parallelTiles[nDim] = cols;
    } else {
      // An outer column dim (the images of a batched im2col matrix).
      (void)panelChunk();
    }
  }
  if (tiles.registerM > 0 && ranges[*mDim] >= tiles.registerM &&
      ranges[nDim] >= tiles.registerN) {
    schedule.registerTiles[*mDim] = tiles.registerM;
    schedule.registerTiles[nDim] = tiles.registerN;
  }
  return schedule;
}


LogicalResult mlc::target::getContractionTiles(Operation *where, int64_t m,
                                               int64_t n, int64_t k,
                                               int64_t nBlock,
                                               ArrayRef<int64_t> option,
                                               Tiles &packed, Tiles &unpacked) {
  packed = Tiles{m, n, k, nBlock};
  unpacked = packed;
  if (option.empty())
    return success();
  if ((option.size() != 4 && option.size() != 6) ||
      llvm::any_of(option, [](int64_t t) { return t < 0; }) || option[0] < 1 ||
      option[1] < 1)
    return where->emitError(
        "unpacked-tiles takes four sizes (m, n, k, n-block) or six (and a "
        "register tile m, n), m and n at least 1");
  unpacked = {option[0], option[1], option[2], option[3]};
  if (option.size() == 6) {
    unpacked.registerM = option[4];
    unpacked.registerN = option[5];
  }
  return success();
}
