//===- TargetInfo.h - What the CPU schedule heuristic knows -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The few facts about a CPU that decide how contractions are tiled: vector
// width, vector register count and data cache sizes, read from LLVM's
// description of the target (triple, CPU, features) and, for `native`,
// from the host. chooseContractionTiles() turns them into the default
// register and cache tiles that `mlc-cpu-tile-and-vectorize` and
// `mlc-cpu-pack-weights` use (per-kernel overrides: --schedules).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_CPU_TARGETINFO_H
#define MLC_TARGET_CPU_TARGETINFO_H

#include <cstdint>
#include <string>

namespace mlc::target {

struct TargetOptions;
using CPUTargetOptions = TargetOptions;

/// The vector unit and caches of a CPU.
struct CPUTargetInfo {
  /// Architecture name as LLVM spells it (x86_64, aarch64).
  std::string arch;
  /// CPU name (generic when none was asked for).
  std::string cpu;
  /// Width of the widest vector register usable for f32 arithmetic.
  unsigned vectorBits = 128;
  /// Number of such registers.
  unsigned vectorRegisters = 16;
  /// Per-core level 1 data and level 2 cache sizes.
  int64_t l1DataBytes = 32 * 1024;
  int64_t l2Bytes = 512 * 1024;
  /// Where the cache sizes come from: "host" or "default".
  std::string cacheSource = "default";

  /// f32 lanes per vector register.
  int64_t lanes() const { return vectorBits / 32; }
};

/// The heuristic's tiles for an f32 contraction on that CPU.
struct ContractionTiles {
  /// Register tile: rows and columns of the result (columns are whole
  /// vectors and the width of packed weight panels).
  int64_t mTile = 6;
  int64_t nTile = 16;
  /// Cache tile: reduction depth and result columns.
  int64_t kTile = 256;
  int64_t nBlock = 128;
  /// When nonzero, the register tile actually computed, with `mTile` x
  /// `nTile` left to size thread chunks and cache blocks.
  int64_t registerRows = 0;
  int64_t registerColumns = 0;
};

/// Whether `options` compile for the CPU of the machine running the
/// compiler: cpu `native`, or no cpu and the host's triple (or none).
bool compilesForHostCPU(const CPUTargetOptions &options);

/// The LLVM CPU name and feature string that `options` compile for: the
/// host's CPU and features when compilesForHostCPU(), cpu `generic` the
/// triple's baseline. One resolution for the
/// tiling heuristic and the TargetMachine, so both see the same vectors.
struct ResolvedCPU {
  std::string cpu;
  std::string features;
};
ResolvedCPU resolveCPU(const CPUTargetOptions &options);

/// The CPU that `options` (triple, cpu, features; for the host's CPU its
/// features and cache sizes) compiles for. An unknown triple
/// gives generic 128-bit values (the backend reports the triple itself).
CPUTargetInfo getCPUTargetInfo(const CPUTargetOptions &options);

/// Register tile: the rows x vector columns whose accumulators, column
/// loads and row broadcast fit the registers and that keep the FMA units
/// busiest per load (2 FMAs and 2 loads per cycle), the larger tile on a
/// tie (AVX2: 6 x 16, AVX-512 at 256 bits: 14 x 16, at 512 bits: 14 x 32,
/// NEON: 14 x 8). Cache tile: the
/// deepest k (a multiple of 64) whose row and column micro-panels fill at
/// most 3/4 of L1, and the widest column block (a multiple of the register
/// tile) whose k x columns block of the right-hand side fills at most 1/4
/// of L2.
/// With `maxColumns`, register tiles are at most that many columns wide (a
/// right-hand side read in rows: one cache line per step of k).
ContractionTiles chooseContractionTiles(const CPUTargetInfo &info,
                                        int64_t maxColumns = 0);

/// Loop-local scratch buffers up to this size (a cache block of a packed
/// right-hand side is 64-128 KiB) live on the stack of the thread that runs
/// the loop body (`mlc-cpu-stack-scratch`), not in the arena; im2col chunks
/// are sized to fit it. Chosen for Zen 3/4/5 (512 KiB-1 MiB L2 per core):
/// a chunk stays in the thread's L2.
constexpr int64_t kMaxStackScratchBytes = int64_t(512) << 10;

/// Output rows per register tile of a sliding window (depthwise
/// convolution, pooling) with unit strides: independent accumulator rows
/// that hide the latency of the window's chain of adds.
constexpr int64_t kWindowRows = 4;

/// Columns of f32 in a cache line: the widest register tile of a
/// contraction whose right-hand side is read in rows rather than in packed
/// panels (activations, im2col matrices), so that each step of its
/// reduction loads one line.
constexpr int64_t kCacheLineFloats = 64 / 4;

/// One line for --print-schedules: the CPU, what the heuristic read and
/// the tiles it chose for packed weights and for right-hand sides read in
/// rows.
std::string describe(const CPUTargetInfo &info, const ContractionTiles &tiles,
                     const ContractionTiles &unpacked);

} // namespace mlc::target

#endif // MLC_TARGET_CPU_TARGETINFO_H
