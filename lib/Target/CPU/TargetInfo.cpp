//===- TargetInfo.cpp - What the CPU schedule heuristic knows -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/TargetInfo.h"
#include "mlc/Target/CPU/CPUTarget.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unistd.h>

using namespace mlc::target;

namespace {
/// The host's cache size from the C library, or 0.
int64_t hostCacheBytes([[maybe_unused]] int name) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  long bytes = sysconf(name);
  return bytes > 0 ? bytes : 0;
#else
  return 0;
#endif
}
} // namespace

namespace {
void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
  });
}

llvm::Triple getTriple(const CPUTargetOptions &options) {
  return llvm::Triple(options.triple.empty()
                          ? llvm::sys::getDefaultTargetTriple()
                          : options.triple);
}

std::unique_ptr<llvm::MCSubtargetInfo>
createSubtarget(const llvm::Triple &triple, const ResolvedCPU &resolved) {
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(target->createMCSubtargetInfo(
      triple, resolved.cpu, resolved.features));
}
} // namespace

/// The CPU the build names for code without `--mcpu` (CMake's
/// MLC_DEFAULT_CPU, as GCC's `--with-arch`); empty: the host's CPU.
#ifndef MLC_DEFAULT_CPU
#define MLC_DEFAULT_CPU ""
#endif

namespace {
/// Whether `options` name the host's triple (or none).
bool targetsHostTriple(const CPUTargetOptions &options) {
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  return options.triple.empty() ||
         llvm::Triple(llvm::Triple::normalize(options.triple)) == host;
}
} // namespace

std::string mlc::target::defaultCPU(const CPUTargetOptions &options) {
  if (!options.cpu.empty())
    return options.cpu;
  if (llvm::StringRef(MLC_DEFAULT_CPU).empty() || !targetsHostTriple(options))
    return std::string();
  return MLC_DEFAULT_CPU;
}

bool mlc::target::compilesForHostCPU(const CPUTargetOptions &options) {
  std::string cpu = defaultCPU(options);
  if (cpu == "native")
    return true;
  if (!cpu.empty())
    return false;
  // No CPU named: the host's when the code is for the host's triple.
  return targetsHostTriple(options);
}

ResolvedCPU mlc::target::resolveCPU(const CPUTargetOptions &options) {
  initializeTargets();
  ResolvedCPU resolved;
  // `generic` is LLVM's default CPU for the triple (x86-64 without AVX).
  std::string cpu = defaultCPU(options);
  resolved.cpu = cpu == "generic" ? std::string() : cpu;
  llvm::SubtargetFeatures features;
  if (compilesForHostCPU(options)) {
    resolved.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.getKey(), feature.getValue());
  }
  // The user's features last: LLVM applies them in order.
  llvm::SubtargetFeatures user(options.features);
  for (const std::string &feature : user.getFeatures())
    features.AddFeature(feature);
  resolved.features = features.getString();
  return resolved;
}

