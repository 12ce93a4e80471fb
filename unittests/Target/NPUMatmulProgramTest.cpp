//===- NPUMatmulProgramTest.cpp - The NPU lowering of a matmul ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The streams MatmulProgram.h builds, run in the simulator (which refuses
// any hazard between the double buffers) against a product computed here:
// int8 exactly, bf16 against the bf16-rounded operands' product in double.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/MatmulProgram.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace mlc::npu;

namespace {
float fromBF16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

/// Element `i` of a DRAM operand of `type`, as the matrix unit sees it
/// (f32 rounded to bf16 first when the unit takes bf16).
double read(const std::vector<uint8_t> &dram, uint64_t base, ElementType type,
            int64_t i, bool roundToUnit) {
  const uint8_t *p = dram.data() + base;
  switch (type) {
  case ElementType::Int8:
    return double(int8_t(p[i]));
  case ElementType::Int32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return double(v);
  }
  case ElementType::BF16: {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    return double(fromBF16(v));
  }
  case ElementType::F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return roundToUnit ? double(fromBF16(roundToBF16(v))) : double(v);
  }
  default:
    return 0;
  }
}

void fill(std::vector<uint8_t> &dram, uint64_t base, ElementType type,
          int64_t count, std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(-128, 127);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < count; ++i) {
    uint8_t *p = dram.data() + base;
    if (type == ElementType::Int8) {
      p[i] = uint8_t(int8_t(byte(rng)));
    } else if (type == ElementType::Int32) {
      int32_t v = byte(rng) * 1000;
      std::memcpy(p + 4 * i, &v, 4);
    } else if (type == ElementType::BF16) {
      uint16_t v = roundToBF16(normal(rng));
      std::memcpy(p + 2 * i, &v, 2);
    } else {
      float v = normal(rng);
      std::memcpy(p + 4 * i, &v, 4);
    }
  }
}

/// Builds, runs and checks `shape` on `config` in `given` tiles (else those
/// the compiler chooses); returns the stats.
SimulationStats runMatmul(const NPUConfig &config, const MatmulShape &shape,
                          std::optional<MatmulTiles> given = std::nullopt,
                          unsigned seed = 1) {
  SCOPED_TRACE(std::to_string(shape.batch) + " x " + std::to_string(shape.m) +
               "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) +
               " on " + config.name);
  std::string why;
  std::optional<MatmulTiles> tiles =
      given ? given : chooseMatmulTiles(config, shape, why);
  EXPECT_TRUE(tiles) << why;
  if (!tiles)
    return {};
  auto bytes = [](int64_t n, ElementType t) {
    return uint64_t((n * getElementBytes(t) + 63) / 64 * 64);
  };
  int64_t batch = shape.batch;
  uint64_t lhs = 0, rhs = bytes(batch * shape.m * shape.k, shape.lhs);
  uint64_t out = rhs + bytes(batch * shape.k * shape.n, shape.rhs);
  // A requantizing stream's column table: (int32 bias, f32 scale) pairs.
  uint64_t columns =
      out + bytes(batch * shape.m * shape.n, shape.getResultType());
  uint64_t end = columns + bytes(2 * shape.n, ElementType::Int32);
  std::optional<Program> program = buildMatmulProgram(
      config, shape, *tiles, {lhs, rhs, out, columns}, why);
  EXPECT_TRUE(program) << why;
  if (!program)
    return {};
  std::vector<uint8_t> dram(end);
  std::mt19937 rng(seed);
  fill(dram, lhs, shape.lhs, batch * shape.m * shape.k, rng);
  fill(dram, rhs, shape.rhs, batch * shape.k * shape.n, rng);
  fill(dram, out, shape.getResultType(), batch * shape.m * shape.n, rng);
  // Requantization: biases of +-1e5 and scales that spread the sums over
  // the int8 range, some saturating.
  std::uniform_real_distribution<float> scale(1.0f / 8000, 1.0f / 500);
  for (int64_t j = 0; j < shape.n; ++j) {
    int32_t b = int32_t(rng() % 200001) - 100000;
    float s = scale(rng);
    std::memcpy(dram.data() + columns + 8 * j, &b, 4);
    std::memcpy(dram.data() + columns + 8 * j + 4, &s, 4);
  }
  std::vector<uint8_t> before = dram;

  Simulator simulator(config);
  SimulationStats stats;
  EXPECT_TRUE(simulator.run(*program, dram.data(), dram.size(), stats, why))
      << why;
  bool integer = shape.out == ElementType::Int32;
  int64_t wrong = 0;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < shape.m && !wrong; ++i)
      for (int64_t j = 0; j < shape.n && !wrong; ++j) {
        int64_t am = p * shape.m * shape.k, bm = p * shape.k * shape.n;
        int64_t cm = p * shape.m * shape.n;
        double sum = 0, magnitude = 0;
        for (int64_t k = 0; k < shape.k; ++k) {
          double a =
              read(before, lhs, shape.lhs, am + i * shape.k + k, !integer);
          double b =
              read(before, rhs, shape.rhs, bm + k * shape.n + j, !integer);
          sum += a * b;
          magnitude += std::fabs(a * b);
        }
        double init = read(before, out, shape.out, cm + i * shape.n + j, false);
        if (shape.accumulate) {
          sum += init;
          magnitude += std::fabs(init);
        }
        if (shape.requantize) {
          // The int32 sum plus the column's bias, relu, scaled.
          sum += read(before, columns, ElementType::Int32, 2 * j, false);
          if (shape.relu)
            sum = std::max(sum, 0.0);
          float s = float(
              read(before, columns, ElementType::F32, 2 * j + 1, false));
          sum = std::clamp(double(std::nearbyint(float(sum) * s)) +
                               shape.zeroPoint,
                           -128.0, 127.0);
        }
        double got = read(dram, out, shape.getResultType(),
                          cm + i * shape.n + j, false);
        double tolerance =
            integer ? 0 : 1e-6 * (magnitude + 1) * std::sqrt(double(shape.k));
        if (std::fabs(got - sum) > tolerance) {
          ADD_FAILURE() << "at " << i << ", " << j << ": " << got
                        << " instead of " << sum;
          ++wrong;
        }
      }
  EXPECT_EQ(stats.multiplyAccumulates, batch * shape.m * shape.n * shape.k);
  return stats;
}

