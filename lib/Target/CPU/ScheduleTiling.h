//===- ScheduleTiling.h - The CPU's steps from schedules to tiles -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the CPU pipeline does with the schedules of its kernels, one pass per
// step, in this order:
//
//   mlc-cpu-window-register-tiles   windows and transposes: register tiles
//   mlc-cpu-tile-by-schedule        the generic tiling (mlc::loop), with the
//                                   CPU's policy: accumulator inits, im2col
//                                   gathers per chunk
//   mlc-cpu-parallelize-loop-nests  pads, rows, the other loop nests on
//                                   threads
//   mlc-cpu-vectorize-register-tiles  the register level
//
// `mlc-cpu-tile-threads-and-caches` runs the first three and
// `mlc-cpu-tile-and-vectorize` all four, each deciding first, as
// mlc-cpu-set-schedules would, the schedules of contractions that have none
// (for tests on linalg ops outside kernels).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_SCHEDULETILING_H
#define MLC_LIB_TARGET_CPU_SCHEDULETILING_H

#include "mlc/Dialect/Loop/Transforms/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// What mlc-cpu-window-register-tiles needs to know.
struct WindowTilingOptions {
  int64_t vectorWidth;
  /// Output columns of a window's register tile when it has no schedule.
  int64_t columns;
  bool parallel;
  bool stride2Windows;
  bool fuseEpilogues;
};

/// Windows split in registers (stride 2) or into column phases, their loops
/// reordered and marked with their register tiles (their schedule's, or
/// the default one), transposes of the two innermost dims marked; their
/// accumulator inits marked, windows' epilogues prepared.
void prepareWindowRegisterTiles(mlir::func::FuncOp func,
                                const WindowTilingOptions &options);

/// The CPU's policy for mlc::loop::tileBySchedules on `func`: a contraction
/// whose reduction no loop level splits starts its accumulators from its
/// init (AccumulatorInits.h); a contraction's thread chunks and reduction
/// blocks gather their own slice of an im2col matrix
/// (Im2colChunkGathers.h).
std::unique_ptr<loop::TilingPolicy>
createCPUTilingPolicy(mlir::func::FuncOp func, bool fuseEpilogues);

/// Splits `op` into chunks for threads: by `decided`'s first level when it
/// is a loop nest's schedule (LoopNestStrategy.h), else by the same rule.
/// Register tile marks move to the chunk's op, which is returned (null
/// when `op` stays whole).
mlir::Operation *parallelizeLoopNest(mlir::RewriterBase &rewriter,
                                     mlir::linalg::LinalgOp op,
                                     loop::ScheduleAttr decided = {});

/// Pads as fills and copies, long elementwise rows collapsed, and, with
/// `parallel`, every other large loop nest of `func`'s body on threads;
/// then marked loops peeled and `func` canonicalized.
mlir::LogicalResult parallelizeLoopNests(mlir::func::FuncOp func,
                                         bool parallel);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_SCHEDULETILING_H
