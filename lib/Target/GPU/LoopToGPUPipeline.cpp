//===- LoopToGPUPipeline.cpp - Loop level to a GPU binary -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GPU target's passes: the shared kernel formation with the GPU
// strategy, the shared bufferization and arena, one launch per loop nest,
// then upstream's outlining, NVVM conversion and serialization to PTX.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/GPU/LoopToGPUPipeline.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Target/CPU/LoopToCPUPipeline.h"
#include "mlc/Target/GPU/GPUTarget.h"
#include "mlc/Target/GPU/Passes.h"
#include "mlc/Target/Host/Passes.h"
#include "mlc/Target/Host/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

TargetOptions LoopToGPUPipelineOptions::toTargetOptions() const {
  TargetOptions options;
  options.gpuArch = arch;
  options.cudaPath = cudaPath;
  options.gpuHostEmulation = hostEmulation;
  options.printSchedules = printSchedules;
  return options;
}

/// Threads per block of every launch: a multiple of the warp (32) that
/// leaves an SM room for several blocks; tuned on no card yet.
constexpr int64_t kThreadsPerBlock = 256;

/// The largest scratch buffer of a sequential loop (a recurrence's step)
/// that goes on the stack of the one thread running it, not in the arena.
constexpr int64_t kMaxThreadScratchBytes = 16384;

/// The one gpu.module every kernel is outlined into.
constexpr llvm::StringLiteral kKernelModule = "mlc_kernels";

void mlc::target::buildGPUKernelPipeline(OpPassManager &pm,
                                         const TargetOptions &options) {
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(loop::createLoopFoldWeightTransposes());
  loops.addPass(loop::createLoopFuseElementwise());
  loops.addPass(loop::createLoopFormKernels());
  GPUSetSchedulesOptions schedules;
  schedules.printSchedules = options.printSchedules;
  schedules.registerRows = options.gpuRegisterRows;
  schedules.registerCols = options.gpuRegisterCols;
  loops.addPass(createGPUSetSchedules(schedules));
  loops.addPass(loop::createLoopVerifyKernels());
}

void mlc::target::buildGPULoweringPipeline(OpPassManager &pm,
                                           const TargetOptions &options) {
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(loop::createLoopDissolveKernels());
  loops.addPass(host::createHostFlattenConstants());
  host::buildBufferizeModelPipeline(pm, kMaxThreadScratchBytes);

  GPUMapToLaunchesOptions launches;
  launches.threadsPerBlock = kThreadsPerBlock;
  launches.emulate = options.gpuHostEmulation;
  launches.moduleName = kKernelModule.str();
  if (options.gpuHostEmulation) {
    // The same launches as loops, and the CPU's way to an object.
    pm.nest<func::FuncOp>().addPass(createGPUMapToLaunches(launches));
    buildCPUBuffersToLLVMPipeline(pm, options);
    return;
  }
  // The kernels read the weights from device memory.
  pm.addPass(host::createHostExternalizeWeights(
      host::HostExternalizeWeightsOptions{
          options.weightsFile.empty() ? "weights.bin" : options.weightsFile}));
  pm.nest<func::FuncOp>().addPass(createGPUMapToLaunches(launches));
  pm.addPass(createGpuKernelOutliningPass());

  // Inside the kernels (the folding of a rewrite before outlining would
  // hoist their constants out, to be passed as arguments). What a thread
  // runs alone (a sequential loop) may still hold linalg ops.
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertLinalgToLoopsPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createReconcileUnrealizedCastsPass());

  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.gpuArch;
  attach.features = getPTXFeatures(options.gpuArch).value_or("");
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  // A fatbin of the architecture's cubin and the PTX when CUDA's ptxas and
  // fatbinary are there (no compilation when the model is loaded, and the
  // PTX for newer GPUs); else the PTX alone, which the driver compiles.
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = findCUDAToolkit(options.cudaPath);
  binary.compilationTarget =
      !options.assembly && hasCUDABinaryTools(binary.toolkitPath) ? "fatbin"
                                                                  : "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));

  // The host code: launches through the runtime's launcher, then the CPU's
  // way to an object (the weights are out already).
  pm.addPass(createGPULowerLaunches(
      GPULowerLaunchesOptions{options.gpuArch, options.sharedLibrary}));
  TargetOptions hostOptions = options;
  hostOptions.weightsFile.clear();
  hostOptions.parallel = false;
  hostOptions.profile = false;
  buildCPUBuffersToLLVMPipeline(pm, hostOptions);
}
