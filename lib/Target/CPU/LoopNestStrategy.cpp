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
