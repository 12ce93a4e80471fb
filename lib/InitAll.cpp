//===- InitAll.cpp - Register everything mlc provides ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/InitAll.h"

#include "mlc/Conversion/Passes.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/NPU/IR/NPUOps.h"
#include "mlc/Dialect/NPU/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlc/Dialect/NPU/Transforms/Passes.h"
#include "mlc/Pipelines/Pipelines.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/GPU/GPUTarget.h"
#include "mlc/Target/GPU/Passes.h"
#include "mlc/Target/Host/Passes.h"
#include "mlc/Target/NPU/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

#include <mutex>

void mlc::registerAllMLCDialects(mlir::DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, loop::LoopDialect, npu::NPUDialect>();
  npu::registerBufferizableOpInterfaceExternalModels(registry);
}

void mlc::registerAllMLCPasses() {
  graph::registerGraphPasses();
  registerConversionPasses();
  loop::registerLoopPasses();
  npu::registerNPUPasses();
  host::registerHostPasses();
  target::registerCPUPasses();
  target::registerGPUPasses();
  target::registerNPUPasses();
}

void mlc::registerAllMLCPipelines() { registerMLCPipelines(); }

void mlc::registerEverything(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllMLCDialects(registry);
  target::registerGPUTargetExtensions(registry);
  // The pass registries are global: fill them once.
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    registerAllMLCPasses();
    registerAllMLCPipelines();
  });
}
