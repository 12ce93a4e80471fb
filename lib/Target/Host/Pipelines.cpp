//===- Pipelines.cpp - Pass sequences every host-driven backend shares ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/Pipelines.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

using namespace mlir;

void mlc::host::buildBufferizeModelPipeline(OpPassManager &pm,
                                            int64_t loopScratchBytes,
                                            bool cacheHeapBuffers) {
  pm.addPass(createHostPrepareModelABI());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createHostDynamicOutputs());
  pm.addPass(createHostSymbolicInputs());
  pm.addPass(createHostLowerAssertions());
  pm.addPass(createHostPlanArena(
      HostPlanArenaOptions{loopScratchBytes, cacheHeapBuffers}));
}
