//===- LoopNestStrategy.h - Threads for loop nests on the CPU ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The CPU strategy's decision for a loop nest that is not a vectorized
// contraction (a reduction, an elementwise op, a gather): whether it runs on
// threads and in which chunks. mlc-cpu-set-schedules writes it on reduction
// kernels; mlc-cpu-tile-and-vectorize applies a kernel's decision, and takes
// the same one for loop nests its own rewrites made.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_LOOPNESTSTRATEGY_H
#define MLC_LIB_TARGET_CPU_LOOPNESTSTRATEGY_H

#include "mlc/Target/CPU/TargetInfo.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlc::target {



/// The chunk size per loop (0: whole) of `op` on threads, or nothing when
/// it stays on one thread: too small, dynamic, or no loop splits well. The
/// outermost parallel loop that splits into 8, 4 or 2 equal chunks, each a
/// whole number of `registerTiles` (when given, one per loop); else the
/// outermost that splits into at least kMinOddChunks. Counted by
/// iterations, so that a reduction into a small result (a global average
/// pool's 576 channels of 49 pixels) splits like an elementwise op of the
/// same work.
std::optional<llvm::SmallVector<int64_t>>
chooseThreadChunks(mlir::linalg::LinalgOp op,
                   llvm::ArrayRef<int64_t> registerTiles);

/// The register tile of a transpose of the two innermost dims (matrices;
/// the column phases of strided windows): one vector of `lanes` columns
/// per output row, `lanes` rows, transposed in registers. Nothing for
/// other transposes, or rows narrower than a vector.
std::optional<llvm::SmallVector<int64_t>>
getTransposeRegisterTiles(mlir::linalg::LinalgOp op, int64_t lanes);

/// The register tile of a gather of rows (Gather, GatherElements along an
/// outer dim: a generic whose one tensor.extract reads its source's last
/// dim at the innermost loop's index): one vector of `lanes` elements of
/// the row per tile, read contiguously, every other loop 1. For outer dims
/// of static or run-time size alike; the row (the innermost dim) must be
/// static and a multiple of `lanes`.
std::optional<llvm::SmallVector<int64_t>>
getGatherRowRegisterTiles(mlir::linalg::LinalgOp op, int64_t lanes);

/// A loop nest's register tile: a transpose's or a gather of rows', or
/// nothing.
std::optional<llvm::SmallVector<int64_t>>
getLoopNestRegisterTiles(mlir::linalg::LinalgOp op, int64_t lanes);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_LOOPNESTSTRATEGY_H
