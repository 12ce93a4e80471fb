//===- NPUTarget.cpp - The NPU backend ------------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The NPU target is the CPU target with a placement in front: matmuls the
// NPU takes become mlc_npu.matmul before the CPU strategy sees the loop
// level, ride through bufferization and the arena plan like any kernel, and
// become command streams launched through the runtime; everything else is
// the CPU's code in the same object.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/NPUTarget.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/NPU/Transforms/Passes.h"
#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/CPU/LoopToCPUPipeline.h"
#include "mlc/Target/CPU/TargetInfo.h"
#include "mlc/Target/Host/Passes.h"
#include "mlc/Target/Host/Pipelines.h"
#include "mlc/Target/NPU/Passes.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
/// The CPU's f32 matmul rate placement compares the NPU with: the vector
/// unit's peak, two FMA units of `lanes` f32 each at 3 GHz (an AMD Zen 3 with
/// AVX2 measured 101 GFLOP/s at its FMA peak; mlc's own matmuls reach
/// 80-90% of it single-threaded).
double getCPUGflops(const TargetOptions &options) {
  return double(getCPUTargetInfo(options).lanes()) * 2 * 2 * 3.0;
}

class NPUTargetBackend final : public TargetBackend {
public:
  explicit NPUTargetBackend(TargetOptions options)
      : options(std::move(options)) {
    host = createCPUTargetBackend(this->options);
  }

  StringRef getName() const override { return "npu"; }

  StringRef getDescription() const override {
    return "mlc's NPU (--npu-config) with the CPU for what it does not take";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    host->getDependentDialects(registry);
    registry.insert<npu::NPUDialect>();
  }

  void buildKernelPipeline(OpPassManager &pm) const override {
    buildNPUKernelPipeline(pm, options);
  }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    buildNPULoweringPipeline(pm, options);
  }

  LogicalResult serialize(ModuleOp module,
                          llvm::raw_pwrite_stream &os) const override {
    return host->serialize(module, os);
  }

private:
  TargetOptions options;
  std::unique_ptr<TargetBackend> host;
};
} // namespace

void mlc::target::buildNPUKernelPipeline(OpPassManager &pm,
                                         const TargetOptions &options) {
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(loop::createLoopFoldWeightTransposes());
  NPUPlaceKernelsOptions place;
  place.npu = options.npuConfig;
  place.placementFile = options.npuPlacementFile;
  place.printPlacement = options.printPlacement;
  place.cpuGflops = getCPUGflops(options);
  place.floatKernels = options.npuFloat;
  loops.addPass(createNPUPlaceKernels(place));
  buildCPUKernelPipeline(pm, options);
}

void mlc::target::buildNPULoweringPipeline(OpPassManager &pm,
                                           const TargetOptions &options) {
  buildCPUScheduledKernelsPipeline(pm, options);
  host::buildBufferizeModelPipeline(pm, kMaxStackScratchBytes);
  // External weights become an argument before the launcher does, as the
  // entry points expect (launcher, weights, arena, ...).
  if (!options.weightsFile.empty())
    pm.addPass(host::createHostExternalizeWeights(
        host::HostExternalizeWeightsOptions{options.weightsFile}));
  pm.addPass(createNPULowerKernels());
  pm.addPass(npu::createNPUSerialize());
  pm.addPass(createNPULowerLaunches(
      NPULowerLaunchesOptions{options.npuConfig, options.sharedLibrary}));
  TargetOptions hostOptions = options;
  hostOptions.weightsFile.clear();
  buildCPUBuffersToLLVMPipeline(pm, hostOptions);
}

std::unique_ptr<TargetBackend>
mlc::target::createNPUTargetBackend(TargetOptions options) {
  return std::make_unique<NPUTargetBackend>(std::move(options));
}
