//===- QuantizedAdd.h - QDQ residual adds on the NPU ------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The add of two dequantized 8-bit tensors whose sum is only requantized
// (an optional relu or clip the int8 range saturates, then a
// QuantizeLinear), as ONNX Runtime's quantizer writes a residual Add,
// matched for the NPU's vector unit:
//
//   q = saturate(round_even(r(sa (qa - za) + sb (qb - zb)) / so) + zo)
//
// computed in f32 as written, the division a multiplication by 1 / so
// (which can move a value exactly halfway between two steps by one step).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_QUANTIZEDADD_H
#define MLC_LIB_TARGET_NPU_QUANTIZEDADD_H

#include "Requantization.h"

#include "mlc/Target/NPU/QuantizedAddProgram.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlc::npu {

/// A residual add of dequantized integers, requantized.
struct QuantizedAdd {
  /// The 8-bit operands as they are (before uint8 is shifted into int8).
  mlir::Value lhs, rhs;
  bool lhsUnsigned = false, rhsUnsigned = false;
  /// The stream's parameters, zero points shifted into int8.
  QuantizedAddShape shape;
  /// What follows the add; its last op's result is what the NPU's replaces.
  Requantization requantization;
};

/// The quantized add `op` is, or nothing with the reason in `why`: a
/// static elementwise f32 add of two per-tensor DequantizeLinears of 8-bit
/// tensors of its shape, followed only by a relu or clip and a
/// QuantizeLinear (matchRequantization, without a bias).
std::optional<QuantizedAdd> matchQuantizedAdd(mlir::linalg::GenericOp op,
                                              std::string &why);

/// `q` on the NPU `npu` in `tiles`: the value that replaces the
/// QuantizeLinear's result.
mlir::Value buildQuantizedNPUAdd(mlir::OpBuilder &b, mlir::Location loc,
                                 const QuantizedAdd &q, llvm::StringRef npu,
                                 const QuantizedAddTiles &tiles);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_QUANTIZEDADD_H
