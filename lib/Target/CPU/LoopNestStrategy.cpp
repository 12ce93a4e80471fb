//===- LoopNestStrategy.cpp - Threads for loop nests on the CPU -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LoopNestStrategy.h"
#include "ContractionStrategy.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlc::target;
using mlc::loop::isStaticF32;

std::optional<SmallVector<int64_t>>
mlc::target::chooseThreadChunks(linalg::LinalgOp op,
                                ArrayRef<int64_t> registerTiles) {
  auto resultType =
      dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!resultType || !resultType.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t iterations = 1;
  for (int64_t r : ranges)
    iterations *= r;
  if (iterations < kMinParallelElements)
    return std::nullopt;
  // Contractions (those the schedule left whole) go by their flops.
  if (linalg::isaContractionOpInterface(op) &&
      2 * iterations < kMinParallelFlops)
    return std::nullopt;
  // The outermost parallel loop that splits into 8, 4 or 2 equal chunks,
  // each a whole number of register tiles (the input copy of a 3-channel
  // image splits by rows); else the outermost that splits into at least
  // kMinOddChunks (an odd count leaves a thread one chunk more: SqueezeNet's
  // im2col gather of 3 channels by 111 x 111 pixels, serial before, takes
  // 37 chunks of 3 rows).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool tiled = registerTiles.size() == ranges.size();
  auto chunkSize = [&](unsigned d, int64_t chunks) -> int64_t {
    int64_t tile = tiled ? std::max<int64_t>(1, registerTiles[d]) : 1;
    return ranges[d] % chunks == 0 && (ranges[d] / chunks) % tile == 0
               ? ranges[d] / chunks
               : 0;
  };
  SmallVector<int64_t> sizes(ranges.size(), 0);
  auto choose = [&](ArrayRef<int64_t> counts) {
    for (auto [d, range] : llvm::enumerate(ranges)) {
      if (iterators[d] != utils::IteratorType::parallel || range < 2)
        continue;
      for (int64_t chunks : counts)
        if (int64_t size = chunks <= range ? chunkSize(d, chunks) : 0) {
          sizes[d] = size;
          return;
        }
    }
  };
  choose({8, 4, 2});
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; })) {
    int64_t most = *llvm::max_element(ranges);
    choose(llvm::to_vector(llvm::seq<int64_t>(kMinOddChunks, most + 1)));
  }
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return std::nullopt;
  return sizes;
}

std::optional<SmallVector<int64_t>>
mlc::target::getTransposeRegisterTiles(linalg::LinalgOp linalgOp,
                                       int64_t lanes) {
  auto op = dyn_cast<linalg::TransposeOp>(linalgOp.getOperation());
  if (!op)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op.getInit().getType());
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t rank = type ? type.getRank() : 0;
  if (rank < 2 || !isStaticF32(type) || !op.hasPureTensorSemantics() ||
      lanes < 2 || type.getDimSize(rank - 1) < lanes ||
      perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2 ||
      llvm::any_of(llvm::seq<int64_t>(0, rank - 2),
                   [&](int64_t d) { return perm[d] != d; }))
    return std::nullopt;
  SmallVector<int64_t> tiles(rank, 1);
  tiles[rank - 2] = std::min<int64_t>(lanes, type.getDimSize(rank - 2));
  tiles[rank - 1] = lanes;
  return tiles;
}

std::optional<SmallVector<int64_t>>
mlc::target::getGatherRowRegisterTiles(linalg::LinalgOp linalgOp,
                                       int64_t lanes) {
  auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
  if (!op || lanes < 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() ||
      op.getNumReductionLoops() != 0)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  int64_t rank = type ? type.getRank() : 0;
  if (rank < 1 || !type.getElementType().isF32() ||
      type.isDynamicDim(rank - 1) || type.getDimSize(rank - 1) % lanes ||
      !op.getIndexingMapsArray().back().isIdentity())
    return std::nullopt;
  // One read of a source, its last index the innermost loop's.
  SmallVector<tensor::ExtractOp> reads;
  op.getBody()->walk([&](tensor::ExtractOp read) { reads.push_back(read); });
  if (reads.size() != 1)
    return std::nullopt;
  tensor::ExtractOp read = reads.front();
  auto sourceType = dyn_cast<RankedTensorType>(read.getTensor().getType());
  if (!sourceType || !sourceType.getElementType().isF32() ||
      read.getTensor().getParentBlock() == op.getBody())
    return std::nullopt;
  auto last = read.getIndices().back().getDefiningOp<linalg::IndexOp>();
  if (!last || static_cast<int64_t>(last.getDim()) != rank - 1)
    return std::nullopt;
  // The other indices must not vary along the innermost loop: nothing of
  // theirs reads its index or an operand indexed by it.
  SmallVector<Value> work(read.getIndices().drop_back());
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != op.getBody())
        continue;
      if (arg.getArgNumber() >= op.getNumDpsInputs())
        return std::nullopt;
      AffineMap map = op.getIndexingMapsArray()[arg.getArgNumber()];
      if (map.isFunctionOfDim(rank - 1))
        return std::nullopt;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !op->isProperAncestor(def))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      if (static_cast<int64_t>(index.getDim()) == rank - 1)
        return std::nullopt;
      continue;
    }
    if (def->getNumRegions() || !isPure(def))
      return std::nullopt;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<int64_t> tiles(rank, 1);
  tiles[rank - 1] = lanes;
  return tiles;
}

std::optional<SmallVector<int64_t>>
mlc::target::getLoopNestRegisterTiles(linalg::LinalgOp op, int64_t lanes) {
  if (auto tiles = getTransposeRegisterTiles(op, lanes))
    return tiles;
  return getGatherRowRegisterTiles(op, lanes);
}
