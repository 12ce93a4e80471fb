//===- QuantizedAddProgram.cpp - An int8 add as an NPU command stream -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The stream walks the arrays tile by tile. Per tile t, with buffer set
// i = t % n of the scratchpad:
//
//   load queue:   lhs tile -> A[i], rhs tile -> B[i]
//   vector queue: dequantize A[i] -> FA, dequantize B[i] -> FB (f32, in
//                 the accumulator), FA + FB -> FA, [relu FA],
//                 requantize FA -> O[i]
//   store queue:  O[i] to out
//
// Three tokens order them: the rhs load signals L for the first vector
// command; the requantization signals R for the store; the store of tile
// t signals S, which the loads of tile t + n wait for. The vector queue
// runs in order, so FA and FB need no second copy; A[i], B[i] and O[i]
// are reused only after the store of the tile that last used them, which
// follows its vector commands. Each buffer set starts a bank of its own
// where they fit, so that the DMA filling one set never waits for the
// vector unit's port on another.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/QuantizedAddProgram.h"

#include "LocalLayout.h"
#include "mlc/Target/NPU/MatmulProgram.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace mlc::npu;

namespace {
constexpr int8_t kLoaded = 0, kRequantized = 1, kStored = 2;
/// Where the buffers go: set i's A, B and O at set * i + 0, a, 2a in the
/// scratchpad, FA and FB at 0 and 4 a in the accumulator.
struct Layout {
  int64_t tile = 0; ///< one int8 tile, aligned
  int64_t set = 0;  ///< one buffer set (three tiles), aligned to a bank
                    ///< where the sets then fit
  int64_t scratchpad = 0, accumulator = 0;
};

Layout getLayout(const NPUConfig &config, const QuantizedAddTiles &tiles) {
  Layout l;
  l.tile = alignUp(tiles.elements, kLocalAlignment);
  int64_t bank = getScratchpadBank(config);
  l.set = alignUp(3 * l.tile, bank);
  if (tiles.buffers * l.set > config.scratchpad.bytes)
    l.set = 3 * l.tile;
  l.scratchpad = tiles.buffers * l.set;
  l.accumulator = 2 * 4 * l.tile;
  return l;
}

bool fits(const NPUConfig &config, const Layout &l) {
  return l.scratchpad <= config.scratchpad.bytes &&
         l.accumulator <= config.accumulator.bytes;
}

/// Whether `value` is a finite scale or zero point a command can carry.
bool isFinite(float value) { return std::isfinite(value); }

/// Whether the NPU has what `shape` needs, whatever the tiles (else why).
bool canRun(const NPUConfig &config, const QuantizedAddShape &shape,
            std::string &why) {
  std::vector<std::string> needed{"add", "requantize"};
  if (shape.relu)
    needed.push_back("relu");
  std::string missing;
  for (const std::string &op : needed)
    if (!config.supportsVector(op))
      missing += (missing.empty() ? "" : ", ") + op;
  if (!missing.empty()) {
    why = "the vector unit of '" + config.name + "' lacks " + missing +
          ", which this quantized add needs";
    return false;
  }
  if (shape.elements < 1 || !isFinite(shape.lhsScale) ||
      !isFinite(shape.rhsScale) || !isFinite(shape.resultScale)) {
    why = "an empty add or a scale that is not finite";
    return false;
  }
  return true;
}
} // namespace

