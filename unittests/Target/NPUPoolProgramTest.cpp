//===- NPUPoolProgramTest.cpp - The NPU lowering of pooling ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The streams PoolProgram.h builds, run in the simulator (which refuses
// any hazard between the buffer sets) against max pooling computed here,
// and what they refuse.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/PoolProgram.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace mlc::npu;

namespace {
/// Pools random int8 planes (max is exact in every type) with `shape` in
/// `tiles` (the fastest when empty) and compares every output.
void runPool(const NPUConfig &config, PoolShape shape,
             std::optional<PoolTiles> tiles = std::nullopt) {
  shape.type = ElementType::Int8;
  std::string why;
  if (!tiles)
    tiles = choosePoolTiles(config, shape, why);
  ASSERT_TRUE(tiles) << why;
  int64_t in = shape.planes * shape.height * shape.width;
  int64_t out = shape.planes * shape.outHeight * shape.outWidth;
  std::optional<Program> program =
      buildPoolProgram(config, shape, *tiles, {0, uint64_t(in)}, why);
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

TEST(NPUPoolProgram, ResNetStemOnBoth) {
  // 64 planes of 112x112, 3x3 every 2 from one before: more planes than
  // one tile on edge, so its buffer sets rotate.
  PoolShape stem{64, 112, 112, 56, 56, {3, 3}, {2, 2}, {1, 1}};
  runPool(*getBuiltinNPUConfig("large"), stem);
  runPool(*getBuiltinNPUConfig("edge"), stem);
  // A last tile of fewer planes, three sets.
  runPool(*getBuiltinNPUConfig("large"), stem, PoolTiles{24, 3});
}

TEST(NPUPoolProgram, ClippedAndUnevenWindows) {
  // ceil_mode's last window past the end; a 2x3 window, steps 1 and 2.
  runPool(*getBuiltinNPUConfig("edge"),
          {8, 16, 16, 8, 8, {3, 3}, {2, 2}, {0, 0}});
  runPool(*getBuiltinNPUConfig("edge"),
          {6, 9, 10, 9, 5, {2, 3}, {1, 2}, {0, 1}}, PoolTiles{4, 2});
}

TEST(NPUPoolProgram, GlobalAverage) {
  // ResNet-50's last pooling: 2048 planes of 7x7 f32, each one mean (the
  // f32 sum in row-major order times 1 / 49 rounded to f32), in tiles.
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  PoolShape shape{2048, 7, 7, 1, 1, {7, 7}, {1, 1}, {0, 0}};
  shape.average = true;
  std::string why;
  std::optional<PoolTiles> tiles = choosePoolTiles(edge, shape, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LT(tiles->planes, shape.planes);
  int64_t in = 2048 * 49 * 4;
  std::optional<Program> program =
      buildPoolProgram(edge, shape, *tiles, {0, uint64_t(in)}, why);
  ASSERT_TRUE(program) << why;
  std::vector<float> x(2048 * 49);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-4, 4);
  for (float &v : x)
    v = d(rng);
  std::vector<uint8_t> dram(size_t(in + 2048 * 4));
  std::memcpy(dram.data(), x.data(), size_t(in));
  Simulator simulator(edge);
  SimulationStats stats;
  ASSERT_TRUE(simulator.run(*program, dram.data(), dram.size(), stats, why))
      << why;
  std::vector<float> got(2048);
  std::memcpy(got.data(), dram.data() + in, 2048 * 4);
  int wrong = 0;
  for (int p = 0; p < 2048; ++p) {
    float sum = 0;
    for (int i = 0; i < 49; ++i)
      sum += x[size_t(p * 49 + i)];
    if (got[size_t(p)] != sum * float(1.0 / 49) && wrong++ < 5)
      ADD_FAILURE() << "plane " << p << ": " << got[size_t(p)];
  }
  // Integers are not averaged.
  shape.type = ElementType::Int8;
  EXPECT_FALSE(choosePoolTiles(edge, shape, why));
  EXPECT_NE(why.find("average_pool takes floats"), std::string::npos) << why;
}

TEST(NPUPoolProgram, Refuses) {
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  std::string why;
  // A plane of 512x512 f32 is larger than edge's scratchpad.
  PoolShape big{4, 512, 512, 256, 256, {2, 2}, {2, 2}, {0, 0}};
  EXPECT_FALSE(choosePoolTiles(edge, big, why));
  EXPECT_NE(why.find("do not fit 'edge'"), std::string::npos) << why;
  PoolShape wide{4, 8, 8, 8, 1, {1, 300}, {1, 1}, {0, 0}};
  EXPECT_FALSE(choosePoolTiles(edge, wide, why));
  EXPECT_NE(why.find("does not fit a command"), std::string::npos) << why;
  NPUConfig plain = edge;
  plain.vector.ops = {"relu"};
  PoolShape small{4, 8, 8, 4, 4, {2, 2}, {2, 2}, {0, 0}};
  EXPECT_FALSE(choosePoolTiles(plain, small, why));
  EXPECT_EQ(why, "the vector unit of 'edge' has no max_pool");
}
