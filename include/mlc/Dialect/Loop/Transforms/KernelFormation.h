//===- KernelFormation.h - Grouping linalg ops into kernels -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The kernel boundaries of the loop level (mlc-loop-form-kernels) and their
// removal once a target's strategy has scheduled them
// (mlc-loop-dissolve-kernels). Fusion legality is generic; a target narrows
// it through KernelFusionPolicy.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_KERNELFORMATION_H
#define MLC_DIALECT_LOOP_TRANSFORMS_KERNELFORMATION_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <string>

namespace mlc::loop {

/// A target's say in what a kernel may hold. Each hook sees an op the
/// generic rules already found legal and may refuse it.
struct KernelFusionPolicy {
  /// May `consumer` run in `root`'s kernel, on its result?
  std::function<bool(mlir::Operation *consumer, mlir::Operation *root)>
      fuseConsumer;
  /// May `producer` be computed in `root`'s kernel?
  std::function<bool(mlir::Operation *producer, mlir::Operation *root)>
      fuseProducer;
};

/// The line `--print-schedules` writes for a kernel: `"NAME" loops =
/// [ranges] SCHEDULE`, a range known at run time only as `?` (a schedule
/// file's reader skips the ranges).
void printKernelSchedule(llvm::raw_ostream &os, llvm::StringRef name,
                         llvm::ArrayRef<int64_t> ranges,
                         mlir::Attribute schedule);

/// The name of a kernel rooted at an op with location `loc`: its ONNX
/// node's name (the first NameLoc in it), or `?`.
std::string getKernelName(mlir::Location loc);

/// Groups the linalg ops of every block of `func` (outside linalg ops and
/// kernels) into kernels (see the pass description).
void formKernels(mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
                 const KernelFusionPolicy &policy = {});

/// Whether `op` is a fill or elementwise broadcast whose every use, directly
/// or through reshapes and slices, is as a destination: where a kernel's
/// accumulators start (a zero, a bias). Such ops stay outside kernels.
bool isDestinationInitialization(mlir::Operation *op);

/// The op of `kernel` marked as its root, or null.
mlir::Operation *getKernelRoot(KernelOp kernel);

/// Replaces `kernel` by its body; its schedule moves to the root as
/// `mlc_loop.schedule`.
void dissolveKernel(mlir::RewriterBase &rewriter, KernelOp kernel);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_KERNELFORMATION_H
