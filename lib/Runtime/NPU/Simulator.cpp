//===- Simulator.cpp - Run an NPU program and count its cycles ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/Simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>

using namespace mlc::npu;

namespace {
//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  if (exponent == 0x1f)
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal (or zero): mantissa * 2^-24.
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t floatToHalf(float f) {
  uint32_t bits = floatToBits(f);
  uint16_t sign = (bits >> 16) & 0x8000;
  if (std::isnan(f))
    return sign | 0x7e00;
  float magnitude = std::fabs(f);
  if (magnitude >= 65520.0f) // rounds to infinity
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0f, -14)) {
    // Subnormal: units of 2^-24, rounded to nearest even.
    float units = std::nearbyint(magnitude * std::ldexp(1.0f, 24));
    return sign | uint16_t(units);
  }
  int exponent;
  float fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  // 11 significant bits, rounded to nearest even.
  float significand = std::nearbyint(std::ldexp(fraction, 11));
  if (significand >= 2048) {
    significand /= 2;
    ++exponent;
  }
  uint16_t e = uint16_t(exponent - 1 + 15);
  return sign | uint16_t(e << 10) | (uint16_t(significand) & 0x3ff);
}

uint16_t floatToBF16(float f) { return mlc::npu::roundToBF16(f); }

/// Reads element `i` of `type` at `base` as a double (exact for every type
/// the NPU has).
double readElement(const uint8_t *base, ElementType type, uint64_t i) {
  switch (type) {
  case ElementType::Int8:
    return double(int8_t(base[i]));
  case ElementType::Int32: {
    int32_t v;
    std::memcpy(&v, base + 4 * i, 4);
    return double(v);
  }
  case ElementType::F32: {
    float v;
    std::memcpy(&v, base + 4 * i, 4);
    return double(v);
  }
  case ElementType::BF16: {
    uint16_t v;
    std::memcpy(&v, base + 2 * i, 2);
    return double(bitsToFloat(uint32_t(v) << 16));
  }
  case ElementType::F16: {
    uint16_t v;
    std::memcpy(&v, base + 2 * i, 2);
    return double(halfToFloat(v));
  }
  }
  return 0;
}

/// Writes `value` as element `i` of `type`: integers saturate, floats round
/// to nearest even.
void writeElement(uint8_t *base, ElementType type, uint64_t i, double value) {
  switch (type) {
  case ElementType::Int8: {
    double r = std::nearbyint(std::isnan(value) ? 0 : value);
    base[i] = uint8_t(int8_t(std::clamp(r, -128.0, 127.0)));
    return;
  }
  case ElementType::Int32: {
    double r = std::nearbyint(std::isnan(value) ? 0 : value);
    int32_t v = int32_t(std::clamp(r, -2147483648.0, 2147483647.0));
    std::memcpy(base + 4 * i, &v, 4);
    return;
  }
  case ElementType::F32: {
    float v = float(value);
    std::memcpy(base + 4 * i, &v, 4);
    return;
  }
  case ElementType::BF16: {
    uint16_t v = floatToBF16(float(value));
    std::memcpy(base + 2 * i, &v, 2);
    return;
  }
  case ElementType::F16: {
    uint16_t v = floatToHalf(float(value));
    std::memcpy(base + 2 * i, &v, 2);
    return;
  }
  }
}

ElementType getAccumulatorType(ElementType input) {
  return input == ElementType::Int8 ? ElementType::Int32 : ElementType::F32;
}

std::string_view getQueueName(Queue queue) {
  static const char *const kNames[] = {"load", "compute", "vector", "store"};
  return kNames[unsigned(queue)];
}

