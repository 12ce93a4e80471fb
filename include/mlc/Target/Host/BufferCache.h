//===- BufferCache.h - Run-time-sized buffers kept across runs --*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A buffer whose size is known only at run time cannot take a place in the
// static arena. Allocated from the C library and freed on every run, a large
// one is mapped fresh each time and every page of it faults on first touch:
// BERT compiled with a symbolic sequence spent a fifth of its run there. The
// arena planner gives such buffers to a small cache in the arena instead
// (abi::kBufferCacheSlots blocks, best fit, each block growing to the
// largest size asked of its slot), whose blocks outlive the run; the
// runtime frees them with the arena (abi::releaseBufferCache). The cache's
// functions are ordinary functions of the module, lowered with it.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_BUFFERCACHE_H
#define MLC_TARGET_HOST_BUFFERCACHE_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlc::host {

/// Bytes of one element of a buffer in memory (i1 takes a byte, index 8
/// bytes), as the arena planner and the cache count them.
int64_t getElementBytes(mlir::Type type);

/// The type of the cache's rows in the arena.
mlir::MemRefType getBufferCacheType(mlir::MLIRContext *context);

/// Adds the cache's take and give functions to `module` (once).
mlir::LogicalResult addBufferCacheFunctions(mlir::ModuleOp module);

/// Replaces `alloc` (of an identity layout) with a buffer taken from the
/// cache `rows` and gives it back right after `lastUse`.
void takeFromBufferCache(mlir::memref::AllocOp alloc, mlir::Value rows,
                         mlir::Operation *lastUse);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_BUFFERCACHE_H