std::optional<Program> mlc::npu::buildQuantizedAddProgram(
    const NPUConfig &config, const QuantizedAddShape &shape,
    const QuantizedAddTiles &tiles, const std::array<uint64_t, 3> &dram,
    std::string &why) {
  if (!canRun(config, shape, why))
    return std::nullopt;
  Layout l = getLayout(config, tiles);
  if (tiles.elements < 1 || tiles.buffers < 2 || !fits(config, l) ||
      tiles.elements > std::numeric_limits<uint32_t>::max()) {
    why = "tiles of " + std::to_string(tiles.elements) + " elements x" +
          std::to_string(tiles.buffers) + " do not fit '" + config.name + "'";
    return std::nullopt;
  }
  int64_t n = tiles.buffers;
  int64_t count = ceilDiv(shape.elements, tiles.elements);
  Program program;
  auto add = [&](Command c) { program.commands.push_back(c); };
  auto vector = [&](VectorKind op, ElementType from, ElementType to, Memory src,
                    Memory dst, int64_t a, int64_t b, int64_t out,
                    uint32_t elements) {
    Command c;
    c.opcode = Opcode::Vector;
    c.vectorOp = op;
    c.type = from;
    c.dstType = to;
    c.memory = src;
    c.dstMemory = dst;
    c.local = uint32_t(a);
    c.local2 = uint32_t(b);
    c.local3 = uint32_t(out);
    c.rows = 1;
    c.cols = elements;
    return c;
  };
  int64_t fa = 0, fb = 4 * l.tile;
  for (int64_t t = 0; t < count; ++t) {
    int64_t set = (t % n) * l.set;
    int64_t a = set, b = set + l.tile, o = set + 2 * l.tile;
    int64_t first = t * tiles.elements;
    uint32_t elements =
        uint32_t(std::min(tiles.elements, shape.elements - first));
    auto transfer = [&](Opcode opcode, uint64_t base, int64_t local) {
      Command c;
      c.opcode = opcode;
      c.type = ElementType::Int8;
      c.dram = base + uint64_t(first);
      c.local = uint32_t(local);
      c.rows = 1;
      c.cols = elements;
      c.dramStride = elements;
      return c;
    };
    Command loadA = transfer(Opcode::Load, dram[0], a);
    if (t >= n)
      loadA.waitMask = uint16_t(1u << kStored);
    add(loadA);
    Command loadB = transfer(Opcode::Load, dram[1], b);
    loadB.signal = kLoaded;
    add(loadB);

    // Each operand (x - zero point) * scale into f32 in the accumulator,
    // the first once both are loaded.
    auto dequantize = [&](int64_t from, int64_t to, float scale,
                          int32_t zeroPoint) {
      Command d = vector(VectorKind::Dequantize, ElementType::Int8,
                         ElementType::F32, Memory::Scratchpad,
                         Memory::Accumulator, from, 0, to, elements);
      d.scale = scale;
      d.zeroPoint = zeroPoint;
      return d;
    };
    Command da = dequantize(a, fa, shape.lhsScale, shape.lhsZeroPoint);
    da.waitMask = uint16_t(1u << kLoaded);
    add(da);
    add(dequantize(b, fb, shape.rhsScale, shape.rhsZeroPoint));
    add(vector(VectorKind::Add, ElementType::F32, ElementType::F32,
               Memory::Accumulator, Memory::Accumulator, fa, fb, fa, elements));
    if (shape.relu)
      add(vector(VectorKind::Relu, ElementType::F32, ElementType::F32,
                 Memory::Accumulator, Memory::Accumulator, fa, 0, fa,
                 elements));
    Command q =
        vector(VectorKind::Requantize, ElementType::F32, ElementType::Int8,
               Memory::Accumulator, Memory::Scratchpad, fa, 0, o, elements);
    q.scale = shape.resultScale;
    q.zeroPoint = shape.zeroPoint;
    q.signal = kRequantized;
    add(q);

    Command store = transfer(Opcode::Store, dram[2], o);
    store.waitMask = uint16_t(1u << kRequantized);
    // Only the signals tile t + n's loads take.
    if (t + n < count)
      store.signal = kStored;
    add(store);
  }
  if (!checkProgram(config, program, why))
    return std::nullopt;
  return program;
}

std::optional<QuantizedAddTiles>
mlc::npu::chooseQuantizedAddTiles(const NPUConfig &config,
                                  const QuantizedAddShape &shape,
                                  std::string &why, int64_t *cycles) {
  // All of it at once, or powers of two from 1 KiB: more tiles overlap
  // more of their transfers with the vector unit, larger ones pay each
  // command's fixed cycles less often.
  std::vector<int64_t> choices{shape.elements};
  for (int64_t e = 1024; e < shape.elements; e *= 2)
    choices.push_back(e);
  if (!canRun(config, shape, why))
    return std::nullopt;
  std::optional<QuantizedAddTiles> best = chooseFastestTiles<QuantizedAddTiles>(
      config, choices,
      [&](const QuantizedAddTiles &tiles) -> std::optional<Program> {
        if (!fits(config, getLayout(config, tiles)))
          return std::nullopt;
        return buildQuantizedAddProgram(config, shape, tiles, {0, 0, 0}, why);
      },
      cycles);
  if (!best)
    why = "no tile of the add fits '" + config.name + "'";
  return best;
}
