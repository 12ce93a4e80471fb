//===- StackScratch.h - Loop-local scratch buffers on the stack -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_STACKSCRATCH_H
#define MLC_LIB_TARGET_CPU_STACKSCRATCH_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlc::target {

/// Loop-local scratch buffers up to this size (a cache block of a packed
/// right-hand side is 64-128 KiB) live on the stack of the thread that
/// runs the loop body.
constexpr int64_t kMaxStackScratchBytes = int64_t(512) << 10;

/// True for an allocation that mlc-cpu-stack-scratch puts on the stack
/// (and mlc-cpu-plan-arena leaves to it): statically shaped, contiguous,
/// at most kMaxStackScratchBytes, inside a loop.
bool isStackScratch(mlir::memref::AllocOp alloc);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_STACKSCRATCH_H
