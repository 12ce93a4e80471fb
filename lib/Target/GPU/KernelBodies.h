//===- KernelBodies.h - What a GPU kernel's body reads ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Helpers of mlc-gpu-map-to-launches for building a kernel's body from host
// code: which values a thread re-makes rather than receives (views,
// constants, loads of inputs), and the host code's forms a device cannot
// run (a reshape that reads its shape from memory, a heap buffer).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_GPU_KERNELBODIES_H
#define MLC_LIB_TARGET_GPU_KERNELBODIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlc::target {

/// The buffers no op of `func` writes (its inputs).
llvm::DenseSet<mlir::Value> getReadOnlyBuffers(mlir::func::FuncOp func);

/// Ops a kernel may read through and that are cheaper to redo in each
/// thread than to pass: views, reshapes, constants, index arithmetic, an
/// `if` that picks a buffer, and loads of a buffer nothing writes (a scalar
/// input such as Trilu's k).
bool isClonable(mlir::Operation *op,
                const llvm::DenseSet<mlir::Value> &readOnly);

/// Adds what `op` reads from outside itself to `captured`: its operands and
/// the values its regions use.
void collectCaptured(mlir::Operation *op,
                     llvm::SetVector<mlir::Value> &captured);

/// `value` as the body being built at `b` sees it: the clonable ops that
/// make it from buffers and scalars defined outside are cloned in first
/// (once each, recorded in `mapping`).
mlir::Value cloneIntoBody(mlir::Value value, mlir::IRMapping &mapping,
                          mlir::OpBuilder &b,
                          const llvm::DenseSet<mlir::Value> &readOnly);

/// Rewrites every `memref.reshape` of `func` to a static shape of an
/// identity-layout buffer as a view: as a reshape it would read its shape
/// operand, which is in device memory, on the host.
void reshapesAsViews(mlir::func::FuncOp func);

/// Puts the heap buffers `kernel` allocates (the scratch of what a thread
/// runs alone: a recurrence's step) on the thread's stack.
void scratchOnStack(mlir::Operation *kernel);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_GPU_KERNELBODIES_H
