//===- Stride2WindowsInRegisters.h - Stride-2 windows -----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_STRIDE2WINDOWSINREGISTERS_H
#define MLC_LIB_TARGET_CPU_STRIDE2WINDOWSINREGISTERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlc::target {

/// Rewrites every static f32 NCHW depthwise convolution and max pool of
/// `func` with column stride 2 and unit dilations, whose output rows are at
/// least a quarter of a vector wide, into vector loops over its channel
/// planes: each output row is computed `lanes` columns at a time from
/// masked loads of `lanes` consecutive input columns, whose even and odd
/// lanes (one lane shuffle each) are window taps `2m` and `2m + 1`. The
/// padding before the op (zeros for a convolution, -inf for a pool) is read
/// through the masks instead of copied. A convolution shuffles each input
/// row's loads; a pool (window at most three columns wide) first takes the
/// maximum of its window rows, clamped into the image, then shuffles once
/// per tap. The planes are an `scf.forall` when `parallel` and the op is
/// large enough for threads. This replaces the column phases of
/// WindowColumnPhases.h for these ops, which cost one more pass over the input
/// through memory.
/// A window's `mlc_loop.schedule` (WindowSchedules.h), when it has one,
/// gives its columns per vector in place of `lanes`.
void lowerStride2Windows(mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
                         int64_t lanes, bool parallel);

/// Whether lowerStride2Windows takes `op` with `lanes` columns per vector.
bool isSplitInRegisters(mlir::linalg::LinalgOp op, int64_t lanes);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_STRIDE2WINDOWSINREGISTERS_H