std::string_view getMemoryName(Memory memory) {
  return memory == Memory::Scratchpad ? "scratchpad" : "accumulator";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// The operands of a command
//===----------------------------------------------------------------------===//

/// A byte range one command reads or writes.
struct Access {
  int space; ///< 0 scratchpad, 1 accumulator, 2 DRAM
  uint64_t begin, end;
  bool write;
};

/// Where a run stands: memories and the in-flight accesses.
struct Machine {
  const NPUConfig &config;
  uint8_t *memories[3];
  uint64_t sizes[3];
};

/// `rows * cols * bytes` without overflow, or 0 when it overflows.
uint64_t getTileBytes(uint64_t rows, uint64_t cols, uint64_t bytes) {
  uint64_t n;
  if (__builtin_mul_overflow(rows, cols, &n) ||
      __builtin_mul_overflow(n, bytes, &n))
    return 0;
  return n;
}

bool isFloat(ElementType type) {
  return type == ElementType::F32 || type == ElementType::BF16 ||
         type == ElementType::F16;
}

/// Why a pooling command's window is not one it can run ("" when it is):
/// each window must reach into its plane, so that no output is empty.
std::string checkWindow(const Command &c) {
  const Window &w = c.window;
  if (c.type != c.dstType)
    return "pooling keeps the element type";
  if (w.rows == 0 || w.cols == 0 || w.strideRows == 0 || w.strideCols == 0 ||
      w.outRows == 0 || w.outCols == 0 || c.depth == 0)
    return "pooling needs a window, steps, input rows and output planes";
  // The first and the last window along each axis.
  auto reaches = [](int64_t out, int64_t stride, int64_t pad, int64_t size,
                    int64_t extent) {
    return pad < size && (out - 1) * stride - pad < extent;
  };
  if (!reaches(w.outRows, w.strideRows, w.padTop, w.rows, c.depth) ||
      !reaches(w.outCols, w.strideCols, w.padLeft, w.cols, c.cols))
    return "a pooling window of " + std::to_string(w.rows) + "x" +
           std::to_string(w.cols) + " lies outside the " +
           std::to_string(c.depth) + "x" + std::to_string(c.cols) + " plane";
  return "";
}

/// Checks a command's operands against the config and the memories and
/// lists what it reads and writes; an empty string when it is valid.
std::string getAccesses(const Command &c, const Machine &m,
                        std::vector<Access> &accesses) {
  const NPUConfig &config = m.config;
  auto within = [&](Memory memory, uint64_t offset, uint64_t bytes,
                    const char *what, bool write) -> std::string {
    int space = int(memory);
    if (bytes == 0 || offset > m.sizes[space] ||
        bytes > m.sizes[space] - offset)
      return std::string(what) + " [" + std::to_string(offset) + ", +" +
             std::to_string(bytes) + ") is outside the " +
             std::string(getMemoryName(memory)) + " (" +
             std::to_string(m.sizes[space]) + " bytes)";
    accesses.push_back({space, offset, offset + bytes, write});
    return "";
  };
  if (c.rows == 0 || c.cols == 0)
    return "a tile of " + std::to_string(c.rows) + "x" +
           std::to_string(c.cols) + " elements";
  unsigned bytes = getElementBytes(c.type);
  switch (c.opcode) {
  case Opcode::Load:
  case Opcode::Store: {
    uint64_t rowBytes = uint64_t(c.cols) * bytes;
    uint64_t tile = getTileBytes(c.rows, c.cols, bytes);
    if (c.dramStride < rowBytes)
      return "DRAM rows " + std::to_string(c.dramStride) +
             " bytes apart overlap rows of " + std::to_string(rowBytes) +
             " bytes";
    if (c.memory == Memory::Accumulator && bytes != 4)
      return "the accumulator holds int32 or f32, not " +
             std::string(getElementTypeName(c.type));
    uint64_t span;
    if (__builtin_mul_overflow(uint64_t(c.rows - 1), uint64_t(c.dramStride),
                               &span) ||
        __builtin_add_overflow(span, rowBytes, &span) ||
        c.dram > m.sizes[2] || span > m.sizes[2] - c.dram)
      return "DRAM [" + std::to_string(c.dram) + ", +" + std::to_string(span) +
             ") is outside the " + std::to_string(m.sizes[2]) +
             " bytes given";
    bool load = c.opcode == Opcode::Load;
    for (uint32_t r = 0; r < c.rows; ++r)
      accesses.push_back({2, c.dram + uint64_t(r) * c.dramStride,
                          c.dram + uint64_t(r) * c.dramStride + rowBytes,
                          !load});
    return within(c.memory, c.local, tile, load ? "destination" : "source",
                  load);
  }
  case Opcode::Matmul: {
    ElementType acc = getAccumulatorType(c.type);
    if (!config.supportsMatrix(c.type, acc))
      return "the matrix unit of '" + config.name + "' has no " +
             std::string(getElementTypeName(c.type)) + " -> " +
             std::string(getElementTypeName(acc));
    if (c.depth == 0)
      return "a matmul of depth 0";
    std::string e = within(Memory::Scratchpad, c.local,
                           getTileBytes(c.rows, c.depth, bytes), "A", false);
    if (e.empty())
      e = within(Memory::Scratchpad, c.local2,
                 getTileBytes(c.depth, c.cols, bytes), "B", false);
    if (e.empty())
      e = within(Memory::Accumulator, c.local3,
                 getTileBytes(c.rows, c.cols, 4), "C", true);
    if (e.empty() && c.accumulate)
      accesses.push_back({1, accesses.back().begin, accesses.back().end,
                          false});
    return e;
  }
  case Opcode::Vector: {
    static const char *const kOps[] = {
        "",           "relu",       "add",        "requantize", "copy",
        "requantize", "requantize", "requantize", "max_pool",   "average_pool"};
    const char *op = kOps[unsigned(c.vectorOp)];
    if (!config.supportsVector(op))
      return std::string("the vector unit of '") + config.name +
             "' has no " + op;
    if (c.vectorOp == VectorKind::RequantizeColumnsRelu &&
        !config.supportsVector("relu"))
      return std::string("the vector unit of '") + config.name +
             "' has no relu";
    bool columns = c.vectorOp == VectorKind::RequantizeColumns ||
                   c.vectorOp == VectorKind::RequantizeColumnsRelu;
    if (columns &&
        (c.type != ElementType::Int32 || c.dstType != ElementType::Int8))
      return "requantize_columns goes from int32 to int8";
    if (c.vectorOp == VectorKind::Requantize &&
        ((c.type != ElementType::Int32 && c.type != ElementType::F32) ||
         c.dstType != ElementType::Int8))
      return "requantize goes from int32 or f32 to int8";
    if (c.vectorOp == VectorKind::Dequantize &&
        (c.type != ElementType::Int8 || c.dstType != ElementType::F32))
      return "dequantize goes from int8 to f32";
    if ((c.vectorOp == VectorKind::Relu || c.vectorOp == VectorKind::Add) &&
        c.type != c.dstType)
      return std::string(op) + " keeps the element type";
    bool pool = c.vectorOp == VectorKind::MaxPool ||
                c.vectorOp == VectorKind::AveragePool;
    if (pool) {
      std::string problem = checkWindow(c);
      if (!problem.empty())
        return problem;
    }
    if (c.vectorOp == VectorKind::AveragePool && !isFloat(c.type))
      return "average_pool takes floats";
    if ((c.memory == Memory::Accumulator && bytes != 4) ||
        (c.dstMemory == Memory::Accumulator &&
         getElementBytes(c.dstType) != 4))
      return "the accumulator holds int32 or f32";
    if (pool) {
      const Window &w = c.window;
      std::string e =
          within(c.memory, c.local,
                 getTileBytes(c.rows, uint64_t(c.depth) * c.cols, bytes),
                 "source", false);
      if (e.empty())
        e = within(c.dstMemory, c.local3,
                   getTileBytes(c.rows, uint64_t(w.outRows) * w.outCols, bytes),
                   "destination", true);
      return e;
    }
    std::string e = within(c.memory, c.local,
                           getTileBytes(c.rows, c.cols, bytes), "source",
                           false);
    if (e.empty() && c.vectorOp == VectorKind::Add)
      e = within(c.memory, c.local2, getTileBytes(c.rows, c.cols, bytes),
                 "second source", false);
    if (e.empty() && columns)
      e = within(Memory::Scratchpad, c.local2, getTileBytes(1, c.cols, 8),
                 "column table", false);
    if (e.empty())
      e = within(c.dstMemory, c.local3,
                 getTileBytes(c.rows, c.cols, getElementBytes(c.dstType)),
                 "destination", true);
    return e;
  }
  }
  return "unknown opcode";
}

/// A pooling command's planes (checked: every window reaches in): the max,
/// or the f32 mean, of each window's elements inside its plane.
void pool(const Command &c, const uint8_t *src, uint8_t *dst) {
  bool average = c.vectorOp == VectorKind::AveragePool;
  const Window &w = c.window;
  int64_t height = c.depth, width = c.cols;
  uint64_t outPlane = uint64_t(w.outRows) * w.outCols;
  // Through a copy: the destination may overlap the source.
  std::vector<double> out(c.rows * outPlane);
  for (uint64_t p = 0; p < c.rows; ++p) {
    uint64_t plane = p * uint64_t(height) * width;
    for (int64_t i = 0; i < w.outRows; ++i)
      for (int64_t j = 0; j < w.outCols; ++j) {
        int64_t top = i * w.strideRows - w.padTop;
        int64_t left = j * w.strideCols - w.padLeft;
        double best = -std::numeric_limits<double>::infinity();
        float sum = 0;
        int64_t count = 0;
        for (int64_t y = std::max<int64_t>(top, 0);
             y < std::min<int64_t>(top + w.rows, height); ++y)
          for (int64_t x = std::max<int64_t>(left, 0);
               x < std::min<int64_t>(left + w.cols, width); ++x) {
            double v =
                readElement(src, c.type, plane + uint64_t(y * width + x));
            sum += float(v);
            ++count;
            // A NaN wins, as the CPU's maximumf propagates it.
            if (!std::isnan(best) && (std::isnan(v) || v > best))
              best = v;
          }
        out[p * outPlane + uint64_t(i * w.outCols + j)] =
            average ? double(sum * float(1.0 / double(count))) : best;
      }
  }
  for (uint64_t k = 0; k < out.size(); ++k)
    writeElement(dst, c.dstType, k, out[k]);
}

/// Does what `c` says to the memories (operands already checked).
int64_t execute(const Command &c, Machine &m) {
  uint8_t *dram = m.memories[2];
  unsigned bytes = getElementBytes(c.type);
  uint64_t n = uint64_t(c.rows) * c.cols;
  switch (c.opcode) {
  case Opcode::Load:
  case Opcode::Store: {
    uint8_t *local = m.memories[int(c.memory)] + c.local;
    uint64_t rowBytes = uint64_t(c.cols) * bytes;
    for (uint32_t r = 0; r < c.rows; ++r) {
      uint8_t *far = dram + c.dram + uint64_t(r) * c.dramStride;
      uint8_t *near = local + r * rowBytes;
      if (c.opcode == Opcode::Load)
        std::memcpy(near, far, rowBytes);
      else
        std::memcpy(far, near, rowBytes);
    }
    return 0;
  }
  case Opcode::Matmul: {
    const uint8_t *a = m.memories[0] + c.local, *b = m.memories[0] + c.local2;
    uint8_t *out = m.memories[1] + c.local3;
    ElementType acc = getAccumulatorType(c.type);
    for (uint32_t i = 0; i < c.rows; ++i)
      for (uint32_t j = 0; j < c.cols; ++j) {
        uint64_t index = uint64_t(i) * c.cols + j;
        if (acc == ElementType::Int32) {
          // Exact, wrapping as int32 adders do.
          int32_t sum = c.accumulate ? int32_t(readElement(out, acc, index))
                                     : 0;
          for (uint32_t k = 0; k < c.depth; ++k)
            sum = int32_t(uint32_t(sum) +
                          uint32_t(int32_t(int8_t(a[uint64_t(i) * c.depth + k])) *
                                   int32_t(int8_t(b[uint64_t(k) * c.cols + j]))));
          std::memcpy(out + 4 * index, &sum, 4);
        } else {
          // f32 accumulation in k order.
          float sum = c.accumulate ? float(readElement(out, acc, index)) : 0;
          for (uint32_t k = 0; k < c.depth; ++k)
            sum += float(readElement(a, c.type, uint64_t(i) * c.depth + k)) *
                   float(readElement(b, c.type, uint64_t(k) * c.cols + j));
          std::memcpy(out + 4 * index, &sum, 4);
        }
      }
    return int64_t(c.rows) * c.cols * c.depth;
  }
  case Opcode::Vector: {
    const uint8_t *src = m.memories[int(c.memory)] + c.local;
    const uint8_t *src2 = m.memories[int(c.memory)] + c.local2;
    uint8_t *dst = m.memories[int(c.dstMemory)] + c.local3;
    if (c.vectorOp == VectorKind::MaxPool ||
        c.vectorOp == VectorKind::AveragePool) {
      pool(c, src, dst);
      return 0;
    }
    // Through a copy: the destination may overlap a source.
    std::vector<double> values(n);
    for (uint64_t i = 0; i < n; ++i) {
      double x = readElement(src, c.type, i);
      switch (c.vectorOp) {
      case VectorKind::Relu:
        values[i] = x > 0 ? x : 0;
        break;
      case VectorKind::Add:
        values[i] = c.type == ElementType::Int32
                        ? double(int32_t(uint32_t(int32_t(x)) +
                                         uint32_t(int32_t(
                                             readElement(src2, c.type, i)))))
                        : double(float(x) + float(readElement(src2, c.type, i)));
        break;
      case VectorKind::Requantize:
        values[i] = double(std::nearbyint(float(x) * c.scale)) + c.zeroPoint;
        break;
      case VectorKind::RequantizeColumns:
      case VectorKind::RequantizeColumnsRelu: {
        // The column's (int32 bias, f32 scale); int32 sums wrap.
        const uint8_t *entry = m.memories[0] + c.local2 + 8 * (i % c.cols);
        int32_t sum = int32_t(uint32_t(int32_t(x)) +
                              uint32_t(int32_t(readElement(
                                  entry, ElementType::Int32, 0))));
        if (c.vectorOp == VectorKind::RequantizeColumnsRelu)
          sum = std::max(sum, 0);
        float scale = float(readElement(entry + 4, ElementType::F32, 0));
        values[i] = double(std::nearbyint(float(sum) * scale)) + c.zeroPoint;
        break;
      }
      case VectorKind::Dequantize:
        values[i] = double(float(int32_t(x) - c.zeroPoint) * c.scale);
        break;
      case VectorKind::Copy:
      case VectorKind::MaxPool: // pooled above
      case VectorKind::AveragePool:
        values[i] = x;
        break;
      }
    }
    for (uint64_t i = 0; i < n; ++i)
      writeElement(dst, c.dstType, i, values[i]);
    return 0;
  }
  }
  return 0;
}
} // namespace

