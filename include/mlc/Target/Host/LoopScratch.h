//===- LoopScratch.h - Small buffers local to a loop body --------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A backend may keep small buffers that live inside one loop body out of
// the static arena (the CPU puts them on the stack of the thread running
// the body). The arena planner and the backend's pass agree on which
// buffers these are through this predicate and a byte bound the backend's
// target description sets.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_LOOPSCRATCH_H
#define MLC_TARGET_HOST_LOOPSCRATCH_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlc::host {

/// True for an allocation that is statically shaped, contiguous, of at
/// most `maxBytes` bytes and inside a loop (scf, affine or OpenMP).
bool isLoopScratch(mlir::memref::AllocOp alloc, int64_t maxBytes);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_LOOPSCRATCH_H
