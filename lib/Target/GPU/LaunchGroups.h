//===- LaunchGroups.h - Loop nests one GPU launch runs together -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// When every thread of a launch owns one element of a root's result, the
// op that fills the root's accumulator and the elementwise ops that consume
// the result can run in the same thread, on the same element: one launch
// instead of three, and the result read back from registers, not memory.
// The kernels phase grouped them into one kernel; bufferization split them
// into separate loop nests again; these checks say when joining them is
// exact.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_GPU_LAUNCHGROUPS_H
#define MLC_LIB_TARGET_GPU_LAUNCHGROUPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlc::target {

/// The loop nests of one launch, in the order each thread runs them.
struct LaunchGroup {
  /// Writes the root's accumulator before the root reads it; may be null.
  mlir::linalg::LinalgOp init;
  mlir::linalg::LinalgOp root;
  /// Elementwise ops on the root's result, each on the previous one's.
  llvm::SmallVector<mlir::linalg::LinalgOp> epilogues;
};

/// Whether each thread of `root` can own one element of its result: one
/// result, written through the identity of its parallel loops (in order).
bool ownsResultElements(mlir::linalg::LinalgOp root);

/// Whether `init`, which runs just before `root` (a reduction), can run in
/// `root`'s threads: an all-parallel op over the result's shape that writes
/// exactly the buffer `root` accumulates into, through the identity.
bool canStartAccumulator(mlir::linalg::LinalgOp init,
                         mlir::linalg::LinalgOp root);

/// Whether `op`, which runs just after `group`, can run in its threads: an
/// all-parallel op over the root's result shape that reads the group's last
/// result through the identity and nothing a member writes otherwise, and
/// whose result overlaps nothing the group reads (a thread writes it while
/// others may still read).
bool canRunAfter(mlir::linalg::LinalgOp op, const LaunchGroup &group);

/// Whether `op` and `other`, two loop nests on buffers, can run in either
/// order: neither writes what the other reads or writes.
bool canSwap(mlir::linalg::LinalgOp op, mlir::linalg::LinalgOp other);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_GPU_LAUNCHGROUPS_H
