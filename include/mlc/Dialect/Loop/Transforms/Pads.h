//===- Pads.h - Constant pads as a fill and an interior copy ----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_PADS_H
#define MLC_DIALECT_LOOP_TRANSFORMS_PADS_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// Marks the fills made by rewritePadsAsFillAndCopy, which may run on
/// threads like other loop nests (accumulator fills may not: contraction
/// tiling consumes them).
constexpr llvm::StringLiteral kPadFillAttr =
    mlc::loop::LoopDialect::PadFillAttrHelper::getNameStr();

/// Rewrites every `tensor.pad` of `func` with a constant padding value
/// (over static or run-time sizes) as `linalg.fill`s of the padded tensor's border strips, a
/// `linalg.copy` of the source into its interior slice and the
/// `tensor.insert_slice`s of those slices back (in place once bufferized):
/// every element is written once. A `tensor.pad` bufferizes to
/// a scalar copy loop in the model's entry function, outside every kernel
/// and thread; as linalg ops the fill and the copy are loop nests that the
/// tiling pass splits across threads and LLVM vectorizes.
void rewritePadsAsFillAndCopy(mlir::RewriterBase &rewriter,
                              mlir::func::FuncOp func);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_PADS_H
