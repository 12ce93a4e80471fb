//===- Requantization.h - Quantized results leaving the NPU -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A dequantized convolution or matmul whose float result goes only through
// a bias add, a relu or clip and a QuantizeLinear, as ONNX Runtime's
// quantizer writes Conv/Gemm -> (bias) -> Relu/Clip -> QuantizeLinear, can
// leave the NPU as int8: with y = sa sw[f] (acc + b[f] / (sa sw[f])),
//
//   q = saturate(round_even(y / so) + zo)
//     = saturate(round_even((acc + round(b[f] / (sa sw[f]))) * sa sw[f] / so)
//                + zo)
//
// the bias joins the int32 sums' starting row, a relu is one on the sums (the
// scales are positive), and the vector unit scales each column. A clip's
// bounds must be ones the int8 range already saturates (a Clip(0, 6) before
// a QuantizeLinear whose range ends at or below 6), so that saturation does
// the clipping. The result differs from the float evaluation only where
// the bias's rounding moves a value across a rounding boundary.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_REQUANTIZATION_H
#define MLC_LIB_TARGET_NPU_REQUANTIZATION_H

#include "QuantizedMatmul.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlc::npu {

/// The ops after a float result that the NPU can do on its integers.
struct Requantization {
  /// The bias per channel (empty: none).
  llvm::SmallVector<float> bias;
  /// A relu on the sums.
  bool relu = false;
  /// The QuantizeLinear: one scale and zero point, its integer type.
  float scale = 1;
  int64_t zeroPoint = 0;
  bool isUnsigned = false;
  /// The bias, clip and quantize generics, in order; the last one's result
  /// is what the NPU's int8 result replaces.
  llvm::SmallVector<mlir::linalg::GenericOp> ops;
};

/// The requantization after `result` (a convolution's NCHW result or a
/// matmul's [M, N]: its channels or columns on dim 1), or nothing with the
/// reason in `why`.
std::optional<Requantization> matchRequantization(mlir::Value result,
                                                  std::string &why);

/// The stream's parameters for `r` after the integer product of `q`: each
/// column's int32 bias (the zero point's share and the bias) and scale,
/// and the int8 zero point; `p.shape` (the product's) gains them. False,
/// with the reason in `why`, when a bias does not fit int32.
bool getRequantizedShape(const QuantizedOperands &q, const Requantization &r,
                         RequantizedProduct &p, std::string &why);

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_REQUANTIZATION_H
