//===- SimplifyShapes.h - Folding sizes known at run time -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_SIMPLIFYSHAPES_H
#define MLC_DIALECT_LOOP_TRANSFORMS_SIMPLIFYSHAPES_H

#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// The rewrites of mlc-loop-simplify-shapes: `tensor.dim` of results
/// resolved to the sizes they were built with, index comparisons that
/// value bounds prove folded, whole-tensor slices dropped. Passes that make
/// new producers and consumers (fusion) run them with their own patterns.
void populateSimplifyShapesPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_SIMPLIFYSHAPES_H
