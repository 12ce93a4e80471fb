//===- ConvolutionAsMatmul.h - A convolution as an NPU matmul ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_CONVOLUTIONASMATMUL_H
#define MLC_LIB_TARGET_NPU_CONVOLUTIONASMATMUL_H

#include "mlc/Target/NPU/MatmulProgram.h"
#include "../QuantizedOperands.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlc::npu {

using mlc::target::buildIm2col;
using mlc::target::buildTransposeBack;
using mlc::target::getFloats;
using mlc::target::isZeroFill;

/// A batch-1 NCHW convolution `out[1, F, OH, OW]` as the matmul
/// `col[OH*OW, C*KH*KW] x filter^T[C*KH*KW, F]`.
struct ConvolutionAsMatmul {
  int64_t pixels = 0, filters = 0, depth = 0;
  /// A constant filter as [C*KH*KW, F], row-major; empty for a filter
  /// that is not a constant.
  llvm::SmallVector<float> transposedFilter;
};

/// The matmul of `conv`, or nothing with the reason in `why`: it must have
/// static shapes, batch 1 and f32 operands.
std::optional<ConvolutionAsMatmul>
getConvolutionAsMatmul(mlir::linalg::Conv2DNchwFchwOp conv, std::string &why);

/// Builds, before `conv`, the im2col gather (a linalg.generic the CPU
/// runs, rounding to bf16), the `mlc_npu.matmul` with `filter` ([C*KH*KW,
/// F] bf16; when null, a transpose of the convolution's filter the CPU
/// runs) and `tiles`, and the transpose back to NCHW, which adds the
/// convolution's init unless it is zero; returns the NCHW result. With
/// `roundResult` the NPU's f32 sums leave it rounded to bf16 and the
/// transpose widens them back.
mlir::Value buildConvolutionAsNPUMatmul(mlir::OpBuilder &b,
                                        mlir::linalg::Conv2DNchwFchwOp conv,
                                        const ConvolutionAsMatmul &plan,
                                        mlir::Value filter, llvm::StringRef npu,
                                        const MatmulTiles &tiles,
                                        bool roundResult);

/// A bf16 tensor of `shape` whose element at each index is `source` (f32)
/// read through `sourceMap` from that index, rounded to nearest even: a
/// linalg.generic the CPU runs (a copy, a transpose, a gather).
mlir::Value buildBF16Gather(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value source, mlir::AffineMap sourceMap,
                            llvm::ArrayRef<int64_t> shape);

/// `value` (an f32 tensor) rounded to bf16 by a linalg.generic the CPU
/// runs, to nearest even as the NPU's own conversion: the NPU then loads
/// half the bytes and converts nothing.
mlir::Value buildBF16Copy(mlir::OpBuilder &b, mlir::Value value);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_CONVOLUTIONASMATMUL_H
