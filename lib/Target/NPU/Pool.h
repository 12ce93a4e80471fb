//===- Pool.h - Pooling on the NPU ------------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// 2-D poolings as ONNX MaxPool, AveragePool and GlobalAveragePool lower to
// the loop level, matched for the NPU's vector unit: a
// linalg.pooling_nchw_max of the input padded with -inf into a fill of -inf
// (the NPU reads the input unpadded and skips what the padding would have
// held), a sum pooling of the input padded with 0 divided by the count of
// the input's elements in each window, and the sum over each plane into a
// fill of 0 times the constant 1 / (H x W) (the mean of a window of the
// whole plane).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_POOL_H
#define MLC_LIB_TARGET_NPU_POOL_H

#include "mlc/Target/NPU/PoolProgram.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlc::npu {

/// A pooling the NPU's stream can compute.
struct Pool {
  /// The input before its padding.
  mlir::Value input;
  PoolShape shape;
  /// The op whose result the NPU's replaces, and what else computed it
  /// (erased when nothing else reads it).
  mlir::Operation *root = nullptr;
  llvm::SmallVector<mlir::Operation *> producers;
};

/// The max pooling `op` is, or nothing with the reason in `why`: static
/// float NCHW pooling without dilations, its input unpadded or padded with
/// -inf on the spatial dims, its init a fill of -inf, and every window
/// reaching into the input.
std::optional<Pool> matchMaxPool(mlir::linalg::PoolingNchwMaxOp op,
                                 std::string &why);

/// The global average pooling `op` finishes, or nothing with the reason in
/// `why`: an elementwise product with the f32 constant 1 / (H x W) of the
/// sum of a static float NCHW tensor over its H x W into a fill of 0.
std::optional<Pool> matchGlobalAveragePool(mlir::linalg::GenericOp op,
                                           std::string &why);

/// The average pooling `op` finishes, or nothing with the reason in `why`:
/// the quotient of a sum pooling of a static float NCHW input (unpadded,
/// or padded with 0 on its rows and columns) and the count of the input's
/// elements in each window (a sum pooling of ones padded likewise, or the
/// window's size where the input is not padded), as ONNX AveragePool
/// without count_include_pad lowers.
std::optional<Pool> matchAveragePool(mlir::linalg::GenericOp op,
                                     std::string &why);

/// `pool` on the NPU `npu` in `tiles` in place of its root, which it erases
/// with the producers nothing else reads.
void replaceWithNPUPool(mlir::OpBuilder &b, const Pool &pool,
                        llvm::StringRef npu, const PoolTiles &tiles);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_POOL_H
