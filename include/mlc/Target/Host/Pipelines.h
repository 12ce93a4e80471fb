//===- Pipelines.h - Pass sequences every host-driven backend shares -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_PIPELINES_H
#define MLC_TARGET_HOST_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <cstdint>

namespace mlc::host {

/// Model functions on tensors to buffers in one arena: the model ABI
/// recorded (mlc-host-prepare-model-abi), one-shot bufferization with
/// results written into destination arguments, and the static memory plan
/// (mlc-host-plan-arena), which leaves loop-local buffers of at most
/// `loopScratchBytes` to the backend; with `cacheHeapBuffers`, buffers of
/// run-time size come from a cache in the arena (BufferCache.h).
void buildBufferizeModelPipeline(mlir::OpPassManager &pm,
                                 int64_t loopScratchBytes,
                                 bool cacheHeapBuffers = false);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_PIPELINES_H
