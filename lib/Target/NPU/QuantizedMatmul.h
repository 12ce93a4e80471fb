//===- QuantizedMatmul.h - QDQ matmuls as int8 NPU matmuls ------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A matmul of two dequantized operands (QuantizeLinear/DequantizeLinear
// pairs, as ONNX Runtime's quantizer writes them) computed in integers:
//
//   (sa (qa - za)) x (sw qw) = sa sw (sum (qa' - za') qw)
//
// where a uint8 activation is shifted into int8 (qa' = qa - 128, za' = za -
// 128) and the zero point's share, -za' * colsum(qw), is a constant per
// column. The matrix unit's int32 sums are exact; the CPU adds the share
// and scales them back with one f32 multiply per element (or the NPU's
// vector unit requantizes them, Requantization.h).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_QUANTIZEDMATMUL_H
#define MLC_LIB_TARGET_NPU_QUANTIZEDMATMUL_H

#include "mlc/Target/NPU/MatmulProgram.h"
#include "../QuantizedOperands.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlc::npu {

using mlc::target::castTo;
using mlc::target::getIntegers;
using mlc::target::matchQuantizedConvolution;
using mlc::target::matchQuantizedMatmul;
using mlc::target::QuantizedConvolution;
using mlc::target::QuantizedMatmul;
using mlc::target::QuantizedOperands;

/// The zero point once uint8 values are shifted into int8.
int64_t getShiftedZero(bool isUnsigned, int64_t zero);

/// `integers` (8-bit) as int8: uint8 values shifted by -128 (their top bit
/// flipped).
mlir::Value shiftToInt8(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value integers, bool isUnsigned);

/// `product` (int8, read through `map`) as `resultType` (uint8 or int8, a
/// QuantizeLinear's): uint8 values shifted back (their top bit flipped).
mlir::Value buildQuantizedResult(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value product, mlir::AffineMap map,
                                 mlir::RankedTensorType resultType);

/// The matrix unit's view of it: int8 x int8 -> int32 sums (the zero
/// point's share is added after).
MatmulShape getShape(const QuantizedMatmul &q);

/// Builds, before `op`, the shift of the activations to int8, the
/// `mlc_npu.matmul` in `tiles` and the scaling back to f32; returns the f32
/// result that replaces `op`'s.
mlir::Value buildQuantizedNPUMatmul(mlir::OpBuilder &b,
                                    mlir::linalg::MatmulOp op,
                                    const QuantizedMatmul &q,
                                    llvm::StringRef npu,
                                    const MatmulTiles &tiles);

MatmulShape getShape(const QuantizedConvolution &q);

/// Builds, before `conv`, the shift of the activations to int8 and their
/// pad with the shifted zero point, the int8 im2col matrix, the
/// `mlc_npu.matmul` in `tiles` and the transpose back to NCHW, scaled to
/// f32 (plus the convolution's bias init); returns the NCHW result.
mlir::Value buildQuantizedNPUConvolution(mlir::OpBuilder &b,
                                         mlir::linalg::Conv2DNchwFchwOp conv,
                                         const QuantizedConvolution &q,
                                         llvm::StringRef npu,
                                         const MatmulTiles &tiles);

/// An integer product requantized on the NPU (`getRequantizedShape`): the
/// stream's shape, each column's int32 bias (the zero point's share and the
/// bias) and scale, and the QuantizeLinear's result type it replaces.
struct RequantizedProduct {
  MatmulShape shape;
  llvm::SmallVector<int32_t> biasRow;
  llvm::SmallVector<float> scales;
  mlir::RankedTensorType resultType;
};

/// Builds, before `conv`, its integer product on the NPU requantized there
/// as `p` says, and its NCHW result of `p.resultType` (uint8 or int8) on
/// the CPU; returns it.
mlir::Value buildRequantizedNPUConvolution(mlir::OpBuilder &b,
                                           mlir::linalg::Conv2DNchwFchwOp conv,
                                           const QuantizedConvolution &q,
                                           const RequantizedProduct &p,
                                           llvm::StringRef npu,
                                           const MatmulTiles &tiles);

/// The same for a matmul [M, N]: its result [M, N] of `p.resultType`.
mlir::Value buildRequantizedNPUMatmul(mlir::OpBuilder &b,
                                      mlir::linalg::MatmulOp op,
                                      const QuantizedMatmul &q,
                                      const RequantizedProduct &p,
                                      llvm::StringRef npu,
                                      const MatmulTiles &tiles);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_QUANTIZEDMATMUL_H
