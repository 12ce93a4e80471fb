//===- StridedWindows.h - Stride-2 windows split in registers ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_STRIDEDWINDOWS_H
#define MLC_LIB_TARGET_CPU_STRIDEDWINDOWS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// Rewrites every static f32 NCHW depthwise convolution of `func` with
/// column stride 2 and unit dilations, whose output rows are at least a
/// quarter of a vector wide, into vector loops over its channel planes:
/// each output row is computed `lanes` columns at a time, and window taps
/// `2m` and `2m + 1` of an input row are the even and odd lanes of two
/// masked loads of `lanes` consecutive input columns (one lane shuffle
/// each). A zero padding before the convolution is read through the masks
/// instead of copied. The planes are an `scf.forall` when `parallel` and
/// the convolution is large enough for threads. This replaces the column
/// phases of WindowPhases.h for these convolutions, which cost one more
/// pass over the input through memory. (Max pooling the same way measured
/// slower than its column phases, whose window needs no weights: it stays
/// with them.)
void lowerStride2Windows(mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
                         int64_t lanes, bool parallel);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_STRIDEDWINDOWS_H
