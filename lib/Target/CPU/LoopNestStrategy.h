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

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlc::target {

/// Loop nests of fewer iterations than this stay on the calling thread: an
/// OpenMP fork and join costs 2-3 us, more than an elementwise op over a
/// few thousand floats takes. (2048 before: at two threads MobileNetV3-small
/// 0.62 -> 0.60 ms, MobileNetV2 2.17 -> 2.14 ms, EfficientNet-B0 3.53 ->
/// 3.50 ms with 16384; 32768 no better; Zen 5, five interleaved rounds.)
constexpr int64_t kMinParallelElements = int64_t(1) << 14;

/// Chunk counts a loop nest that no 8, 4 or 2 chunks divide takes at the
/// least: with 9 or more, the thread with the odd chunk does at most 11%
/// more than its share (of two threads).
constexpr int64_t kMinOddChunks = 9;

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

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_LOOPNESTSTRATEGY_H
