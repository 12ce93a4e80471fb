//===- Passes.h - Target-independent loop-level rewrites --------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rewrites of loop-level IR that every backend runs before its strategy.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_PASSES_H
#define MLC_DIALECT_LOOP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlc::loop {

#define GEN_PASS_DECL
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_PASSES_H
