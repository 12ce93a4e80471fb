//===- GraphFuzzer.cpp - Imported models through the graph level ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the importer accepts goes on through shape inference, constant
// folding, canonicalization and the limits (mlc-graph-optimize-pipeline),
// and, when every input is static, the conversion to the loop level.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlc::fuzz::FuzzContext fuzz;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlc::fuzz::importFuzzInput(fuzz.context, data, size);
  if (!module)
    return 0;
  mlir::PassManager pm(&fuzz.context, mlir::ModuleOp::getOperationName());
  mlc::buildGraphOptimizePipeline(pm, mlc::GraphOptimizePipelineOptions());
  bool staticInputs = true;
  for (auto func : module->getOps<mlir::func::FuncOp>())
    for (mlir::Type type : func.getArgumentTypes())
      if (auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type))
        staticInputs &= tensor.hasStaticShape();
      else
        staticInputs = false;
  if (staticInputs)
    mlc::buildGraphToLoopPipeline(pm, mlc::GraphToLoopPipelineOptions());
  (void)pm.run(*module);
  return 0;
}
