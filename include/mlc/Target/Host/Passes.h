//===- Passes.h - Host-code passes every backend shares ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host side of a compiled model, the same for CPU, GPU and NPU
// backends: the C ABI signature, the static arena, weights kept out of the
// object, kernel outlining and the C entry points.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_PASSES_H
#define MLC_TARGET_HOST_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlc::host {

#define GEN_PASS_DECL
#include "mlc/Target/Host/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Target/Host/Passes.h.inc"

} // namespace mlc::host

#endif // MLC_TARGET_HOST_PASSES_H
