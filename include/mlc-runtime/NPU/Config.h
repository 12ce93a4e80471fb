//===- Config.h - An NPU described as data ----------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc's NPU is parameterized, as Gemmini and VTA are: a systolic matrix
// unit, a vector unit, a scratchpad and an accumulator memory, DMA
// channels, a clock. A description is a JSON file (docs/NPU.md); two ship
// built in, `edge` (Gemmini's default: 16x16 int8, 256 KiB + 64 KiB) and
// `large` (64x64 int8/bf16, MiBs of memory). The simulator takes its timing
// and its limits from here. (The compiler's `#mlc_npu.config` is still the
// dialect's first sketch, with a subset of these numbers; docs/NPU.md.)
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_NPU_CONFIG_H
#define MLC_RUNTIME_NPU_CONFIG_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlc::npu {

/// Element types of the NPU's memories and units.
enum class ElementType : uint8_t { Int8 = 1, Int32 = 2, BF16 = 3, F16 = 4, F32 = 5 };

/// "int8", "int32", "bf16", "f16", "f32".
std::string_view getElementTypeName(ElementType type);
std::optional<ElementType> parseElementType(std::string_view name);
/// Bytes of one element.
unsigned getElementBytes(ElementType type);

struct NPUConfig {
  std::string name;
  /// Clock in MHz: simulated cycles become time.
  double clockMHz = 1000;
  struct MatrixUnit {
    /// The systolic array: `rows` x `cols` multiply-accumulate cells.
    int64_t rows = 16, cols = 16;
    /// (input, accumulator) pairs it computes: int8 -> int32, bf16 -> f32,
    /// f16 -> f32.
    std::vector<std::pair<ElementType, ElementType>> types;
    /// Weight registers per cell: with 2 (Gemmini's double-buffered
    /// weights), the next weight tile preloads while the current one's rows
    /// stream through; with 1, each preload stalls the array.
    int64_t weightBuffers = 1;
  } matrix;
  struct VectorUnit {
    /// Elements per cycle.
    int64_t width = 16;
    /// "relu", "add", "requantize", "copy", "max_pool", "average_pool".
    std::vector<std::string> ops;
  } vector;
  struct Memory {
    int64_t bytes = 0;
    int64_t banks = 1;
  } scratchpad, accumulator;
  struct DMA {
    /// Channels that move data at once: with one, loads and stores take
    /// turns; with c >= 2, loads own c - c/2 of them and stores c/2, and a
    /// transfer's rows are spread over its queue's channels.
    int64_t channels = 1;
    int64_t bytesPerCycle = 16;
    /// Cycles before the first byte of a transfer arrives.
    int64_t latencyCycles = 100;
  } dma;

  bool supportsMatrix(ElementType input, ElementType accumulator) const;
  bool supportsVector(std::string_view op) const;
};

/// Reads a description from JSON text; `source` names it in errors.
std::optional<NPUConfig> parseNPUConfig(std::string_view json,
                                        const std::string &source,
                                        std::string &error);

/// `config` as JSON text that parseNPUConfig reads back to the same
/// description.
std::string printNPUConfig(const NPUConfig &config);

/// The built-in descriptions, by name: "edge", "large".
std::optional<NPUConfig> getBuiltinNPUConfig(std::string_view name);
std::vector<std::string> getBuiltinNPUConfigNames();

/// `nameOrPath` is a built-in's name or a JSON file's path.
std::optional<NPUConfig> loadNPUConfig(const std::string &nameOrPath,
                                       std::string &error);

} // namespace mlc::npu

#endif // MLC_RUNTIME_NPU_CONFIG_H
