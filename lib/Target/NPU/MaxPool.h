//===- MaxPool.h - Max pooling on the NPU -----------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A 2-D max pooling as ONNX MaxPool lowers to the loop level (a
// linalg.pooling_nchw_max of the input padded with -inf, into a fill of
// -inf), matched for the NPU's vector unit, which reads the input unpadded
// and skips what the padding would have held.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_MAXPOOL_H
#define MLC_LIB_TARGET_NPU_MAXPOOL_H

#include "mlc/Target/NPU/MaxPoolProgram.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlc::npu {

/// A max pooling the NPU's stream can compute.
struct MaxPool {
  /// The input before its padding.
  mlir::Value input;
  MaxPoolShape shape;
};

/// The max pooling `op` is, or nothing with the reason in `why`: static
/// float NCHW pooling without dilations, its input unpadded or padded with
/// -inf on the spatial dims, its init a fill of -inf, and every window
/// reaching into the input.
std::optional<MaxPool> matchMaxPool(mlir::linalg::PoolingNchwMaxOp op,
                                    std::string &why);

/// `pool` on the NPU `npu` in `tiles`: the value that replaces `op`'s
/// result.
mlir::Value buildNPUMaxPool(mlir::OpBuilder &b,
                            mlir::linalg::PoolingNchwMaxOp op,
                            const MaxPool &pool, llvm::StringRef npu,
                            const MaxPoolTiles &tiles);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_MAXPOOL_H
