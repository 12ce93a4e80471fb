//===- AccumulatorInits.h - Start accumulators in registers -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A contraction accumulates onto its init: a zero fill, or the broadcast
// bias that mlc-loop-fuse-elementwise made its starting value. As a loop
// nest of its own that init writes the whole result before the contraction
// reads it back, one register tile at a time: a pass over memory that a
// 1x1 convolution with few input channels spends as long on as on its
// multiply-adds. When no loop above the register tiles splits the
// reduction, each register tile instead writes the init's values into its
// own part of the result right before its reduction loop (in cache, and
// forwarded into the accumulator registers once vectorized), and the
// whole-result init disappears. Writing the init's values again where they
// already are is harmless, so each tile's write is correct on its own; the
// whole-result init goes only when every tile got one.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_ACCUMULATORINITS_H
#define MLC_LIB_TARGET_CPU_ACCUMULATORINITS_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// On an init that markAccumulatorInit chose (and on the contraction, and
/// its tiles, that accumulate onto it): the same number.
constexpr llvm::StringLiteral kAccumulatorInitAttr =
    mlc::loop::LoopDialect::AccumulatorInitAttrHelper::getNameStr();
constexpr llvm::StringLiteral kAccumulatesOntoAttr =
    mlc::loop::LoopDialect::AccumulatesOntoAttrHelper::getNameStr();

/// Marks `contraction`'s (or a window op's) init when it is a `linalg.fill`
/// or a broadcast
/// `linalg.generic` used by nothing else (a broadcast read through a
/// `tensor.collapse_shape`, as a convolution's is, is rebuilt on the
/// collapsed shape first). Call it before tiling, only when no loop above
/// the register tiles will split the reduction.
void markAccumulatorInit(mlir::RewriterBase &rewriter,
                         mlir::linalg::LinalgOp contraction, int64_t id);

/// After the register-level tiling of a marked contraction's cache tile:
/// writes the init's values for the register tile's part of the result
/// right before its first reduction loop, and returns that op (a fill or a
/// broadcast of a slice of the bias) to be vectorized with the tiles.
/// Returns null, and adds the init's number to `failed`, when the nest is
/// not what it expects.
mlir::linalg::LinalgOp startAccumulators(mlir::RewriterBase &rewriter,
                                         const loop::TiledNest &nest,
                                         llvm::DenseSet<int64_t> &failed);

/// Replaces every marked init whose number is not in `failed` by its
/// destination (each tile now writes its values itself) and drops the
/// marks. Returns the inits that stay.
llvm::SmallVector<mlir::Operation *>
dropAccumulatorInits(mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
                     const llvm::DenseSet<int64_t> &failed);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_ACCUMULATORINITS_H