std::string mlc::npu::validateCommand(const NPUConfig &config,
                                     const Command &command) {
  if (command.signal < -1 || command.signal >= int8_t(kNumTokens))
    return "token " + std::to_string(command.signal) + " is not one of 0-" +
           std::to_string(kNumTokens - 1);
  Machine machine{config,
                  {nullptr, nullptr, nullptr},
                  {uint64_t(config.scratchpad.bytes),
                   uint64_t(config.accumulator.bytes),
                   std::numeric_limits<uint64_t>::max()}};
  std::vector<Access> accesses;
  return getAccesses(command, machine, accesses);
}

double SimulationStats::getMatrixUtilization(const NPUConfig &config) const {
  if (cycles <= 0)
    return 0;
  return double(multiplyAccumulates) /
         (double(config.matrix.rows) * double(config.matrix.cols) *
          double(cycles));
}

double SimulationStats::getSeconds(const NPUConfig &config) const {
  return double(cycles) / (config.clockMHz * 1e6);
}

Simulator::Simulator(NPUConfig config) : config(std::move(config)) {}

int64_t Simulator::getCycles(const Command &c) const {
  return getCommandCycles(config, c);
}

uint16_t mlc::npu::roundToBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if (std::isnan(f))
    return uint16_t((bits >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

int64_t mlc::npu::getCommandCycles(const NPUConfig &config, const Command &c) {
  int64_t bytes = int64_t(getElementBytes(c.type));
  switch (c.opcode) {
  case Opcode::Load:
  case Opcode::Store: {
    // The rows are spread over the channels the transfer's queue owns.
    int64_t channels = config.dma.channels;
    int64_t owned = channels == 1                 ? 1
                    : c.opcode == Opcode::Load ? channels - channels / 2
                                               : channels / 2;
    int64_t rows = ceilDiv(int64_t(c.rows), std::min<int64_t>(owned, c.rows));
    return config.dma.latencyCycles +
           ceilDiv(rows * c.cols * bytes, config.dma.bytesPerCycle);
  }
  case Opcode::Matmul: {
    // Weight-stationary: each of the depth/R x cols/C weight tiles is
    // preloaded (R cycles) and the rows of A stream through (one a cycle);
    // the last row's results leave the array R + C - 1 cycles after it
    // entered (the drain). With double-buffered weights the next tile
    // preloads while the current one streams, so only the first preload
    // is not hidden.
    int64_t r = config.matrix.rows;
    int64_t tiles = ceilDiv(c.depth, r) * ceilDiv(c.cols, config.matrix.cols);
    int64_t drain = getCommandLatency(config, c);
    if (config.matrix.weightBuffers > 1)
      return r + tiles * std::max(r, int64_t(c.rows)) + drain;
    return tiles * (r + int64_t(c.rows)) + drain;
  }
  case Opcode::Vector:
    // A pooling takes each window's elements, one a lane a cycle.
    if (c.vectorOp == VectorKind::MaxPool ||
        c.vectorOp == VectorKind::AveragePool)
      return ceilDiv(int64_t(c.rows) * c.window.outRows * c.window.outCols *
                         c.window.rows * c.window.cols,
                     config.vector.width) +
             4;
    return ceilDiv(int64_t(c.rows) * c.cols, config.vector.width) + 4;
  }
  return 1;
}

int64_t mlc::npu::getCommandLatency(const NPUConfig &config,
                                    const Command &c) {
  switch (c.opcode) {
  case Opcode::Matmul:
    return config.matrix.rows + config.matrix.cols - 1;
  case Opcode::Load:
  case Opcode::Store:
    return config.dma.latencyCycles;
  case Opcode::Vector:
    return 0;
  }
  return 0;
}

int64_t mlc::npu::getCommandOccupancy(const NPUConfig &config, const Command &c,
                                      int64_t cycles) {
  int64_t occupied = cycles - getCommandLatency(config, c);
  if (c.opcode == Opcode::Matmul && config.matrix.weightBuffers > 1)
    occupied -= std::min<int64_t>(config.matrix.rows, occupied);
  return occupied;
}

int64_t mlc::npu::getProgramCyclesBound(const NPUConfig &config,
                                        const Program &program) {
  std::array<int64_t, kNumQueues> busy{};
  int64_t dma = 0; // with one channel, loads and stores share it
  for (const Command &c : program.commands) {
    int64_t occupied =
        getCommandOccupancy(config, c, getCommandCycles(config, c));
    busy[unsigned(c.getQueue())] += occupied;
    if (c.opcode == Opcode::Load || c.opcode == Opcode::Store)
      dma += occupied;
  }
  int64_t bound = *std::max_element(busy.begin(), busy.end());
  return config.dma.channels == 1 ? std::max(bound, dma) : bound;
}

bool Simulator::run(const Program &program, uint8_t *dram,
                    uint64_t dramBytes, SimulationStats &stats,
                    std::string &error) {
  // The memories are allocated on the first run that needs them.
  scratchpad.assign(size_t(config.scratchpad.bytes), 0);
  accumulator.assign(size_t(config.accumulator.bytes), 0);
  return simulate(program, dram, dramBytes, /*functional=*/true, stats, error);
}

bool Simulator::time(const Program &program, SimulationStats &stats,
                     std::string &error) {
  return simulate(program, nullptr, std::numeric_limits<uint64_t>::max(),
                  /*functional=*/false, stats, error);
}

bool Simulator::simulate(const Program &program, uint8_t *dram,
                         uint64_t dramBytes, bool functional,
                         SimulationStats &stats, std::string &error) {
  stats = SimulationStats();
  Machine machine{config,
                  {scratchpad.data(), accumulator.data(), dram},
                  {uint64_t(config.scratchpad.bytes),
                   uint64_t(config.accumulator.bytes), dramBytes}};

  // Each queue's commands, in program order.
  std::array<std::deque<size_t>, kNumQueues> queues;
  for (size_t i = 0; i < program.commands.size(); ++i)
    queues[unsigned(program.commands[i].getQueue())].push_back(i);
  std::array<int64_t, kNumQueues> unitFree{};
  int64_t dmaFree = 0; // with one channel, loads and stores share it
  // Happens-before, as vector clocks: entry q of a command's clock is the
  // number of queue q's commands ordered before it (by queue order and the
  // tokens it waited for, transitively). A token's signal carries its
  // signaller's clock, and the time it becomes available.
  using Clock = std::array<int64_t, kNumQueues>;
  struct Signal {
    int64_t time;
    Clock clock;
  };
  std::array<std::deque<Signal>, kNumTokens> signals;
  std::array<Clock, kNumQueues> queueClock{};
  // Every access not yet ordered before all that can follow.
  struct Past {
    Access access;
    size_t command;
    unsigned queue;
    int64_t sequence;
  };
  std::vector<Past> history;
  struct Flight {
    Access access;
    int64_t start, finish;
    size_t command;
    Queue queue;
  };
  std::vector<Flight> inFlight;
  int64_t first = std::numeric_limits<int64_t>::max(), last = 0;

  for (size_t done = 0; done < program.commands.size(); ++done) {
    // The queue head that can start earliest.
    int best = -1;
    int64_t bestStart = 0;
    for (unsigned q = 0; q < kNumQueues; ++q) {
      if (queues[q].empty())
        continue;
      const Command &c = program.commands[queues[q].front()];
      int64_t start = unitFree[q];
      bool dma = c.opcode == Opcode::Load || c.opcode == Opcode::Store;
      if (dma && config.dma.channels == 1)
        start = std::max(start, dmaFree);
      bool ready = true;
      for (unsigned t = 0; t < kNumTokens && ready; ++t)
        if (c.waitMask & (1u << t)) {
          if (signals[t].empty())
            ready = false;
          else
            start = std::max(start, signals[t].front().time);
        }
      if (ready && (best < 0 || start < bestStart)) {
        best = int(q);
        bestStart = start;
      }
    }
    if (best < 0) {
      error = "deadlock: ";
      for (unsigned q = 0; q < kNumQueues; ++q)
        if (!queues[q].empty())
          error += "command " + std::to_string(queues[q].front()) + " (" +
                   std::string(getQueueName(Queue(q))) +
                   ") waits for tokens no command left will signal; ";
      return false;
    }
    size_t index = queues[best].front();
    queues[best].pop_front();
    const Command &c = program.commands[index];
    std::vector<Access> accesses;
    std::string problem = getAccesses(c, machine, accesses);
    if (!problem.empty()) {
      error = "command " + std::to_string(index) + " (" +
              std::string(getQueueName(c.getQueue())) + "): " + problem;
      return false;
    }
    // This command's clock: its queue's, joined with each signal it takes.
    Clock clock = queueClock[best];
    for (unsigned t = 0; t < kNumTokens; ++t)
      if (c.waitMask & (1u << t)) {
        for (unsigned q = 0; q < kNumQueues; ++q)
          clock[q] = std::max(clock[q], signals[t].front().clock[q]);
        signals[t].pop_front();
      }
    clock[best] += 1;
    // Hazards: an earlier access to the same bytes, either writing, that
    // nothing orders before this command. Its outcome would depend on
    // timing, whatever this run's timing happens to be.
    for (const Access &a : functional ? accesses : std::vector<Access>())
      for (const Past &p : history)
        if (p.access.space == a.space && a.begin < p.access.end &&
            p.access.begin < a.end && (a.write || p.access.write) &&
            clock[p.queue] < p.sequence) {
          static const char *const kSpaces[] = {"scratchpad", "accumulator",
                                                "DRAM"};
          error = "hazard: command " + std::to_string(index) + " and command " +
                  std::to_string(p.command) + " touch " + kSpaces[a.space] +
                  " bytes [" +
                  std::to_string(std::max(a.begin, p.access.begin)) + ", " +
                  std::to_string(std::min(a.end, p.access.end)) +
                  ") with nothing ordering them; a token must";
          return false;
        }
    queueClock[best] = clock;
    for (const Access &a : accesses)
      if (functional)
        history.push_back({a, index, unsigned(best), clock[best]});
    // An access every queue with commands left is already ordered after
    // can conflict with nothing to come.
    history.erase(std::remove_if(history.begin(), history.end(),
                                 [&](const Past &p) {
                                   for (unsigned q = 0; q < kNumQueues; ++q)
                                     if (!queues[q].empty() &&
                                         queueClock[q][p.queue] < p.sequence)
                                       return false;
                                   return true;
                                 }),
                  history.end());
    inFlight.erase(std::remove_if(inFlight.begin(), inFlight.end(),
                                  [&](const Flight &f) {
                                    return f.finish <= bestStart;
                                  }),
                   inFlight.end());
    int64_t cycles = getCycles(c);
    // Bank conflicts: each bank has one port. A command that shares a bank
    // with one of another unit already running waits out their overlap
    // (the earlier command keeps the port).
    int64_t conflict = 0;
    for (const Access &a : accesses) {
      if (a.space == 2)
        continue;
      const NPUConfig::Memory &memory =
          a.space == 0 ? config.scratchpad : config.accumulator;
      uint64_t bankBytes =
          std::max<uint64_t>(1, uint64_t(memory.bytes) / memory.banks);
      for (const Flight &f : inFlight) {
        if (f.queue == c.getQueue() || f.access.space != a.space ||
            a.begin / bankBytes > (f.access.end - 1) / bankBytes ||
            f.access.begin / bankBytes > (a.end - 1) / bankBytes)
          continue;
        int64_t overlap = std::min(f.finish, bestStart + cycles) -
                          std::max(f.start, bestStart);
        conflict = std::max(conflict, overlap);
      }
    }
    cycles += conflict;
    stats.bankConflictCycles += conflict;
    int64_t finish = bestStart + cycles;
    // Units are pipelined: the next matrix command's rows enter behind this
    // one's last while it drains, and a DMA channel issues its next
    // transfer while this one's latency runs (the result, and the signal,
    // come at `finish`).
    // With double-buffered weights the next matrix command's first preload
    // goes into the free registers while this one's last tile streams.
    int64_t occupied = getCommandOccupancy(config, c, cycles);
    for (const Access &a : accesses)
      if (a.space != 2) // DRAM has no banks to wait for
        inFlight.push_back({a, bestStart, finish, index, c.getQueue()});
    if (functional)
      stats.multiplyAccumulates += execute(c, machine);
    else if (c.opcode == Opcode::Matmul)
      stats.multiplyAccumulates += int64_t(c.rows) * c.cols * c.depth;
    unitFree[best] = bestStart + occupied;
    if (c.opcode == Opcode::Load || c.opcode == Opcode::Store)
      dmaFree = bestStart + occupied;
    if (c.signal >= 0)
      signals[c.signal].push_back({finish, clock});
    stats.busyCycles[best] += occupied;
    stats.timeline.push_back({index, c.getQueue(), bestStart, finish});
    int64_t bytes = int64_t(c.rows) * c.cols * getElementBytes(c.type);
    if (c.opcode == Opcode::Load)
      stats.bytesLoaded += bytes;
    if (c.opcode == Opcode::Store)
      stats.bytesStored += bytes;
    first = std::min(first, bestStart);
    last = std::max(last, finish);
  }
  stats.commands = int64_t(program.commands.size());
  stats.cycles = program.commands.empty() ? 0 : last - first;
  return true;
}
