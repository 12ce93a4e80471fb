//===- Packing.h - Right-hand sides read in panels --------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A register tile of a contraction reads `panel` consecutive columns of its
// right-hand side B[k, n] at every step of its reduction loop. Row-major,
// those are `n` floats apart from one step to the next: for an im2col matrix
// of a 56x56 image, 12.5 KB, a new page at every step. In panels,
// B'[n / panel, k, panel], they follow each other. Constant weights are
// packed at compile time (mlc-loop-pack-weights); a target may pack a
// right-hand side computed at run time one cache block at a time, right
// before the register tiles that reuse it (the CPU's pack-blocks).
// Constant left-hand sides (convolution filters) keep their rows, longer
// where the target asks for it (readWithPaddedRows).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_PACKING_H
#define MLC_DIALECT_LOOP_TRANSFORMS_PACKING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlc::loop {

/// The reduction and column dims of `op` when `operand` is its right-hand
/// side B[batch..., k, n] with `n` the innermost dim of the result, so that
/// it can be read in panels of `panel` columns (n a multiple of `panel`,
/// and more than one panel). The operand's shape is static; the other
/// operands' dims (the rows, a batch) may be known only at run time.
std::optional<std::pair<unsigned, unsigned>>
getPackableOperand(mlir::linalg::LinalgOp op, mlir::OpOperand *operand,
                   int64_t panel);

/// The operand of `op` (an f32 contraction of two inputs) that is a
/// constant right-hand side B[k, n] packable in panels of `panel` columns
/// (getPackableOperand) with its data at hand, or null.
mlir::OpOperand *getPackableConstant(mlir::linalg::LinalgOp op, int64_t panel);

/// Rewrites `op` (for which getPackableOperand gave `kDim`, `nDim`) to read
/// `operand` from `packed`, B'[batch..., n / panel, k, panel]: `nDim` then
/// counts panels and a new innermost loop the columns in a panel. The
/// result is computed in [..., n / panel, panel] and collapsed back.
/// Returns the new op.
mlir::linalg::GenericOp readPacked(mlir::RewriterBase &rewriter,
                                   mlir::linalg::LinalgOp op,
                                   mlir::OpOperand *operand,
                                   mlir::Value packed, unsigned kDim,
                                   unsigned nDim, int64_t panel);

/// B'[batch..., n / panel, k, panel] = B[batch..., k, n] as a copy into a
/// new tensor (a `linalg.generic` that only moves elements: rows of `panel`
/// floats once bufferized).
mlir::Value packPanels(mlir::RewriterBase &rewriter, mlir::Location loc,
                       mlir::Value value, int64_t panel);

/// For a constant `value` of static f32 type [rows, ...] (rows >= 2), the
/// same matrix [rows, cols] (the other dims flattened) read from a constant
/// whose rows are `rowPad` elements longer (a `tensor.extract_slice`); else
/// null. A contraction's left-hand side is read a column at a time, one
/// element of each of a register tile's rows per step: rows a power of two
/// apart can map to a handful of cache sets, and a target pads them.
mlir::Value readWithPaddedRows(mlir::RewriterBase &rewriter,
                               mlir::Location loc, mlir::Value value,
                               int64_t rowPad);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_PACKING_H
