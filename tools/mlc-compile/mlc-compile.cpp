//===- mlc-compile.cpp - Compile an ONNX model ----------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc-compile MODEL.onnx [--emit=input|graph] [-o OUT] [--shape NAME=AxB]
//             [--dim NAME=N] [--check-support]
//
//===----------------------------------------------------------------------===//

#include "mlc/Frontend/ONNX/Importer.h"
#include "mlc/InitAll.h"
#include "mlc/Pipelines/Pipelines.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Input, Graph };

cl::OptionCategory category("mlc-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Graph),
    cl::values(clEnumValN(Emit::Input, "input",
                          "graph dialect exactly as imported"),
               clEnumValN(Emit::Graph, "graph",
                          "graph dialect after canonicalization and shape "
                          "inference (default)")),
    cl::cat(category));
cl::opt<bool> emitBytecode("emit-bytecode",
                           cl::desc("Write MLIR bytecode instead of text"),
                           cl::cat(category));
cl::opt<bool> checkSupport(
    "check-support",
    cl::desc("Print which ops the model uses and which are unsupported; "
             "compile nothing"),
    cl::cat(category));
cl::list<std::string> shapes(
    "shape", cl::desc("Pin an input's shape, e.g. --shape image=1x3x224x224 "
                      "(? keeps a dim dynamic); repeatable"),
    cl::value_desc("name=shape"), cl::cat(category));
cl::list<std::string> dims(
    "dim", cl::desc("Give a symbolic dim a value, e.g. --dim batch=1; "
                    "repeatable"),
    cl::value_desc("name=N"), cl::cat(category));
cl::opt<std::string> functionName("function-name",
                                  cl::desc("Name of the generated function"),
                                  cl::init("main"), cl::cat(category));

int run(MLIRContext &context) {
  if (checkSupport)
    return succeeded(mlc::onnx_import::writeSupportReport(inputFile, &context,
                                                          llvm::outs()))
               ? 0
               : 1;

  mlc::onnx_import::ImportOptions options;
  options.functionName = functionName;
  std::string error;
  for (const std::string &spec : shapes)
    if (failed(mlc::onnx_import::parseShapeOverride(spec, options, error))) {
      llvm::errs() << "mlc-compile: error: --shape: " << error << "\n";
      return 1;
    }
  for (const std::string &spec : dims)
    if (failed(mlc::onnx_import::parseDimOverride(spec, options, error))) {
      llvm::errs() << "mlc-compile: error: --dim: " << error << "\n";
      return 1;
    }

  OwningOpRef<ModuleOp> module =
      mlc::onnx_import::importModelFile(inputFile, &context, options);
  if (!module || failed(verify(*module)))
    return 1;
  if (emit == Emit::Graph) {
    PassManager pm(&context);
    mlc::buildGraphOptimizePipeline(pm, mlc::GraphOptimizePipelineOptions());
    if (failed(pm.run(*module)))
      return 1;
  }

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "mlc-compile: error: " << error << "\n";
    return 1;
  }
  if (emitBytecode) {
    if (failed(writeBytecodeToFile(*module, output->os())))
      return 1;
  } else {
    module->print(output->os());
  }
  output->keep();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "mlc-compile: ONNX model -> graph dialect\n");
  DialectRegistry registry;
  mlc::registerEverything(registry);
  MLIRContext context(registry);
  // Diagnostics carry the model file, node and op in their text; print a
  // location only when it says more than that.
  context.getDiagEngine().registerHandler([](Diagnostic &diag) {
    auto print = [](Diagnostic &d) {
      llvm::errs() << "mlc-compile: ";
      if (!isa<UnknownLoc>(d.getLocation()))
        llvm::errs() << d.getLocation() << ": ";
      switch (d.getSeverity()) {
      case DiagnosticSeverity::Error:
        llvm::errs() << "error: ";
        break;
      case DiagnosticSeverity::Warning:
        llvm::errs() << "warning: ";
        break;
      default:
        llvm::errs() << "note: ";
        break;
      }
      llvm::errs() << d.str() << "\n";
    };
    print(diag);
    for (Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
  return run(context);
}
