//===- MatmulProgram.h - A matmul as an NPU command stream ------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The NPU lowering of one matmul, in plain C++ over the runtime's NPU
// structures: whether the NPU can run it, the output tiles that fit its
// memories, and the double-buffered command stream. Placement asks the same
// functions in analysis mode (legality and cycles), so that what it claims
// is what the lowering builds.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_MATMULPROGRAM_H
#define MLC_TARGET_NPU_MATMULPROGRAM_H

#include "mlc-runtime/NPU/Config.h"
#include "mlc-runtime/NPU/Program.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlc::npu {

/// `out[M, N] (+)= lhs[M, K] * rhs[K, N]`, row-major, in DRAM; or `batch`
/// of them one after the other (`lhs[batch, M, K]` and so on).
struct MatmulShape {
  int64_t m = 0, n = 0, k = 0;
  ElementType lhs = ElementType::F32, rhs = ElementType::F32;
  ElementType out = ElementType::F32;
  /// Add to `out`'s values (else overwrite them).
  bool accumulate = false;
  int64_t batch = 1;
  /// An int8 matmul whose result leaves the NPU requantized to int8 by its
  /// vector unit: a column table at DRAM address 3 holds, per column, an
  /// int32 bias and an f32 scale, and out = saturate(round_even(r(sum +
  /// bias) * scale) + zeroPoint) in int8, r a relu when `relu`.
  bool requantize = false;
  bool relu = false;
  int32_t zeroPoint = 0;
  /// A float matmul whose f32 sums leave the NPU rounded to bf16 (to
  /// nearest even) by its vector unit: half the bytes to store.
  bool roundResult = false;
  /// Taps of a direct convolution (empty for a plain matmul): out[i, j] =
  /// sum over taps t and c < K / T of lhs[i + rowShifts[t], c] *
  /// rhs[t * K / T + c, j], lhs having M + max(rowShifts) rows of K / T.
  /// A row block of lhs is loaded once and each tap's matrix command reads
  /// it shifted.
  std::vector<int64_t> rowShifts = {};

  /// The taps (1 for a plain matmul) and the lhs's rows and columns.
  int64_t getTaps() const {
    return rowShifts.empty() ? 1 : int64_t(rowShifts.size());
  }
  int64_t getMaxShift() const {
    return rowShifts.empty()
               ? 0
               : *std::max_element(rowShifts.begin(), rowShifts.end());
  }
  int64_t getLhsRows() const { return m + getMaxShift(); }
  int64_t getLhsCols() const { return k / getTaps(); }

  /// The element type of `out` in DRAM.
  ElementType getResultType() const {
    return requantize    ? ElementType::Int8
           : roundResult ? ElementType::BF16
                         : out;
  }
};

/// Output tiles: `rows` x `cols` of `out`, computed by matrix-unit commands
/// of `depth` of K each (0: the whole of K at once) summed in the
/// accumulator, and how many buffers of each operand and of the
/// accumulator rotate (2: double buffering).
struct MatmulTiles {
  int64_t rows = 0, cols = 0;
  int64_t buffers = 2;
  int64_t depth = 0;

  int64_t getDepth(const MatmulShape &shape) const {
    return depth > 0 && depth < shape.k ? depth : shape.k;
  }
};

/// The matrix unit's input type for `shape` on `config`: the operands'
/// own (int8 -> int32, bf16/f16 -> f32), or bf16 for f32 operands (converted
/// on the vector unit, to nearest even). Empty, with the reason in `why`,
/// when the NPU cannot compute it.
std::optional<ElementType> getMatmulInputType(const NPUConfig &config,
                                              const MatmulShape &shape,
                                              std::string &why);

/// The tiles whose program the simulator's timing finds fastest among
/// those whose buffers fit the scratchpad and the accumulator (its cycles
/// in `*cycles` when given), or empty with the reason in `why`.
std::optional<MatmulTiles> chooseMatmulTiles(const NPUConfig &config,
                                             const MatmulShape &shape,
                                             std::string &why,
                                             int64_t *cycles = nullptr);

/// The command stream for `shape` in `tiles`, reading lhs, rhs (and out
/// when accumulating) and writing out at byte offsets `dram[0..2]` of the
/// NPU's DRAM (a requantizing one also reads its column table at
/// `dram[3]`). Empty, with the reason in `why`, when the tiles do not fit
/// or a field overflows its command.
std::optional<Program> buildMatmulProgram(const NPUConfig &config,
                                          const MatmulShape &shape,
                                          const MatmulTiles &tiles,
                                          const std::array<uint64_t, 4> &dram,
                                          std::string &why);

/// Whether every command of `program` is one `config` can execute (else
/// the first that is not, and why, in `why`).
bool checkProgram(const NPUConfig &config, const Program &program,
                  std::string &why);

/// The cycles the simulator takes to run `program` (its timing alone,
/// without data), or -1 when it refuses the program.
int64_t getProgramCycles(const NPUConfig &config, const Program &program);

/// The candidate tiles of `sizes` (in one, two or three buffer sets of
/// each) whose program `build(tiles)` makes and the simulator runs fastest,
/// the first on a tie (its cycles in `*cycles` when given); empty when
/// `build` makes none.
template <typename Tiles, typename Build>
std::optional<Tiles> chooseFastestTiles(const NPUConfig &config,
                                        const std::vector<int64_t> &sizes,
                                        Build build, int64_t *cycles) {
  std::optional<Tiles> best;
  int64_t bestCycles = 0;
  for (int64_t buffers : {2, 3})
    for (int64_t size : sizes) {
      Tiles tiles{size, buffers};
      std::optional<Program> program = build(tiles);
      int64_t c = program ? getProgramCycles(config, *program) : -1;
      if (c > 0 && (!best || c < bestCycles)) {
        best = tiles;
        bestCycles = c;
      }
    }
  if (best && cycles)
    *cycles = bestCycles;
  return best;
}

} // namespace mlc::npu

#endif // MLC_TARGET_NPU_MATMULPROGRAM_H
