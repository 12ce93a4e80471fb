//===- HostAccess.h - Host code that reads what kernels wrote ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Helpers of mlc-gpu-map-to-launches for models whose sizes the data
// decides: their host code reads shape values and status words from
// memory the kernels write (the runtime allocates it host-visible), waits
// for the kernels before it does, and hands buffers of run-time sizes to
// kernels as a static view plus their sizes.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_GPU_HOSTACCESS_H
#define MLC_LIB_TARGET_GPU_HOSTACCESS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlc::target {

/// Whether the host code of `func` must read memory that kernels write: it
/// has run-time checks (a status word), outputs it allocates, or buffers
/// whose sizes are only known when it runs.
bool needsHostAccess(mlir::func::FuncOp func);

/// Gives each constant buffer (a `memref.get_global`) that the host code
/// hands on as a value (an If's result, a Loop's initial value) a copy in
/// device memory, made by a `linalg.copy` after it and released before the
/// return: the global itself is host memory (a kernel that names it gets
/// the device image's copy).
void copyHandedOnConstants(mlir::func::FuncOp func);

/// Whether `op`, run by the host, reads or writes model memory (a load, a
/// store, a reshape that reads its shape, a buffer released).
bool touchesModelMemory(mlir::Operation *op);

/// Inserts a `gpu.wait` (the host waits for the kernels started so far)
/// before each op the host runs (in `func`'s body and the branches of its
/// `scf.if`s) that touches model memory while kernels may be running, and
/// before the return when `func` has run-time checks.
void insertHostWaits(mlir::func::FuncOp func);

/// Makes what `launch` captures from the host passable as kernel
/// arguments: a buffer of run-time sizes (identity layout) as a static
/// one-element view of its address plus its sizes, re-made in the kernel;
/// a size read from a buffer as the host's value; an integer narrower than
/// 32 bits widened on the host and narrowed in the kernel.
mlir::LogicalResult passHostValues(mlir::gpu::LaunchOp launch);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_GPU_HOSTACCESS_H
