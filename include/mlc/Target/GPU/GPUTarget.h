//===- GPUTarget.h - The NVIDIA GPU (NVPTX) backend -------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers loop-level IR through the GPU strategy's schedules, one-shot
// bufferization and the arena plan to one launch per loop nest, outlines
// the kernels into one gpu.module and compiles it to PTX with LLVM's NVPTX
// backend, in process (docs/GPU.md).
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_GPU_GPUTARGET_H
#define MLC_TARGET_GPU_GPUTARGET_H

#include "mlc/Target/TargetBackend.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlc::target {

/// Creates the GPU backend for `options` (gpuArch, cudaPath,
/// gpuHostEmulation; the CPU fields for the host code).
std::unique_ptr<TargetBackend> createGPUTargetBackend(TargetOptions options);

/// Registers what compiling for NVIDIA GPUs needs in a context: the NVVM
/// target attribute's serialization and the NVVM and GPU dialects' LLVM IR
/// translations.
void registerGPUTargetExtensions(mlir::DialectRegistry &registry);

/// The PTX ISA version (`+ptx80`) LLVM must write for `arch` (`sm_90a`),
/// or nothing for an architecture mlc does not know.
std::optional<std::string> getPTXFeatures(llvm::StringRef arch);

/// The CUDA toolkit directory to take libdevice, ptxas and fatbinary from:
/// `cudaPath` when given, else /usr/local/cuda; empty when it has no
/// `nvvm/libdevice/libdevice.10.bc`.
std::string findCUDAToolkit(llvm::StringRef cudaPath);

/// Whether `toolkit` (a findCUDAToolkit result) has ptxas and fatbinary.
bool hasCUDABinaryTools(llvm::StringRef toolkit);

} // namespace mlc::target

#endif // MLC_TARGET_GPU_GPUTARGET_H
