//===- main.cpp - Embed mlc as a library ----------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parses a graph-dialect function, runs the graph optimize pipeline through
// the C++ API and prints the result: the smallest real use of the installed
// package.
//
//===----------------------------------------------------------------------===//

#include "mlc/InitAll.h"
#include "mlc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  mlc::registerEverything(registry);
  mlir::MLIRContext context(registry);
  const char *source = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<*xf32> {
      %0 = mlc_graph.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<*xf32>
      %1 = mlc_graph.relu %0 : (tensor<*xf32>) -> tensor<*xf32>
      return %1 : tensor<*xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  mlc::buildGraphOptimizePipeline(pm, mlc::GraphOptimizePipelineOptions());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
