//===- WindowColumnPhases.h - Strided windows as phases ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_WINDOWCOLUMNPHASES_H
#define MLC_LIB_TARGET_CPU_WINDOWCOLUMNPHASES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// Splits every static f32 sliding-window op of `func` (NCHW depthwise
/// convolution, max and sum pooling) whose column stride `s` is above one
/// into one op per column phase `p < min(s, KW)`: the phase reads a copy of
/// the input's columns `p, p + s, p + 2s, ...` with the window taps
/// `p, p + s, ...` at column stride one, and the phases accumulate into the
/// same result in turn. Each phase is then a unit-stride window whose output
/// rows vectorize. The phases' columns come from one transpose of the
/// input's whole groups of `s` columns, `[.., W / s, s] -> [.., s, W / s]`,
/// which mlc-cpu-tile-and-vectorize runs in register tiles (plus the column
/// after the groups when a phase needs it); where a phase needs more, from
/// one strided copy per phase.
void splitStridedWindows(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);

/// The sliding-window ops of `func` (NCHW depthwise convolution, max and
/// sum pooling), in program order.
llvm::SmallVector<mlir::linalg::LinalgOp>
collectWindowOps(mlir::func::FuncOp func);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_WINDOWCOLUMNPHASES_H
