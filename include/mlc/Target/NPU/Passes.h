//===- Passes.h - NPU target passes -----------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_PASSES_H
#define MLC_TARGET_NPU_PASSES_H

#include "mlc/Dialect/NPU/IR/NPUOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlc::target {

#define GEN_PASS_DECL
#include "mlc/Target/NPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Target/NPU/Passes.h.inc"

} // namespace mlc::target

#endif // MLC_TARGET_NPU_PASSES_H
