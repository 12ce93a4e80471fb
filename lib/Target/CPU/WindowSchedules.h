//===- WindowSchedules.h - Register tiles of sliding windows ----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A sliding window's (depthwise convolution, pooling) schedule: the output
// rows and columns of its register tile. The columns are the vector along
// the output row; the rows are independent accumulators that stay in
// registers across the window. mlc-cpu-set-schedules decides it; the
// window rewrites of mlc-cpu-tile-and-vectorize (stride-2 windows split in
// registers, column phases, register tiles) read it.
//
// As a #mlc_loop.schedule, over the window op's own loops: one tile level,
// the register tile (1 but on the output row and column loops), and the
// columns as the vector size of the output column loop.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_WINDOWSCHEDULES_H
#define MLC_LIB_TARGET_CPU_WINDOWSCHEDULES_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlc::target {

/// Output rows and columns of a window's register tile.
struct WindowTile {
  int64_t rows = 1;
  int64_t columns = 1;
};

/// Whether `op` is a sliding window the CPU code generator tiles by rules of
/// its own: NCHW depthwise convolution, max or sum pooling.
bool isWindowOp(mlir::Operation *op);

/// `tile` as a schedule of `op`'s loops, or null when `op` has no output
/// row and column loops.
loop::ScheduleAttr makeWindowSchedule(mlir::linalg::LinalgOp op,
                                      const WindowTile &tile);

/// The register tile that `schedule` gives `op`, if it is a window
/// schedule of `op`'s loops.
std::optional<WindowTile> getWindowTile(mlir::linalg::LinalgOp op,
                                        loop::ScheduleAttr schedule);

/// The register tile that `op`'s `mlc_loop.schedule` gives, if any.
std::optional<WindowTile> getWindowTile(mlir::linalg::LinalgOp op);

/// Sliding-window ops (depthwise convolution, pooling) iterate, as upstream
/// defines them, with the window innermost and for depthwise NCHW even the
/// channel inside the output columns. Reorders their loops to (output dims
/// but the last, window dims, last output dim) and marks them for register
/// tiles of `nTile` output columns: each step of the window then multiplies
/// a row of the input by one broadcast weight into an accumulator row that
/// stays in registers across the window.
/// The register tile is the window's schedule when it has one
/// (getWindowTile), else `nTile` columns and kWindowRows rows.
void interchangeWindowLoops(mlir::RewriterBase &rewriter,
                            mlir::linalg::LinalgOp op, int64_t nTile);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_WINDOWSCHEDULES_H
