//===- Schedules.h - Contraction schedules: print, read, override -*- C++ -*-=//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// How `mlc-cpu-tile-and-vectorize` tiles one contraction, as data: the
// heuristic fills a ContractionSchedule, `--print-schedules` shows it as a
// `#mlc_loop.schedule` attribute per kernel, and a schedule file in the same
// form replaces the heuristic's sizes for the kernels it names.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_SCHEDULES_H
#define MLC_LIB_TARGET_CPU_SCHEDULES_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlc::target {

/// How one contraction is tiled: loop order (batch, m, n, then k dims) and
/// the tile sizes of the thread, cache and register levels, in loop-dim
/// order (0: not tiled at that level; register tiles are at least 1).
struct ContractionSchedule {
  llvm::SmallVector<int64_t> loopOrder;
  llvm::SmallVector<int64_t> parallelTiles;
  llvm::SmallVector<int64_t> cacheTiles;
  llvm::SmallVector<int64_t> registerTiles;
};

/// `schedule` as `#mlc_loop.schedule<tile_sizes = [threads, cache,
/// registers], vector_sizes = registers, parallel_dims = ...>`.
loop::ScheduleAttr toAttr(mlir::MLIRContext *ctx,
                          const ContractionSchedule &schedule);

/// The schedule file: one kernel per line, `"NAME" ... #mlc_loop.schedule<...>`
/// (what --print-schedules prints; anything between the name and the
/// attribute is ignored), blank lines and `//` comments allowed.
class ScheduleOverrides {
public:
  /// Reads `path`; on a missing file or a malformed line, emits an error at
  /// `loc` naming the file and line and fails.
  static mlir::FailureOr<ScheduleOverrides>
  load(llvm::StringRef path, mlir::MLIRContext *ctx, mlir::Location loc);

  /// The schedule given for kernel `name`, or null.
  loop::ScheduleAttr lookup(llvm::StringRef name) const {
    return table.lookup(name);
  }

private:
  llvm::StringMap<loop::ScheduleAttr> table;
};

/// Replaces the sizes in `schedule` with `attr`'s after checking that they
/// fit `op` (as many loops, three levels, thread tiles that divide their
/// loops, register tiles of at least 1 and at most 4096 elements), and the
/// loop order with `attr`'s when it has one (else keeps `schedule`'s, or
/// the loops' own when `schedule` has none). Emits an error on `op` naming
/// the kernel and fails otherwise.
mlir::LogicalResult applyOverride(mlir::linalg::LinalgOp op,
                                  llvm::StringRef name, loop::ScheduleAttr attr,
                                  ContractionSchedule &schedule);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_SCHEDULES_H
