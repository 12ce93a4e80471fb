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

/// Builds, runs and checks `shape` on `config`; returns the stats.
SimulationStats runMatmul(const NPUConfig &config, const MatmulShape &shape,
                          unsigned seed = 1) {
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(config, shape, why);
  EXPECT_TRUE(tiles) << why;
  if (!tiles)
    return {};
  auto bytes = [](int64_t n, ElementType t) {
    return uint64_t((n * getElementBytes(t) + 63) / 64 * 64);
  };
  int64_t batch = shape.batch;
  uint64_t lhs = 0, rhs = bytes(batch * shape.m * shape.k, shape.lhs);
  uint64_t out = rhs + bytes(batch * shape.k * shape.n, shape.rhs);
  uint64_t end = out + bytes(batch * shape.m * shape.n, shape.out);
  std::optional<Program> program =
      buildMatmulProgram(config, shape, *tiles, {lhs, rhs, out}, why);
  EXPECT_TRUE(program) << why;
  if (!program)
    return {};
  std::vector<uint8_t> dram(end);
  std::mt19937 rng(seed);
  fill(dram, lhs, shape.lhs, batch * shape.m * shape.k, rng);
  fill(dram, rhs, shape.rhs, batch * shape.k * shape.n, rng);
  fill(dram, out, shape.out, batch * shape.m * shape.n, rng);
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
        double got = read(dram, out, shape.out, cm + i * shape.n + j, false);
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
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(large, shape, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LT(tiles->rows, shape.m);
  EXPECT_LT(tiles->cols, shape.n);
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
  EXPECT_NE(shape.k % tiles->getDepth(shape), 0);
  runMatmul(edge, shape);
  runMatmul(edge, int8(40, 48, 5000, /*accumulate=*/true));
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape deep = f32(64, 70, 12000, ElementType::F32, true);
  tiles = chooseMatmulTiles(large, deep, why);
  ASSERT_TRUE(tiles) << why;
  EXPECT_LT(tiles->getDepth(deep), deep.k);
  runMatmul(large, deep);
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

TEST(NPUMatmulProgram, EstimateIsCloseToTheSimulatedCycles) {
  NPUConfig large = *getBuiltinNPUConfig("large");
  MatmulShape shape = f32(128, 768, 768, ElementType::BF16);
  std::string why;
  std::optional<MatmulTiles> tiles = chooseMatmulTiles(large, shape, why);
  ASSERT_TRUE(tiles) << why;
  std::optional<Program> program =
      buildMatmulProgram(large, shape, *tiles, {0, 0, 0}, why);
  ASSERT_TRUE(program) << why;
  SimulationStats stats = runMatmul(large, shape);
  int64_t estimate = estimateCycles(large, *program);
  EXPECT_GT(estimate, stats.cycles / 2);
  EXPECT_LT(estimate, stats.cycles * 2);
}
