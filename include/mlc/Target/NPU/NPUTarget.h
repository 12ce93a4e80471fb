//===- NPUTarget.h - The NPU backend ----------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_NPUTARGET_H
#define MLC_TARGET_NPU_NPUTARGET_H

#include "mlc/Target/TargetBackend.h"

#include <memory>

namespace mlc::target {

/// Creates the NPU backend for `options` (npuConfig, npuPlacementFile,
/// printPlacement; the CPU fields for the host code and the kernels the
/// NPU does not take).
std::unique_ptr<TargetBackend> createNPUTargetBackend(TargetOptions options);

/// The NPU's kernel pipeline: its placement, then the CPU's kernel
/// pipeline for what stays on the host.
void buildNPUKernelPipeline(mlir::OpPassManager &pm,
                            const TargetOptions &options);

/// Scheduled kernels to the LLVM dialect: the CPU's schedules applied,
/// bufferization and the arena, each NPU kernel to a command stream and a
/// launch through the runtime's launcher, then the CPU's way to LLVM.
void buildNPULoweringPipeline(mlir::OpPassManager &pm,
                              const TargetOptions &options);

} // namespace mlc::target

#endif // MLC_TARGET_NPU_NPUTARGET_H
