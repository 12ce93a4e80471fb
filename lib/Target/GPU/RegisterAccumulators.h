//===- RegisterAccumulators.h - Reductions in registers ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// How a GPU thread computes one element of a reduction (a matmul's or a
// convolution's output, a row's sum): the element is loaded once, carried
// through the reduction loops as a loop value, and stored once. The op's
// scalar implementation (TilingInterface) loads and stores the output at
// every step instead, because the device code cannot know that the output
// does not alias the operands (they may be views of one arena).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_GPU_REGISTERACCUMULATORS_H
#define MLC_LIB_TARGET_GPU_REGISTERACCUMULATORS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {

/// Whether buildRegisterReduction takes `op`: a linalg op on buffers with
/// one output that no reduction loop indexes, loops of known sizes and a
/// body without side effects.
bool canBuildRegisterReduction(mlir::linalg::LinalgOp op);

/// Builds at `b` the reduction loops of `op` (a linalg op on buffers with
/// one output that no reduction loop indexes) for the output elements at
/// `elements` (each the parallel loops' values; entries of reduction loops
/// are ignored), each element's accumulator a loop-carried value. Fails,
/// building nothing, for ops canBuildRegisterReduction does not take.
mlir::LogicalResult
buildRegisterReduction(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::linalg::LinalgOp op,
                       llvm::ArrayRef<llvm::SmallVector<mlir::Value>> elements);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_GPU_REGISTERACCUMULATORS_H
