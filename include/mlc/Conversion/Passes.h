//===- Passes.h - Conversion passes -----------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_CONVERSION_PASSES_H
#define MLC_CONVERSION_PASSES_H

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlc {

#define GEN_PASS_DECL
#include "mlc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Conversion/Passes.h.inc"

} // namespace mlc

#endif // MLC_CONVERSION_PASSES_H
