//===- QuantizedAddProgram.h - An int8 add on the NPU -----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The NPU lowering of a quantized elementwise add, the residual add of a
// QDQ model (DequantizeLinear on both operands, Add, an optional Relu,
// QuantizeLinear), on the vector unit alone: whether the NPU can run it,
// the tile that runs fastest, and the double-buffered command stream.
// Placement asks the same functions, as it does for matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_QUANTIZEDADDPROGRAM_H
#define MLC_TARGET_NPU_QUANTIZEDADDPROGRAM_H

#include "mlc-runtime/NPU/Config.h"
#include "mlc-runtime/NPU/Program.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace mlc::npu {

/// out[i] = saturate(round_even(r(a' + b') * resultScale) + zeroPoint), int8,
/// with a' = (lhs[i] - lhsZeroPoint) * lhsScale and b' likewise in f32,
/// r a relu when `relu`; lhs, rhs and out int8 arrays of `elements` in
/// DRAM. `resultScale` multiplies: it is 1 / the QuantizeLinear's scale.
struct QuantizedAddShape {
  int64_t elements = 0;
  float lhsScale = 1, rhsScale = 1, resultScale = 1;
  int32_t lhsZeroPoint = 0, rhsZeroPoint = 0, zeroPoint = 0;
  bool relu = false;
};

/// Tiles of `elements` each, `buffers` of each int8 tile rotating.
struct QuantizedAddTiles {
  int64_t elements = 0;
  int64_t buffers = 2;
};

/// The tiles whose program the simulator's timing finds fastest among those
/// whose buffers fit (its cycles in `*cycles` when given), or empty with
/// the reason in `why`.
std::optional<QuantizedAddTiles>
chooseQuantizedAddTiles(const NPUConfig &config, const QuantizedAddShape &shape,
                        std::string &why, int64_t *cycles = nullptr);

/// The command stream for `shape` in `tiles`, reading lhs and rhs and
/// writing out at byte offsets `dram[0..2]`; empty, with the reason in
/// `why`, when the NPU lacks a vector op it needs or the tiles do not fit.
std::optional<Program>
buildQuantizedAddProgram(const NPUConfig &config,
                         const QuantizedAddShape &shape,
                         const QuantizedAddTiles &tiles,
                         const std::array<uint64_t, 3> &dram, std::string &why);

} // namespace mlc::npu

#endif // MLC_TARGET_NPU_QUANTIZEDADDPROGRAM_H
