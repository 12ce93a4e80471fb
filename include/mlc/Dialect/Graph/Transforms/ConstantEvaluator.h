//===- ConstantEvaluator.h - Evaluate graph ops on small constants -*- C++ -*-//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H
#define MLC_DIALECT_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace mlc::graph {

/// Largest folded result (in elements) the evaluator materializes, unless
/// it is a splat: folding must not blow constants up.
constexpr int64_t kMaxFoldedElements = 1 << 16;

/// Evaluates `op` at compile time when every operand is a dense constant
/// (`operands[i]` null otherwise) and the op is one of the shape-computation
/// and data-movement ops ONNX exporters spell out (arithmetic, comparisons,
/// casts, slice, gather, concat, reshapes, transpose, expand, tile, range,
/// constant_of_shape, reductions). Returns null when it cannot or should not
/// fold (unknown op, non-static result, integer division by zero, result too
/// large).
mlir::DenseElementsAttr
evaluateConstantOp(mlir::Operation *op,
                   llvm::ArrayRef<mlir::DenseElementsAttr> operands);

} // namespace mlc::graph

#endif // MLC_DIALECT_GRAPH_TRANSFORMS_CONSTANTEVALUATOR_H
