//===- CollapseElementwiseRows.h - Longer elementwise rows ------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Elementwise loop nests that no tiling level vectorizes (residual adds,
// activations that are not epilogues) are left to LLVM's vectorizers. Over
// an NCHW map whose rows are short (28 or 14 pixels), LLVM unrolls the
// innermost loop completely and vectorizes across channels instead, with a
// gather per operand and lanes one channel plane apart: ResNet-50's
// 512 x 28 x 28 residual add + ReLU ran 6x slower per element than its
// 256 x 56 x 56 one. Folding the image's rows and columns into one loop
// gives LLVM a long contiguous innermost loop to vectorize.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_COLLAPSEELEMENTWISEROWS_H
#define MLC_LIB_TARGET_CPU_COLLAPSEELEMENTWISEROWS_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// Collapses the two innermost loops of every top-level, statically shaped,
/// all-parallel `linalg.generic` of `func` into one when every operand
/// reads the loops as its dims in order, none is a constant or a slice of
/// a larger tensor (whose collapsed view would need a copy) and the op has
/// no marks of the tiling pass. Ops whose innermost loop already spans at
/// least `minRow` iterations are left alone.
void collapseElementwiseRows(mlir::RewriterBase &rewriter,
                             mlir::func::FuncOp func, int64_t minRow);

/// The same for the root of `kernel` (an operand that is a kernel argument
/// is judged by the kernel's operand): the CPU's layout choice for an
/// elementwise kernel, made before its strategy schedules it. The collapsed
/// op becomes the root.
void collapseKernelRows(mlir::RewriterBase &rewriter, loop::KernelOp kernel,
                        int64_t minRow);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_COLLAPSEELEMENTWISEROWS_H
