//===- LoopToGPUPipeline.h - Loop level to a GPU binary ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_GPU_LOOPTOGPUPIPELINE_H
#define MLC_TARGET_GPU_LOOPTOGPUPIPELINE_H

#include "mlc/Target/TargetBackend.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlc::target {

struct LoopToGPUPipelineOptions
    : mlir::PassPipelineOptions<LoopToGPUPipelineOptions> {
  Option<std::string> arch{
      *this, "gpu-arch",
      llvm::cl::desc("NVIDIA architecture: sm_80, sm_86, sm_89, sm_90, "
                     "sm_90a"),
      llvm::cl::init("sm_80")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit with libdevice (default /usr/local/cuda)")};
  Option<bool> hostEmulation{
      *this, "host-emulation",
      llvm::cl::desc("Blocks and threads as loops, compiled for the CPU"),
      llvm::cl::init(false)};
  Option<bool> printSchedules{
      *this, "print-schedules",
      llvm::cl::desc("Print each kernel's schedule to stdout"),
      llvm::cl::init(false)};

  /// The backend options these stand for.
  TargetOptions toTargetOptions() const;
};

/// Loop level to kernels with the GPU strategy's schedules.
void buildGPUKernelPipeline(mlir::OpPassManager &pm,
                            const TargetOptions &options);

/// Scheduled kernels to launches, outlined into one gpu.module and
/// compiled to PTX (a `gpu.binary`); with host emulation, to the CPU's
/// LLVM dialect instead.
void buildGPULoweringPipeline(mlir::OpPassManager &pm,
                              const TargetOptions &options);

} // namespace mlc::target

#endif // MLC_TARGET_GPU_LOOPTOGPUPIPELINE_H