CPUTargetInfo mlc::target::getCPUTargetInfo(const CPUTargetOptions &options) {
  CPUTargetInfo info;
  llvm::Triple triple = getTriple(options);
  info.arch = triple.getArchName().str();
  ResolvedCPU resolved = resolveCPU(options);
  bool native = compilesForHostCPU(options);
  info.cpu = resolved.cpu.empty() ? "generic" : resolved.cpu;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget =
      createSubtarget(triple, resolved);
  auto has = [&](llvm::StringRef feature) {
    return subtarget && subtarget->checkFeatures(("+" + feature).str());
  };
  if (triple.isX86()) {
    info.vectorRegisters = triple.isArch64Bit() ? 16 : 8;
    if (has("avx512f")) {
      // CPUs tuned to prefer 256-bit vectors (most Intel AVX-512 ones), or
      // given `--mattr=+prefer-256-bit`, get 512-bit types split in two by
      // LLVM; AVX-512VL still gives them 32 registers.
      info.vectorBits = has("prefer-256-bit") ? 256 : 512;
      if (has("avx512vl") || info.vectorBits == 512)
        info.vectorRegisters = 32;
    } else if (has("avx")) {
      info.vectorBits = 256;
    }
    if (info.vectorBits == 512 && has("avx512bw"))
      info.pairMultiplyAdd = "llvm.x86.avx512.pmaddw.d.512";
    else if (has("avx2"))
      info.pairMultiplyAdd = "llvm.x86.avx2.pmadd.wd";
  } else if (triple.isAArch64()) {
    info.vectorBits = 128;
    info.vectorRegisters = 32;
  }

  if (native) {
    int64_t l1 = 0, l2 = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    l1 = hostCacheBytes(_SC_LEVEL1_DCACHE_SIZE);
    l2 = hostCacheBytes(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (l1 > 0 && l2 > 0) {
      info.l1DataBytes = l1;
      info.l2Bytes = l2;
      info.cacheSource = "host";
    }
  }
  return info;
}

ContractionTiles
mlc::target::chooseContractionTiles(const CPUTargetInfo &info,
                                    int64_t maxColumns) {
  ContractionTiles tiles;
  int64_t lanes = std::max<int64_t>(1, info.lanes());
  int64_t registers = info.vectorRegisters;
  int64_t maxVectors = 4;
  if (maxColumns > 0)
    maxVectors = std::max<int64_t>(1, std::min(maxVectors, maxColumns / lanes));
  // Per step of k a tile of m rows by n vectors loads n vectors and
  // broadcasts m values (m + n loads) for m * n FMAs; at 2 FMAs and 2 loads
  // per cycle its FMA units are busy min(1, m * n / (m + n)) of the time.
  double bestBusy = 0;
  int64_t bestFmas = 0, bestRows = 1, bestVectors = 1;
  for (int64_t vectors = 1; vectors <= maxVectors; ++vectors) {
    for (int64_t rows = 1; rows <= 16; ++rows) {
      if (rows * vectors + vectors + 1 > registers)
        break;
      int64_t fmas = rows * vectors;
      double busy = std::min(1.0, double(fmas) / double(rows + vectors));
      // Better: busier (to 1%), then more FMAs per step, then fewer
      // columns (more rows share each loaded column vector).
      if (busy > bestBusy + 0.01 ||
          (busy > bestBusy - 0.01 && fmas > bestFmas)) {
        bestBusy = busy;
        bestFmas = fmas;
        bestRows = rows;
        bestVectors = vectors;
      }
    }
  }
  tiles.mTile = bestRows;
  tiles.nTile = bestVectors * lanes;
  // A tile one vector wide (a 16-float cache line with AVX-512) loads one
  // column vector and broadcasts m values per m FMAs: 17 loads per 16 FMAs
  // at 16 x 16, more than the load units keep up with beside the FMAs. Its
  // registers compute 8 x 32 instead (10 loads per 16 FMAs), while thread
  // chunks and cache blocks stay those of the line-wide tile: choosing them
  // for 32 columns made two threads slower (docs/CPU.md).
  if (maxColumns > 0 && bestVectors == 1 && bestRows >= 4 &&
      bestRows / 2 * 2 + 3 <= registers) {
    tiles.registerRows = bestRows / 2;
    tiles.registerColumns = 2 * lanes;
  }
  // The row micro-panel (m x k) and column micro-panel (k x n) in L1.
  int64_t perK = (tiles.mTile + tiles.nTile) * 4;
  tiles.kTile = std::max<int64_t>(64, (info.l1DataBytes * 3 / 4) / perK / 64 * 64);
  // A k x nBlock block of the right-hand side in L2.
  tiles.nBlock = std::max<int64_t>(
      tiles.nTile,
      (info.l2Bytes / 4) / (tiles.kTile * 4) / tiles.nTile * tiles.nTile);
  return tiles;
}

std::string mlc::target::describe(const CPUTargetInfo &info,
                                  const ContractionTiles &tiles,
                                  const ContractionTiles &unpacked) {
  return llvm::formatv(
      "{0} {1}: {2}-bit vectors ({3} f32 lanes), {4} vector registers, L1d "
      "{5} KiB, L2 {6} KiB ({7}) -> register tile {8} x {9}, k-tile {10}, "
      "n-block {11}; right-hand sides in rows: {12} x {13}, k-tile {14}, "
      "n-block {15}{16}",
      info.arch, info.cpu, info.vectorBits, info.lanes(), info.vectorRegisters,
      info.l1DataBytes / 1024, info.l2Bytes / 1024, info.cacheSource,
      tiles.mTile, tiles.nTile, tiles.kTile, tiles.nBlock, unpacked.mTile,
      unpacked.nTile, unpacked.kTile, unpacked.nBlock,
      unpacked.registerRows
          ? llvm::formatv(" (register tile {0} x {1})", unpacked.registerRows,
                          unpacked.registerColumns)
                .str()
          : std::string());
}
