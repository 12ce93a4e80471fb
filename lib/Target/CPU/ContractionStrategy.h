//===- ContractionStrategy.h - How the CPU schedules a contraction -*- C++ -*-=//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The CPU strategy's decision for one contraction: loop order and the
// thread, cache and register tiles, from the register and cache tiles of
// the target description (TargetInfo.h) and the contraction's shape. The
// strategy pass (mlc-cpu-set-schedules) writes it on the contraction's
// kernel; mlc-cpu-tile-and-vectorize applies it.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_CONTRACTIONSTRATEGY_H
#define MLC_LIB_TARGET_CPU_CONTRACTIONSTRATEGY_H

#include "mlc/Target/CPU/TargetInfo.h"
#include "Schedules.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlc::target {


/// Register and cache tiles of a contraction (see ContractionTiles).
struct Tiles {
  int64_t m, n, k, nBlock;
  /// When nonzero, the register tile computed in place of m x n, which
  /// still sizes the thread chunks and cache blocks.
  int64_t registerM = 0, registerN = 0;
};

/// The pair dim of a contraction of i16 pairs into i32 sums
/// (mlc-cpu-integer-contractions): a reduction dim of range 2, the last of
/// both inputs, which the register level turns into multiply-adds of pairs.
/// Nothing for any other op.
std::optional<unsigned> getPairDim(mlir::linalg::LinalgOp op);

/// The schedule of `op`, or nothing when it is not a contraction the CPU code
/// generator knows how to vectorize: f32 (or i16 pairs, getPairDim), static,
/// two inputs, and its innermost result dim an `n` dim that is also
/// innermost in the operand that carries it (before the pair dim).
std::optional<ContractionSchedule>
scheduleContraction(mlir::linalg::LinalgOp op, const Tiles &packedTiles,
                    const Tiles &unpackedTiles, int64_t lanes, bool parallel);

/// The tiles for packed weights (`m`, `n`, `k`, `nBlock`) and for
/// right-hand sides read in rows (`unpackedOption`: m, n, k, n-block and
/// optionally a register tile m, n; empty: the packed tiles), as the
/// passes' options give them. Emits an error on `where` and fails when
/// `unpackedOption` is malformed.
mlir::LogicalResult getContractionTiles(mlir::Operation *where, int64_t m,
                                        int64_t n, int64_t k, int64_t nBlock,
                                        llvm::ArrayRef<int64_t> unpackedOption,
                                        Tiles &packed, Tiles &unpacked);

/// Whether `value` is a constant or a slice of one (packed weights).
bool isConstant(mlir::Value value);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_CONTRACTIONSTRATEGY_H
