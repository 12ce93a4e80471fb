//===- TargetInfoTest.cpp - CPU facts and the tiles chosen from them ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include <gtest/gtest.h>

using namespace mlc::target;

namespace {
CPUTargetInfo infoFor(const char *triple, const char *cpu,
                      const char *features = "") {
  CPUTargetOptions options;
  options.triple = triple;
  options.cpu = cpu;
  options.features = features;
  return getCPUTargetInfo(options);
}

CPUTargetInfo vectorUnit(unsigned bits, unsigned registers) {
  CPUTargetInfo info;
  info.vectorBits = bits;
  info.vectorRegisters = registers;
  return info;
}

TEST(CPUTargetInfo, VectorUnitFromLLVM) {
  // x86-64's baseline is SSE2: 128-bit vectors, 16 registers.
  CPUTargetInfo generic = infoFor("x86_64-linux-gnu", "");
  EXPECT_EQ(generic.vectorBits, 128u);
  EXPECT_EQ(generic.vectorRegisters, 16u);
  EXPECT_EQ(generic.cpu, "generic");
  EXPECT_EQ(infoFor("x86_64-linux-gnu", "", "+avx2,+fma").vectorBits, 256u);
  EXPECT_EQ(infoFor("x86_64-linux-gnu", "znver3").vectorBits, 256u);
  // AVX-512 CPUs LLVM tunes for 256-bit vectors keep 32 registers.
  CPUTargetInfo skx = infoFor("x86_64-linux-gnu", "skylake-avx512");
  EXPECT_EQ(skx.vectorBits, 256u);
  EXPECT_EQ(skx.vectorRegisters, 32u);
  CPUTargetInfo zen4 = infoFor("x86_64-linux-gnu", "znver4");
  EXPECT_EQ(zen4.vectorBits, 512u);
  EXPECT_EQ(zen4.vectorRegisters, 32u);
  CPUTargetInfo arm = infoFor("aarch64-linux-gnu", "");
  EXPECT_EQ(arm.vectorBits, 128u);
  EXPECT_EQ(arm.vectorRegisters, 32u);
  EXPECT_EQ(arm.arch, "aarch64");
  // Cache sizes are only read from the host for `native`.
  EXPECT_EQ(arm.cacheSource, "default");
}

TEST(CPUTargetInfo, UnknownTripleFallsBack) {
  CPUTargetInfo info = infoFor("nonsense-unknown-none", "");
  EXPECT_EQ(info.vectorBits, 128u);
  EXPECT_EQ(info.vectorRegisters, 16u);
}

TEST(ContractionTiles, RegisterTileFitsTheRegisters) {
  // AVX2: 12 accumulators + 2 column vectors + 1 broadcast = 15 of 16.
  ContractionTiles avx2 = chooseContractionTiles(vectorUnit(256, 16));
  EXPECT_EQ(avx2.mTile, 6);
  EXPECT_EQ(avx2.nTile, 16);
  EXPECT_EQ(avx2.kTile, 256);
  EXPECT_EQ(avx2.nBlock, 128);
  // AVX-512: 28 + 2 + 1 = 31 of 32.
  ContractionTiles avx512 = chooseContractionTiles(vectorUnit(512, 32));
  EXPECT_EQ(avx512.mTile, 14);
  EXPECT_EQ(avx512.nTile, 32);
  // NEON and SSE: 4 lanes, 32 or 16 registers.
  ContractionTiles neon = chooseContractionTiles(vectorUnit(128, 32));
  EXPECT_EQ(neon.mTile, 14);
  EXPECT_EQ(neon.nTile, 8);
  ContractionTiles sse = chooseContractionTiles(vectorUnit(128, 16));
  EXPECT_EQ(sse.mTile, 6);
  EXPECT_EQ(sse.nTile, 8);
  for (const ContractionTiles &t : {avx2, avx512, neon, sse}) {
    EXPECT_EQ(t.kTile % 64, 0);
    EXPECT_EQ(t.nBlock % t.nTile, 0);
  }
}

TEST(ContractionTiles, RowsOfTheRightHandSideAreOneCacheLine) {
  // One 16-float vector per row leaves registers for 16 rows: 16 + 1 + 1.
  ContractionTiles avx512 =
      chooseContractionTiles(vectorUnit(512, 32), kCacheLineFloats);
  EXPECT_EQ(avx512.mTile, 16);
  EXPECT_EQ(avx512.nTile, 16);
  EXPECT_EQ(avx512.nBlock % avx512.nTile, 0);
  // Where the widest tile is a cache line already, nothing changes.
  for (CPUTargetInfo info : {vectorUnit(256, 16), vectorUnit(128, 32)}) {
    ContractionTiles wide = chooseContractionTiles(info);
    ContractionTiles rows = chooseContractionTiles(info, kCacheLineFloats);
    EXPECT_EQ(rows.mTile, wide.mTile);
    EXPECT_EQ(rows.nTile, wide.nTile);
  }
}

TEST(ContractionTiles, CacheTilesFollowTheCaches) {
  CPUTargetInfo small = vectorUnit(256, 16);
  CPUTargetInfo large = small;
  large.l1DataBytes = 64 * 1024;
  large.l2Bytes = 2 * 1024 * 1024;
  ContractionTiles a = chooseContractionTiles(small);
  ContractionTiles b = chooseContractionTiles(large);
  EXPECT_GT(b.kTile, a.kTile);
  EXPECT_GT(b.nBlock, a.nBlock);
  // Row and column micro-panels within 3/4 of L1; a k x n-block block of
  // the right-hand side within 1/4 of L2.
  EXPECT_LE((b.mTile + b.nTile) * 4 * b.kTile, large.l1DataBytes * 3 / 4);
  EXPECT_LE(b.kTile * b.nBlock * 4, large.l2Bytes / 4);
}
} // namespace
