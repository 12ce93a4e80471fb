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

/// The most bytes `alloc` takes: its static size, or with sizes known at
/// run time (a partial tile's) their constant upper bounds (upstream's
/// value bounds). None for a strided layout or an unbounded size.
std::optional<int64_t> getMaxBytes(mlir::memref::AllocOp alloc);

/// True for an allocation that is contiguous, of at most `maxBytes` bytes
/// (at its sizes' bounds, getMaxBytes) and inside a loop (scf, affine or
/// OpenMP).
bool isLoopScratch(mlir::memref::AllocOp alloc, int64_t maxBytes);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_LOOPSCRATCH_H
