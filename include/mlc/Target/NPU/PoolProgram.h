//===- PoolProgram.h - Pooling on the NPU -----------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The NPU lowering of a 2-D max or average pooling (ONNX MaxPool and
// GlobalAveragePool, NCHW) on the vector unit: whether the NPU can run it,
// the tile that runs fastest, and the
// double-buffered command stream. Placement asks the same functions, as it
// does for matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_POOLPROGRAM_H
#define MLC_TARGET_NPU_POOLPROGRAM_H

#include "mlc-runtime/NPU/Config.h"
#include "mlc-runtime/NPU/Program.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace mlc::npu {

/// `planes` planes (images times channels) of height x width elements of
/// `type`, packed, pooled into planes of outHeight x outWidth: windows of
/// window[0] x window[1], strides[] apart, starting pads[] before the
/// first row and column, each output the max (or with `average` the mean)
/// of the window's elements inside the plane.
struct PoolShape {
  int64_t planes = 0, height = 0, width = 0, outHeight = 0, outWidth = 0;
  std::array<int64_t, 2> window{1, 1}, strides{1, 1}, pads{0, 0};
  ElementType type = ElementType::F32;
  bool average = false;
};

/// Tiles of `planes` whole planes, `buffers` of each rotating.
struct PoolTiles {
  int64_t planes = 0;
  int64_t buffers = 2;
};

/// The tiles whose program the simulator's timing finds fastest among those
/// whose buffers fit (its cycles in `*cycles` when given), or empty with
/// the reason in `why`.
std::optional<PoolTiles> choosePoolTiles(const NPUConfig &config,
                                         const PoolShape &shape,
                                         std::string &why,
                                         int64_t *cycles = nullptr);

/// The command stream for `shape` in `tiles`, reading the input and writing
/// the output at byte offsets `dram[0..1]`; empty, with the reason in
/// `why`, when the NPU lacks the pooling, a window does not fit a command's
/// fields or the tiles do not fit.
std::optional<Program> buildPoolProgram(const NPUConfig &config,
                                        const PoolShape &shape,
                                        const PoolTiles &tiles,
                                        const std::array<uint64_t, 2> &dram,
                                        std::string &why);

} // namespace mlc::npu

#endif // MLC_TARGET_NPU_POOLPROGRAM_H
