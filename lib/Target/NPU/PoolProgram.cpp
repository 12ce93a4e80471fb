//===- PoolProgram.cpp - Pooling as an NPU command stream -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The stream walks the planes tile by tile. Per tile t, with buffer set
// i = t % n of the scratchpad:
//
//   load queue:   the tile's input planes -> I[i]
//   vector queue: max_pool or average_pool I[i] -> O[i]
//   store queue:  O[i] to the output planes
//
// Three tokens order them: the load signals L for the pooling, which
// signals P for the store; the store of tile t signals S, which the load of
// tile t + n waits for, so that I[i] and O[i] are reused only after the
// commands that last used them. Each buffer set starts a bank of its own
// where they fit, so that the DMA filling one set never waits for the
// vector unit's port on another.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/PoolProgram.h"

#include "LocalLayout.h"
#include "mlc/Target/NPU/MatmulProgram.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace mlc::npu;

namespace {
constexpr int8_t kLoaded = 0, kPooled = 1, kStored = 2;
/// Where the buffers go: set i's I and O at set * i + 0 and `in`.
struct Layout {
  int64_t in = 0;  ///< one tile of input planes, aligned
  int64_t set = 0; ///< I and O, aligned to a bank where the sets then fit
  int64_t scratchpad = 0;
};

Layout getLayout(const NPUConfig &config, const PoolShape &shape,
                 const PoolTiles &tiles) {
  int64_t bytes = getElementBytes(shape.type);
  Layout l;
  l.in = alignUp(tiles.planes * shape.height * shape.width * bytes,
                 kLocalAlignment);
  int64_t out = alignUp(tiles.planes * shape.outHeight * shape.outWidth * bytes,
                        kLocalAlignment);
  int64_t bank = getScratchpadBank(config);
  l.set = alignUp(l.in + out, bank);
  if (tiles.buffers * l.set > config.scratchpad.bytes)
    l.set = l.in + out;
  l.scratchpad = tiles.buffers * l.set;
  return l;
}
} // namespace

std::optional<Program> mlc::npu::buildPoolProgram(
    const NPUConfig &config, const PoolShape &shape, const PoolTiles &tiles,
    const std::array<uint64_t, 2> &dram, std::string &why) {
  const char *op = shape.average ? "average_pool" : "max_pool";
  if (!config.supportsVector(op)) {
    why = "the vector unit of '" + config.name + "' has no " + op;
    return std::nullopt;
  }
  constexpr int64_t kByte = 255, kHalf = 65535;
  const auto &[window, strides, pads] =
      std::tie(shape.window, shape.strides, shape.pads);
  int64_t bytes = getElementBytes(shape.type);
  if (shape.planes < 1 || shape.height < 1 || shape.width < 1 ||
      shape.outHeight < 1 || shape.outWidth < 1) {
    why = "an empty pooling";
    return std::nullopt;
  }
  for (int d = 0; d < 2; ++d)
    if (window[d] < 1 || window[d] > kByte || strides[d] < 1 ||
        strides[d] > kByte || pads[d] < 0 || pads[d] > kByte) {
      why = "a window of " + std::to_string(window[0]) + "x" +
            std::to_string(window[1]) + ", strides " +
            std::to_string(strides[0]) + "x" + std::to_string(strides[1]) +
            " and pads " + std::to_string(pads[0]) + "x" +
            std::to_string(pads[1]) + " does not fit a command (1-255 each)";
      return std::nullopt;
    }
  if (shape.outHeight > kHalf || shape.outWidth > kHalf ||
      shape.height * shape.width * bytes >
          int64_t(std::numeric_limits<uint32_t>::max())) {
    why = "planes of " + std::to_string(shape.height) + "x" +
          std::to_string(shape.width) + " do not fit a command's fields";
    return std::nullopt;
  }
  Layout l = getLayout(config, shape, tiles);
  if (tiles.planes < 1 || tiles.buffers < 2 ||
      l.scratchpad > config.scratchpad.bytes) {
    why = "tiles of " + std::to_string(tiles.planes) + " planes of " +
          std::to_string(shape.height) + "x" + std::to_string(shape.width) +
          " x" + std::to_string(tiles.buffers) + " do not fit '" + config.name +
          "'";
    return std::nullopt;
  }
  int64_t n = tiles.buffers;
  int64_t count = ceilDiv(shape.planes, tiles.planes);
  int64_t inPlane = shape.height * shape.width * bytes;
  int64_t outPlane = shape.outHeight * shape.outWidth * bytes;
  Program program;
  for (int64_t t = 0; t < count; ++t) {
    int64_t set = (t % n) * l.set;
    int64_t first = t * tiles.planes;
    uint32_t planes = uint32_t(std::min(tiles.planes, shape.planes - first));
    // Whole planes, a plane a row (the rows spread over the DMA channels).
    auto transfer = [&](Opcode opcode, uint64_t base, int64_t local,
                        int64_t plane) {
      Command c;
      c.opcode = opcode;
      c.type = shape.type;
      c.dram = base + uint64_t(first * plane);
      c.local = uint32_t(local);
      c.rows = planes;
      c.cols = uint32_t(plane / bytes);
      c.dramStride = uint32_t(plane);
      return c;
    };
    Command load = transfer(Opcode::Load, dram[0], set, inPlane);
    if (t >= n)
      load.waitMask = uint16_t(1u << kStored);
    load.signal = kLoaded;
    program.commands.push_back(load);

    Command pool;
    pool.opcode = Opcode::Vector;
    pool.vectorOp =
        shape.average ? VectorKind::AveragePool : VectorKind::MaxPool;
    pool.type = pool.dstType = shape.type;
    pool.local = uint32_t(set);
    pool.local3 = uint32_t(set + l.in);
    pool.rows = planes;
    pool.depth = uint32_t(shape.height);
    pool.cols = uint32_t(shape.width);
    pool.window = {uint8_t(window[0]),        uint8_t(window[1]),
                   uint8_t(strides[0]),       uint8_t(strides[1]),
                   uint8_t(pads[0]),          uint8_t(pads[1]),
                   uint16_t(shape.outHeight), uint16_t(shape.outWidth)};
    pool.waitMask = uint16_t(1u << kLoaded);
    pool.signal = kPooled;
    program.commands.push_back(pool);

    Command store = transfer(Opcode::Store, dram[1], set + l.in, outPlane);
    store.waitMask = uint16_t(1u << kPooled);
    // Only the signals tile t + n's load takes.
    if (t + n < count)
      store.signal = kStored;
    program.commands.push_back(store);
  }
  if (!checkProgram(config, program, why))
    return std::nullopt;
  return program;
}

std::optional<PoolTiles> mlc::npu::choosePoolTiles(const NPUConfig &config,
                                                   const PoolShape &shape,
                                                   std::string &why,
                                                   int64_t *cycles) {
  // All planes at once, or powers of two: more tiles overlap more of their
  // transfers with the vector unit, larger ones pay each command's fixed
  // cycles less often.
  std::vector<int64_t> choices{shape.planes};
  for (int64_t p = 1; p < shape.planes; p *= 2)
    choices.push_back(p);
  std::string problem;
  std::optional<PoolTiles> best = chooseFastestTiles<PoolTiles>(
      config, choices,
      [&](const PoolTiles &tiles) {
        return buildPoolProgram(config, shape, tiles, {0, 0}, problem);
      },
      cycles);
  // Else the reason the smallest tiles give: a missing op, a window that
  // does not fit a command, or planes larger than the scratchpad.
  if (!best)
    buildPoolProgram(config, shape, PoolTiles{1, 2}, {0, 0}, why);
  return best;
}
