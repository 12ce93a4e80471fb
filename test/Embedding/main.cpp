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
// package. Given a model file, also compiles it in one call
// (mlc::compile) to an object in memory and prints what came back.
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/Compile.h"
#include "mlc/InitAll.h"
#include "mlc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
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
  if (argc < 2)
    return 0;

  mlc::compiler::CompileOptions options;
  options.compileTo = mlc::Phase::Object;
  options.modelName = "digits";
  options.importOptions.dimParams["batch"] = 1;
  llvm::Expected<mlc::compiler::Artifacts> artifacts =
      mlc::compile(mlc::ModelSource::fromFile(argv[1]), options);
  if (!artifacts) {
    llvm::errs() << llvm::toString(artifacts.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << "object: " << (artifacts->object.size() > 0 ? "yes" : "no")
               << ", files written: " << artifacts->files.size() << "\n";
  if (llvm::StringRef(artifacts->header).contains("int32_t digits_run("))
    llvm::outs() << "header declares digits_run\n";
  // A refused model is an error value with the diagnostics, not a crash.
  llvm::Expected<mlc::compiler::Artifacts> refused = mlc::compile(
      mlc::ModelSource::fromBuffer("not a model", "junk.onnx"), options);
  if (!refused)
    llvm::outs() << "refused: " << llvm::toString(refused.takeError()) << "\n";
  return 0;
}