MatmulShape int8(int64_t m, int64_t n, int64_t k, bool accumulate = false) {
  return {
      m,         n, k, ElementType::Int8, ElementType::Int8, ElementType::Int32,
      accumulate};
}

MatmulShape f32(int64_t m, int64_t n, int64_t k,
                ElementType rhs = ElementType::F32, bool accumulate = false) {
  return {m, n, k, ElementType::F32, rhs, ElementType::F32, accumulate};
}
} // namespace

TEST(NPUMatmulProgram, Int8OnEdge) {
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  runMatmul(edge, int8(1, 1, 1));
  runMatmul(edge, int8(16, 16, 16));
  runMatmul(edge, int8(37, 53, 29));
  runMatmul(edge, int8(64, 256, 128, /*accumulate=*/true));
}

TEST(NPUMatmulProgram, RequantizedOnTheVectorUnit) {
  // int32 sums plus a bias per column, relu or not, scaled per column and
  // stored as int8: bit-exact on both NPUs, with several tiles, K in chunks
  // and a batch.
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  NPUConfig large = *getBuiltinNPUConfig("large");
  auto requantized = [](MatmulShape shape, bool relu, int32_t zeroPoint) {
    shape.requantize = true;
    shape.relu = relu;
    shape.zeroPoint = zeroPoint;
    return shape;
  };
  runMatmul(edge, requantized(int8(16, 16, 16), false, 0));
  runMatmul(edge, requantized(int8(100, 70, 96), true, -128));
  runMatmul(edge, requantized(int8(100, 70, 96), false, 7),
            MatmulTiles{32, 32, 3});
  runMatmul(edge, requantized(int8(49, 64, 4608), true, -3));
  runMatmul(edge, requantized(int8(49, 64, 4608), true, -3),
            MatmulTiles{49, 64, 2, 1024});
  MatmulShape batch = requantized(int8(40, 24, 300), true, 5);
  batch.batch = 3;
  runMatmul(edge, batch);
  runMatmul(large, requantized(int8(784, 128, 576), true, -128));
  // Not with a float matmul, nor onto an accumulated init.
  std::string why;
  EXPECT_FALSE(buildMatmulProgram(large, requantized(f32(8, 8, 8), false, 0),
                                  {8, 8, 2}, {0, 0, 0, 0}, why));
  EXPECT_NE(why.find("requantizing on the NPU needs an int8 matmul"),
            std::string::npos)
      << why;
}

TEST(NPUMatmulProgram, RowBlocksAndPartialTiles) {
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  MatmulShape shape = int8(2100, 70, 96);
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(edge, shape, why);
  ASSERT_TRUE(tiles) << why;
  // Several row blocks, the last one partial, and partial column tiles.
  EXPECT_LT(tiles->rows, shape.m);
  EXPECT_NE(shape.m % tiles->rows, 0);
  runMatmul(edge, shape);
}

TEST(NPUMatmulProgram, FloatAsBF16OnLarge) {
  NPUConfig large = *getBuiltinNPUConfig("large");
  runMatmul(large, f32(5, 7, 3));
  runMatmul(large, f32(64, 128, 256));
  runMatmul(large, f32(130, 200, 77, ElementType::BF16));
  runMatmul(large, f32(96, 96, 96, ElementType::F32, /*accumulate=*/true));
}

TEST(NPUMatmulProgram, ConvertedAndUnconvertedTilesInterleave) {
  // Only the first tile of a row block converts its f32 lhs: the tokens of
  // the tiles that do and those that do not must not cross (a ResNet
  // convolution's shape).
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape shape = f32(784, 128, 576, ElementType::BF16);
  runMatmul(large, shape, MatmulTiles{256, 64, 2});
  runMatmul(large, shape, MatmulTiles{128, 64, 3});
  runMatmul(large, shape);
}

