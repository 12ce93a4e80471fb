//===- Tiling.h - Applying a kernel's schedule to its root ------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The target-independent half of code generation from a schedule: tiling a
// root's loops level by level through upstream's TilingInterface
// (`scf::tileUsingSCF`), the outermost level on threads as one
// `scf.forall`, the others as `scf.for` loops peeled into full tiles, with
// the kernel's elementwise epilogue moved into the finished tiles. What is
// left is the register level, marked on the innermost tile for the target's
// code generator. A target customizes it through a TilingPolicy (what its
// register code needs set up around the tiles: accumulator inits, gathers
// per chunk) and registers the result as a pass of its own, so that a
// printed pipeline replays in mlc-opt; mlc-loop-tile-by-schedule is the
// pass with no policy.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_TILING_H
#define MLC_DIALECT_LOOP_TRANSFORMS_TILING_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// Marks a root's innermost tile with its register tile (one size per
/// loop) and the order of its loops, for the target's code generator.
constexpr llvm::StringLiteral kRegisterTilesAttr =
    LoopDialect::RegisterTilesAttrHelper::getNameStr();
constexpr llvm::StringLiteral kLoopOrderAttr =
    LoopDialect::LoopOrderAttrHelper::getNameStr();
/// Marks a loop that peelMarkedLoops peels.
constexpr llvm::StringLiteral kPeelAttr =
    LoopDialect::PeelAttrHelper::getNameStr();

/// A loop nest after tiling: what fuseEpilogue and a target's register
/// code need to know about it.
struct TiledNest {
  /// The tiled op, innermost.
  mlir::Operation *tile = nullptr;
  /// The tiling loops, outermost first, and the loop dim each one tiles.
  llvm::SmallVector<mlir::scf::ForOp> loops;
  llvm::SmallVector<unsigned> loopDims;
  /// Tile size and range (of the op that was tiled) per loop dim.
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> ranges;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
  /// The indexing map of the result.
  mlir::AffineMap resultMap;
};

/// The most iterations each loop of `op` runs: its static range, else
/// the constant upper bound value bounds prove for an operand dim it
/// indexes (a tile of a loop known at run time is at most the tile's
/// size), else INT64_MAX.
llvm::SmallVector<int64_t> getLoopUpperBounds(mlir::linalg::LinalgOp op);

/// Tiles `op` with `sizes` (one per loop, 0: not tiled) in `order` (a
/// permutation of its loops, outermost first) and returns the tiled op, or
/// `op` itself when no size tiles anything (sizes that cover a whole loop,
/// or its upper bound, are dropped). With `forall`, the loops are one
/// `scf.forall` (the sizes must divide their static loops; the last chunk
/// of a loop known at run time may be short); else `scf.for` loops marked
/// for peelMarkedLoops. With `nest`, also describes the loops.
mlir::FailureOr<mlir::Operation *>
tileLoops(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
          llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> order,
          bool forall = false, TiledNest *nest = nullptr);

/// Peels every marked loop of `func` (and the copies peeling makes of
/// marked loops nested in it), so that each loop body sees full, static
/// tiles.
void peelMarkedLoops(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);

/// Applies every loaded dialect's and registered op's canonicalization
/// patterns to `func`.
mlir::LogicalResult canonicalizeFunction(mlir::func::FuncOp func);

/// The schedule the strategy decided for the kernel `op` was the root of
/// (mlc-loop-dissolve-kernels leaves it on the root), or null.
ScheduleAttr getDecidedSchedule(mlir::Operation *op);

/// The level of `schedule` that is the register tile: its last level when
/// it has vector sizes, else none (-1). The levels before it are loops.
int64_t getRegisterLevel(ScheduleAttr schedule);

/// What a target adds around the tiling of one root. The defaults add
/// nothing.
class TilingPolicy {
public:
  virtual ~TilingPolicy();
  /// Whether the root's elementwise epilogue runs on its finished tiles.
  virtual bool fuseEpilogues() const { return true; }
  /// The most bytes a thread chunk's part of the root's result may take
  /// when an epilogue that cannot run in place is fused into the chunks:
  /// that part then becomes the chunk's own buffer. None: no limit.
  virtual std::optional<int64_t> getMaxChunkBytes() const {
    return std::nullopt;
  }
  /// Called on `root` before it is tiled by `schedule`.
  virtual void beforeTiling(mlir::RewriterBase &rewriter,
                            mlir::linalg::LinalgOp root,
                            ScheduleAttr schedule) {}
  /// Called after level `level` of `schedule` tiled an op whose static loop
  /// ranges were `rangesBefore` into `tiled` (`changed` false when that
  /// level tiles nothing). The op before tiling is erased by then, so only
  /// its ranges are passed.
  virtual void afterLevel(mlir::RewriterBase &rewriter, ScheduleAttr schedule,
                          int64_t level, llvm::ArrayRef<int64_t> rangesBefore,
                          mlir::linalg::LinalgOp tiled, bool changed) {}
};

/// Applies the loop levels of every decided schedule in `func` whose root
/// has loops to tile (see mlc-loop-tile-by-schedule), then peels. Emits an
/// error on a root whose schedule does not fit it and fails.
mlir::LogicalResult tileBySchedules(mlir::func::FuncOp func,
                                    TilingPolicy &policy);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_TILING_H
