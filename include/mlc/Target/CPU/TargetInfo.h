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
// `mlc-loop-pack-weights` use (per-kernel overrides: --schedules).
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
  /// The LLVM intrinsic that multiplies adjacent i16 pairs into i32 lanes
  /// for integer contractions (x86's vpmaddwd at the vector width), or
  /// empty where generic vector code does it.
  std::string pairMultiplyAdd;

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

/// The CPU `options` name: `--mcpu`, else the build's default CPU
/// (CMake's MLC_DEFAULT_CPU) for the host's triple, else empty (the host's).
std::string defaultCPU(const CPUTargetOptions &options);

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

//===----------------------------------------------------------------------===//
// Tuned constants
//
// Thresholds of the CPU strategy and code generator, each measured on the
// machine its comment names (Zen 3: AVX2, 512 KiB L2; Zen 4 and 5: AVX-512,
// 1 MiB L2; two cores). They are not derived from the description above;
// retune them on a different machine before trusting them there.
//===----------------------------------------------------------------------===//

// Contractions: threads.

/// Contractions below this many floating-point operations stay on one
/// thread: forking costs a few microseconds. (2 MFLOP before; 1 MFLOP and a
/// quarter of the element threshold below took MobileNetV3-small at two
/// threads 2.62 -> 2.45 ms and MobileNetV2 8.32 -> 7.85 ms; at 0.5 MFLOP
/// the MLP's 0.8 MFLOP matrix-vector product forked and got slower.)
constexpr int64_t kMinParallelFlops = int64_t(1) << 20;

// Contractions: chunks and cache blocks (ContractionStrategy.cpp).

/// The extent a strategy assumes for a loop whose range is known only at
/// run time: large enough that its tiles, blocks and thread chunks are
/// those of a large static loop (a 64 x 64 map's pixels, a batch of
/// sequences). The loop is tiled with them, its last tile of each level
/// peeled off, so a smaller size only runs fewer of them.
constexpr int64_t kNominalDynamicRange = 4096;

/// Column chunks of a contraction's threads are at least this many
/// register tiles wide where a wider size divides the columns.
constexpr int64_t kMinChunkTiles = 4;

/// Contractions with packed weights and at most this many rows stream the
/// weights one panel at a time (see scheduleContraction).
constexpr int64_t kMaxStreamedRows = 256;

/// Work an im2col contraction's chunks of whole output rows may lose to
/// narrower register tiles and odd chunk counts (see chooseRowChunk) before
/// its gather stays whole. The alternative is costly at two threads: the
/// whole matrix, nine times the input, written by one core and read by
/// both. At 2% SqueezeNet's 55x55 and 111x111 convolutions (275- and
/// 333-column chunks, 6-13% lost to 3- and 13-column tiles and odd counts)
/// and ResNet's 28x28 ones (7 chunks of 112) kept whole gathers and split
/// output channels; at 20% they gather per chunk: SqueezeNet 1.1 at two
/// threads 5.03 -> 4.33 ms, ResNet-18 14.9 -> 14.5 ms, ResNet-50 32.8 ->
/// 32.3 ms, one thread unchanged (Zen 5, four interleaved rounds). At 50%
/// the 27x27 ones take 9 chunks of 81 columns too: two threads no faster,
/// one thread 5% slower.
constexpr double kMaxRowChunkLoss = 0.2;

// Other loop nests: threads (LoopNestStrategy.cpp).

/// Loop nests of fewer iterations than this stay on the calling thread: an
/// OpenMP fork and join costs 2-3 us, more than an elementwise op over a
/// few thousand floats takes. (2048 before: at two threads MobileNetV3-small
/// 0.62 -> 0.60 ms, MobileNetV2 2.17 -> 2.14 ms, EfficientNet-B0 3.53 ->
/// 3.50 ms with 16384; 32768 no better; Zen 5, five interleaved rounds.)
constexpr int64_t kMinParallelElements = int64_t(1) << 14;

/// Chunk counts a loop nest that no 8, 4 or 2 chunks divide takes at the
/// least: with 9 or more, the thread with the odd chunk does at most 11%
/// more than its share (of two threads).
constexpr int64_t kMinOddChunks = 9;

// Small convolutions as matmuls (ChooseLayouts.cpp).

/// Which convolutions become matmuls (measured on Zen 5, one thread,
/// convolution + bias + ReLU, medians of 100-200 runs):
/// - 1x1 on maps of at most 64 pixels (7x7), any depth: 512 -> 2048 0.85 ->
///   0.61 ms, 2048 -> 512 0.82 -> 0.63 ms, 960 -> 160 0.110 -> 0.090 ms.
/// - any filter on maps of at most 196 pixels (14x14) with reductions at
///   least 256 deep: 3x3 256 -> 256 on 14x14 1.10 -> 0.94 ms, 512 -> 512 on
///   7x7 1.34 -> 0.92 ms, 1x1 1024 -> 256 on 14x14 0.49 -> 0.43 ms. With
///   shallower reductions the result's transpose costs more than the
///   contraction saves (1x1 96 -> 576 on 14x14: 0.105 -> 0.107-0.128 ms).
///   Larger maps stay convolutions: on 27x27 and 56x56 the matmul form is
///   slower (3x3 32 -> 128 on 27x27 0.23 -> 0.27 ms), on 28x28 no faster
///   than the convolution with its thread chunks of at least four register
///   tiles, and a convolution's threads split pixels, each gathering its
///   own (Im2colChunkGathers.h), where a matmul's split output channels.
constexpr int64_t kMaxPointwisePixels = 64;

constexpr int64_t kMaxPixels = 196;

constexpr int64_t kMinDepth = 256;

// Depthwise convolutions computed channels-last (ChooseLayouts.cpp).

/// Which depthwise convolutions are computed channels-last (measured on
/// Zen 5, 16 lanes, one thread, four blocks of 1x1 expansion + ReLU6,
/// depthwise + ReLU6, 1x1 projection, NCHW -> channels-last ms):
/// - rows that fill at most half a vector: 7x7 3x3 960 channels 0.61 ->
///   0.54, 5x5 0.745 -> 0.60;
/// - rows narrower than two vectors with windows of at least 25 taps on
///   maps of at most 196 pixels: 14x14 5x5 480 channels 0.90 -> 0.84. With
///   3x3 windows the transposes cost more than the taps save (14x14 384
///   channels 0.433 -> 0.447), and on 28x28 maps even with 5x5 (240
///   channels 1.02 -> 1.06; 3x3 192 channels 0.53 -> 0.60).
constexpr int64_t kMinWideTaps = 25;

constexpr int64_t kMaxWidePixels = 196;

// Stride-2 windows split in registers (Stride2WindowsInRegisters.cpp).

/// Fewest output elements for which the planes are split among threads
/// (fewer than for the tiling pass's other loop nests: each output element
/// here takes a whole window of loads and shuffles).
constexpr int64_t kMinParallelWindowElements = int64_t(1) << 11;

// Tiling and vectorization (ScheduleTiling.h, VectorizeRegisterTiles.cpp).

/// Reductions shallower than this read their right-hand side in place:
/// packing a block costs a pass over it that the register tiles of a short
/// reduction do not win back.
constexpr int64_t kMinPackedDepth = 64;

/// Elementwise loop nests whose innermost loop is shorter than this run
/// over their two innermost dims as one loop (CollapseElementwiseRows.h).
constexpr int64_t kLongRow = 256;

} // namespace mlc::target

#endif // MLC_TARGET_CPU_TARGETINFO_H