TEST(NPUMatmulProgram, DeepKInChunks) {
  // K too deep for one tile of each operand: chunks summed in the
  // accumulator (a ResNet layer-4 convolution's shape on edge, and a deep
  // f32 one with a bias on large).
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  MatmulShape shape = int8(49, 64, 4608);
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(edge, shape, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LT(tiles->getDepth(shape), shape.k);
  runMatmul(edge, shape);
  // A last chunk shorter than the others.
  runMatmul(edge, shape, MatmulTiles{49, 64, 2, 1024});
  runMatmul(edge, int8(40, 48, 5000, /*accumulate=*/true));
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape deep = f32(64, 70, 12000, ElementType::F32, true);
  tiles = chooseMatmulTiles(large, deep, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LT(tiles->getDepth(deep), deep.k);
  runMatmul(large, deep);
}

TEST(NPUMatmulProgram, ShallowChunksWithThreeBuffers) {
  // Chunks of K rotating through three buffers of each operand and of the
  // accumulator, with a last chunk shorter than the others, partial row
  // blocks and column tiles, and sums accumulated onto the output.
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  runMatmul(edge, int8(70, 40, 300), MatmulTiles{32, 32, 3, 64});
  runMatmul(edge, int8(40, 48, 500, /*accumulate=*/true),
            MatmulTiles{16, 16, 3, 128});
  NPUConfig large = *getBuiltinNPUConfig("large");
  runMatmul(large, f32(200, 130, 700, ElementType::BF16),
            MatmulTiles{128, 64, 3, 128});
  // ResNet-50's 14x14 3x3 convolutions as im2col matmuls: loading a whole
  // row block of the lhs (590 KB) before the first matrix command keeps the
  // array waiting for a fifth of the program; chunks of K start it after
  // a chunk of each operand, and timing finds them faster.
  MatmulShape conv = f32(196, 256, 2304, ElementType::BF16);
  conv.lhs = ElementType::BF16;
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(large, conv, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LE(tiles->getDepth(conv), 256);
  SimulationStats chunked = runMatmul(large, conv);
  std::optional<Program> whole =
      buildMatmulProgram(large, conv, {128, 64, 3}, {0, 0, 0}, why);
  ASSERT_TRUE(whole) << why;
  EXPECT_LT(chunked.cycles, getProgramCycles(large, *whole));
}

TEST(NPUMatmulProgram, Batches) {
  // Attention's matmuls: one stream over the batch, row blocks counting on
  // across its matrices.
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape shape = f32(128, 128, 64);
  shape.batch = 4;
  runMatmul(large, shape);
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  MatmulShape q = int8(40, 24, 300, /*accumulate=*/true);
  q.batch = 3;
  runMatmul(edge, q);
}

TEST(NPUMatmulProgram, RefusesWhatTheNPUCannotRun) {
  NPUConfig edge = *getBuiltinNPUConfig("edge");
  NPUConfig large = *getBuiltinNPUConfig("large");
  std::string why;
  EXPECT_FALSE(chooseMatmulTiles(edge, f32(8, 8, 8), why));
  EXPECT_NE(why.find("'edge' has no matrix unit for f32 x f32"),
            std::string::npos)
      << why;
  why.clear();

  MatmulShape wrongOut = int8(4, 4, 4);
  wrongOut.out = ElementType::F32;
  EXPECT_FALSE(chooseMatmulTiles(large, wrongOut, why));
  EXPECT_NE(why.find("no int8 -> f32"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(buildMatmulProgram(edge, int8(64, 64, 64), {4096, 4096, 2},
                                  {0, 0, 0}, why));
  EXPECT_NE(why.find("do not fit"), std::string::npos) << why;
}

TEST(NPUMatmulProgram, TimingIsTheSimulatedCycles) {
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape shape = f32(128, 768, 768, ElementType::BF16);
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(large, shape, why);
  ASSERT_TRUE(tiles) << why;
  std::optional<Program> program =
      buildMatmulProgram(large, shape, *tiles, {0, 0, 0}, why);
  ASSERT_TRUE(program) << why;
  SimulationStats stats = runMatmul(large, shape);
  EXPECT_EQ(getProgramCycles(large, *program), stats.cycles);
  // The bound a search prunes with: the busiest unit's commands back to
  // back, never more than the program takes.
  int64_t bound = getProgramCyclesBound(large, *program);
  EXPECT_GT(bound, 0);
  EXPECT_LE(bound, stats.cycles);
  // The chosen tiles are at least as fast as whole-M tiles a quarter of N
  // wide, two buffers of each.
  std::optional<Program> quarter =
      buildMatmulProgram(large, shape, {128, 192, 2}, {0, 0, 0}, why);
  ASSERT_TRUE(quarter) << why;
  EXPECT_LE(stats.cycles, getProgramCycles(large, *quarter));
}
