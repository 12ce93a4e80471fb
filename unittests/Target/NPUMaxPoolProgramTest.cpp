//===- NPUMaxPoolProgramTest.cpp - The NPU lowering of max pooling --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The streams MaxPoolProgram.h builds, run in the simulator (which refuses
// any hazard between the buffer sets) against max pooling computed here,
// and what they refuse.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/MaxPoolProgram.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace mlc::npu;

namespace {
/// Pools random int8 planes (max is exact in every type) with `shape` in
/// `tiles` (the fastest when empty) and compares every output.
void runPool(const NPUConfig &config, MaxPoolShape shape,
             std::optional<MaxPoolTiles> tiles = std::nullopt) {
  shape.type = ElementType::Int8;
  std::string why;
  if (!tiles)
    tiles = chooseMaxPoolTiles(config, shape, why);
  ASSERT_TRUE(tiles) << why;
  int64_t in = shape.planes * shape.height * shape.width;
  int64_t out = shape.planes * shape.outHeight * shape.outWidth;
  std::optional<Program> program =
      buildMaxPoolProgram(config, shape, *tiles, {0, uint64_t(in)}, why);
  ASSERT_TRUE(program) << why;
  std::vector<uint8_t> dram(size_t(in + out));
  std::mt19937 rng(3);
  for (int64_t i = 0; i < in; ++i)
    dram[size_t(i)] = uint8_t(rng());
  Simulator simulator(config);
  SimulationStats stats;
  ASSERT_TRUE(simulator.run(*program, dram.data(), dram.size(), stats, why))
      << why;
  int wrong = 0;
  for (int64_t p = 0; p < shape.planes; ++p)
    for (int64_t i = 0; i < shape.outHeight; ++i)
      for (int64_t j = 0; j < shape.outWidth; ++j) {
        int best = -129;
        for (int64_t a = 0; a < shape.window[0]; ++a)
          for (int64_t b = 0; b < shape.window[1]; ++b) {
            int64_t y = i * shape.strides[0] + a - shape.pads[0];
            int64_t x = j * shape.strides[1] + b - shape.pads[1];
            if (y >= 0 && y < shape.height && x >= 0 && x < shape.width)
              best = std::max<int>(
                  best,
                  int8_t(
                      dram[size_t((p * shape.height + y) * shape.width + x)]));
          }
        int got = int8_t(
            dram[size_t(in + (p * shape.outHeight + i) * shape.outWidth + j)]);
        if (got != best && wrong++ < 5)
          ADD_FAILURE() << "plane " << p << " at " << i << ", " << j << ": "
                        << got << " instead of " << best;
      }
}
} // namespace

TEST(NPUMaxPoolProgram, ResNetStemOnBoth) {
  // 64 planes of 112x112, 3x3 every 2 from one before: more planes than
  // one tile on edge, so its buffer sets rotate.
  MaxPoolShape stem{64, 112, 112, 56, 56, {3, 3}, {2, 2}, {1, 1}};
  runPool(*getBuiltinNPUConfig("large"), stem);
  runPool(*getBuiltinNPUConfig("edge"), stem);
  // A last tile of fewer planes, three sets.
  runPool(*getBuiltinNPUConfig("large"), stem, MaxPoolTiles{24, 3});
}

TEST(NPUMaxPoolProgram, ClippedAndUnevenWindows) {
  // ceil_mode's last window past the end; a 2x3 window, steps 1 and 2.
  runPool(*getBuiltinNPUConfig("edge"),
          {8, 16, 16, 8, 8, {3, 3}, {2, 2}, {0, 0}});
  runPool(*getBuiltinNPUConfig("edge"),
          {6, 9, 10, 9, 5, {2, 3}, {1, 2}, {0, 1}}, MaxPoolTiles{4, 2});
}

TEST(NPUMaxPoolProgram, Refuses) {
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  std::string why;
  // A plane of 512x512 f32 is larger than edge's scratchpad.
  MaxPoolShape big{4, 512, 512, 256, 256, {2, 2}, {2, 2}, {0, 0}};
  EXPECT_FALSE(chooseMaxPoolTiles(edge, big, why));
  EXPECT_NE(why.find("do not fit 'edge'"), std::string::npos) << why;
  MaxPoolShape wide{4, 8, 8, 8, 1, {1, 300}, {1, 1}, {0, 0}};
  EXPECT_FALSE(chooseMaxPoolTiles(edge, wide, why));
  EXPECT_NE(why.find("does not fit a command"), std::string::npos) << why;
  NPUConfig plain = edge;
  plain.vector.ops = {"relu"};
  MaxPoolShape small{4, 8, 8, 4, 4, {2, 2}, {2, 2}, {0, 0}};
  EXPECT_FALSE(chooseMaxPoolTiles(plain, small, why));
  EXPECT_EQ(why, "the vector unit of 'edge' has no max_pool");
}
