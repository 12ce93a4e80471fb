//===- Program.h - The NPU's command stream ---------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the NPU executes: commands for four in-order queues, as VTA splits
// its work (load, compute, vector, store), synchronized by dependence
// tokens. A command may wait for tokens (each wait takes one signal of that
// token) and signal one when it finishes, so that loads of the next tile
// overlap compute on this one (double buffering). The binary form is
// versioned; docs/NPU.md gives its layout.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_NPU_PROGRAM_H
#define MLC_RUNTIME_NPU_PROGRAM_H

#include "mlc-runtime/NPU/Config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlc::npu {

enum class Opcode : uint8_t {
  /// DRAM -> scratchpad or accumulator: `rows` rows of `cols` elements,
  /// `dramStride` bytes apart in DRAM, packed in local memory.
  Load = 1,
  /// Scratchpad or accumulator -> DRAM, the same shape.
  Store = 2,
  /// Accumulator C[rows x cols] (+)= scratchpad A[rows x depth] *
  /// scratchpad B[depth x cols], all row-major.
  Matmul = 3,
  /// An elementwise op of the vector unit over `rows * cols` elements.
  Vector = 4,
};

/// The memory a local address is in.
enum class Memory : uint8_t { Scratchpad = 0, Accumulator = 1 };

enum class VectorKind : uint8_t {
  Relu = 1,       ///< dst = max(src, 0), in place or not, one memory
  Add = 2,        ///< dst = src + src2, same type
  Requantize = 3, ///< int32 or f32 (accumulator) -> int8 (scratchpad):
                  ///< saturate(round_even(src * scale) + zeroPoint)
  Copy = 4,       ///< dst = src, with conversion between element types
  /// int32 -> int8 with a bias and a scale per column:
  /// saturate(round_even((src[i, j] + bias[j]) * scale[j]) + zeroPoint),
  /// the (int32 bias, f32 scale) pair of column j at `local2` + 8 j in the
  /// scratchpad (a unit with "requantize" has it).
  RequantizeColumns = 5,
  /// The same with max(src[i, j] + bias[j], 0) (and "relu").
  RequantizeColumnsRelu = 6,
  /// int8 -> f32: (src - zeroPoint) * scale, rounded once (a unit with
  /// "requantize" has it).
  Dequantize = 7,
  /// Max pooling of `rows` planes, each `depth` rows of `cols` elements
  /// (packed), into packed planes of `window.outRows` x `window.outCols`:
  /// dst[p, i, j] = the max of src[p, i * window.strideRows + a -
  /// window.padTop, j * window.strideCols + b - window.padLeft] over
  /// a < window.rows, b < window.cols where those are inside the plane
  /// (every window must reach into it). Any element type, kept; exact.
  MaxPool = 8,
  /// The same windows' mean: the f32 sum of their elements inside the
  /// plane, in row-major order, times the reciprocal of their count
  /// rounded to f32 (a unit without a divider). Float types, kept.
  AveragePool = 9,
};

/// A pooling command's window (zero for other commands).
struct Window {
  uint8_t rows = 0, cols = 0;
  uint8_t strideRows = 0, strideCols = 0;
  uint8_t padTop = 0, padLeft = 0;
  uint16_t outRows = 0, outCols = 0;
};

/// The queue a command goes to.
enum class Queue : uint8_t { Load = 0, Compute = 1, Vector = 2, Store = 3 };
constexpr unsigned kNumQueues = 4;
constexpr unsigned kNumTokens = 16;

struct Command {
  Opcode opcode = Opcode::Load;
  /// Load/Store/Vector source: the element type moved or read; Matmul: the
  /// input type (the accumulator type follows from the config's pairs).
  ElementType type = ElementType::Int8;
  /// Vector: the destination's element type.
  ElementType dstType = ElementType::Int8;
  VectorKind vectorOp = VectorKind::Copy;
  /// Load/Store: the local memory; Vector: the source's (dst in dstMemory).
  Memory memory = Memory::Scratchpad;
  Memory dstMemory = Memory::Scratchpad;
  /// Matmul: accumulate into C (else overwrite).
  bool accumulate = false;
  /// Tokens waited for (bit t: one signal of token t) and the token
  /// signalled on completion (-1: none).
  uint16_t waitMask = 0;
  int8_t signal = -1;
  /// Addresses in bytes: DRAM (Load/Store), local operands.
  uint64_t dram = 0;
  uint32_t local = 0;  ///< Load/Store: local; Matmul: A; Vector: src
  uint32_t local2 = 0; ///< Matmul: B; Vector: src2 (Add), column table
  uint32_t local3 = 0; ///< Matmul: C (accumulator); Vector: dst
  uint32_t rows = 0, cols = 0;
  uint32_t depth = 0; ///< Matmul: the depth; pools: rows of each plane
  uint32_t dramStride = 0;
  /// Requantize.
  float scale = 1;
  int32_t zeroPoint = 0;
  /// MaxPool, AveragePool.
  Window window;

  Queue getQueue() const;
};

struct Program {
  std::vector<Command> commands;
};

/// "MLCNPU" + version; the layout of docs/NPU.md.
constexpr uint32_t kProgramVersion = 1;
std::vector<uint8_t> serializeProgram(const Program &program);
std::optional<Program> parseProgram(const uint8_t *data, size_t size,
                                    std::string &error);

} // namespace mlc::npu

#endif // MLC_RUNTIME_NPU_PROGRAM_H
