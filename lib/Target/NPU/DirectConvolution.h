//===- DirectConvolution.h - Convolutions as shifted matmuls ----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A stride-1 convolution without im2col. Its padded input [1, C, Hp, Wp],
// channels last, is a matrix of pixel rows X[Hp * Wp (+ KW - 1 zero rows),
// C]. Computing every output column of the padded width, the "wide" result
// Y[OH * Wp, F] is the sum over the filter's taps (kh, kw) of
//
//   Y[i, f] += X[i + kh * Wp + kw, c] * W[f, c, kh, kw]
//
// a matmul of X's rows shifted by the tap: the NPU loads a row block of X
// once and each tap's matrix command reads it at an offset, where im2col
// would load each input value KH * KW times. The first OW of every Wp rows
// of Y are the output; the others (KW - 1 a row) are computed and dropped.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_DIRECTCONVOLUTION_H
#define MLC_LIB_TARGET_NPU_DIRECTCONVOLUTION_H

#include "mlc/Target/NPU/MatmulProgram.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlc::npu {

struct DirectConvolution {
  int64_t channels = 0, filters = 0, kernelH = 0, kernelW = 0;
  /// The padded input's and the output's height and width.
  int64_t paddedH = 0, paddedW = 0, outH = 0, outW = 0;
  /// The filter as [KH * KW * C, F] (tap-major), rounded to bf16 later.
  llvm::SmallVector<float> weights;

  /// The matmul the NPU computes: M = OH * Wp wide rows, K = taps * C,
  /// N = F, one row shift per tap; bf16 operands, f32 sums rounded to
  /// bf16.
  MatmulShape getShape() const;
};

/// `conv` as a direct convolution, or nothing with the reason in `why`: it
/// must have static shapes, batch 1, f32 operands, a constant filter of
/// more than one tap, strides and dilations of 1.
std::optional<DirectConvolution>
getDirectConvolution(mlir::linalg::Conv2DNchwFchwOp conv, std::string &why);

/// Builds, before `conv`, the channels-last copy of its input (a
/// linalg.generic the CPU runs, rounding to bf16), the `mlc_npu.matmul`
/// with `plan`'s taps in `tiles`, and the NCHW result read from the wide
/// rows, which adds the convolution's init unless it is zero.
mlir::Value buildDirectNPUConvolution(mlir::OpBuilder &b,
                                      mlir::linalg::Conv2DNchwFchwOp conv,
                                      const DirectConvolution &plan,
                                      llvm::StringRef npu,
                                      const MatmulTiles &tiles);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_DIRECTCONVOLUTION_H
