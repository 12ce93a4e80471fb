//===- LoopToCPUPipeline.h - Loop level to the LLVM dialect -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The CPU backend's lowering pipeline, `mlc-loop-to-cpu-pipeline`: from
// loop-level IR (linalg on tensors) to the LLVM dialect that
// CPUTargetBackend::serialize turns into machine code. Its options are
// typed; the pipeline is built from pass constructors, so that
// `mlc-compile --print-pipeline` prints exactly what runs and `mlc-opt`
// can replay it.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_CPU_LOOPTOCPUPIPELINE_H
#define MLC_TARGET_CPU_LOOPTOCPUPIPELINE_H

#include "mlc/Target/CPU/CPUTarget.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlc::target {

/// Options of `mlc-loop-to-cpu-pipeline`, the command-line face of
/// CPUTargetOptions.
struct LoopToCPUPipelineOptions
    : mlir::PassPipelineOptions<LoopToCPUPipelineOptions> {
  Option<std::string> triple{
      *this, "mtriple",
      llvm::cl::desc("LLVM target triple (default: the host's)")};
  Option<std::string> cpu{
      *this, "mcpu",
      llvm::cl::desc("CPU name; default: the host's CPU and features when "
                     "the triple is the host's, else 'generic' (the "
                     "triple's baseline)")};
  Option<std::string> features{
      *this, "mattr",
      llvm::cl::desc("Features to add or remove, as LLVM spells them "
                     "(+avx2,-avx512f)")};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Large kernels run on threads through OpenMP"),
      llvm::cl::init(false)};
  Option<bool> sharedLibrary{
      *this, "shared-library",
      llvm::cl::desc("Also export the fixed entry-point names that loaders "
                     "of shared libraries look up"),
      llvm::cl::init(false)};
  Option<std::string> weightsFile{
      *this, "weights-file",
      llvm::cl::desc("Move the weights out of the object, into a file of "
                     "this name (empty: embedded)")};
  Option<std::string> scheduleFile{
      *this, "schedule-file",
      llvm::cl::desc("Schedules that replace the heuristic's for the "
                     "kernels they name")};
  Option<bool> printSchedules{
      *this, "print-schedules",
      llvm::cl::desc("Print each kernel's schedule to stdout"),
      llvm::cl::init(false)};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Time each kernel call (mlc-host-instrument-kernels)"),
      llvm::cl::init(false)};

  /// The backend options these stand for.
  CPUTargetOptions toTargetOptions() const;
};

/// Loop level to kernels (`mlc-cpu-loop-to-kernels-pipeline`): the
/// target-independent loop rewrites, the CPU's layout choices (packed
/// weights, convolutions as im2col contractions), kernel formation and the
/// CPU strategy, which leaves a #mlc_loop.schedule on each kernel it
/// schedules (tiles from the CPU's description).
void buildCPUKernelPipeline(mlir::OpPassManager &pm,
                            const CPUTargetOptions &options);

/// Kernels to the LLVM dialect (`mlc-cpu-kernels-to-llvm-pipeline`): the
/// schedules applied (tiling and vectorization), the model ABI, one-shot
/// bufferization with results written into destination arguments, the
/// static arena plan, kernel outlining, OpenMP for thread-level loops and
/// the upstream conversions to LLVM.
void buildCPULoweringPipeline(mlir::OpPassManager &pm,
                              const CPUTargetOptions &options);

/// The part of buildCPULoweringPipeline before bufferization: the
/// kernels' schedules applied on tensors.
void buildCPUScheduledKernelsPipeline(mlir::OpPassManager &pm,
                                      const CPUTargetOptions &options);

/// The part of buildCPULoweringPipeline after the arena plan: buffers
/// (with the model ABI) to the LLVM dialect and the C entry points. The GPU
/// target's host emulation ends with it.
void buildCPUBuffersToLLVMPipeline(mlir::OpPassManager &pm,
                                   const CPUTargetOptions &options);

/// Both: loop level to the LLVM dialect (`mlc-loop-to-cpu-pipeline`).
void buildLoopToCPUPipeline(mlir::OpPassManager &pm,
                            const CPUTargetOptions &options);

} // namespace mlc::target

#endif // MLC_TARGET_CPU_LOOPTOCPUPIPELINE_H
