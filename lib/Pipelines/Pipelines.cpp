//===- Pipelines.cpp - mlc's named pass pipelines -------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Pipelines/Pipelines.h"

#include "mlc/Dialect/Graph/Transforms/Passes.h"
#include "mlc/Conversion/Passes.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Target/CPU/LoopToCPUPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::optional<mlc::Phase> mlc::parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("input", Phase::Input)
      .Case("graph", Phase::Graph)
      .Case("loop", Phase::Loop)
      .Case("kernels", Phase::Kernels)
      .Case("llvm", Phase::LLVM)
      .Case("object", Phase::Object)
      .Default(std::nullopt);
}

llvm::StringRef mlc::getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Input:
    return "input";
  case Phase::Graph:
    return "graph";
  case Phase::Loop:
    return "loop";
  case Phase::Kernels:
    return "kernels";
  case Phase::LLVM:
    return "llvm";
  case Phase::Object:
    return "object";
  }
  llvm_unreachable("unknown phase");
}

void mlc::buildGraphOptimizePipeline(
    OpPassManager &pm, const GraphOptimizePipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  if (options.inferShapes && options.separateBatch)
    pm.addPass(graph::createGraphSeparateBatch(
        graph::GraphSeparateBatchOptions{options.strictBatch,
                                         options.keepBatch,
                                         options.dynamicDims}));
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  if (options.inferShapes) {
    funcPm.addPass(graph::createGraphInferShapes());
    if (options.computeHalfInF32)
      funcPm.addPass(graph::createGraphComputeHalfInF32());
    funcPm.addPass(graph::createGraphFoldChannelScales());
  }
  funcPm.addPass(createCanonicalizerPass());
  funcPm.addPass(createCSEPass());
  pm.addPass(graph::createGraphCheckLimits(
      graph::GraphCheckLimitsOptions{options.maxTensorBytes}));
}

void mlc::buildGraphToLoopPipeline(OpPassManager &pm,
                                   const GraphToLoopPipelineOptions &) {
  pm.addNestedPass<func::FuncOp>(createConvertGraphToLoop());
  pm.addPass(loop::createLoopVerifyContract());
}

void mlc::registerMLCPipelines() {
  PassPipelineRegistration<target::LoopToCPUPipelineOptions>(
      "mlc-loop-to-cpu-pipeline",
      "Loop level (linalg on tensors) to the LLVM dialect for the CPU target",
      [](OpPassManager &pm, const target::LoopToCPUPipelineOptions &options) {
        target::buildLoopToCPUPipeline(pm, options.toTargetOptions());
      });
  PassPipelineRegistration<target::LoopToCPUPipelineOptions>(
      "mlc-cpu-loop-to-kernels-pipeline",
      "Loop level to kernels with the CPU strategy's schedules",
      [](OpPassManager &pm, const target::LoopToCPUPipelineOptions &options) {
        target::buildCPUKernelPipeline(pm, options.toTargetOptions());
      });
  PassPipelineRegistration<target::LoopToCPUPipelineOptions>(
      "mlc-cpu-kernels-to-llvm-pipeline",
      "Scheduled kernels to the LLVM dialect for the CPU target",
      [](OpPassManager &pm, const target::LoopToCPUPipelineOptions &options) {
        target::buildCPULoweringPipeline(pm, options.toTargetOptions());
      });
  PassPipelineRegistration<GraphToLoopPipelineOptions>(
      "mlc-graph-to-loop-pipeline",
      "Graph level (after mlc-graph-optimize-pipeline) to the loop level: "
      "linalg, tensor, arith, math and scf on tensors",
      buildGraphToLoopPipeline);
  PassPipelineRegistration<GraphOptimizePipelineOptions>(
      "mlc-graph-optimize-pipeline",
      "Graph-level cleanup: canonicalize, infer shapes, fold channel scales "
      "into convolution weights, CSE, check tensor sizes",
      buildGraphOptimizePipeline);
}
