//===- Passes.h - NPU dialect passes ----------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declarations and registration of the NPU dialect's passes, generated from
// Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_NPU_TRANSFORMS_PASSES_H
#define MLC_DIALECT_NPU_TRANSFORMS_PASSES_H

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlc::npu {

#define GEN_PASS_DECL
#include "mlc/Dialect/NPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Dialect/NPU/Transforms/Passes.h.inc"

} // namespace mlc::npu

#endif // MLC_DIALECT_NPU_TRANSFORMS_PASSES_H
