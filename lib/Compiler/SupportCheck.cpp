//===- SupportCheck.cpp - Whether a model compiles for a target -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/Compile.h"
#include "NodeNames.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlc;

LogicalResult mlc::checkSupport(StringRef path,
                                compiler::CompileOptions options,
                                MLIRContext &context, llvm::raw_ostream &os) {
  if (failed(onnx_import::writeSupportReport(path, &context, os))) {
    os << "summary: not supported (ops the importer does not convert)\n";
    return failure();
  }
  // The importer converts every op: compile to the target's LLVM dialect in
  // memory, at the shapes given and with any other unknown input dim 1, and
  // list what the lowering refuses.
  options.compileTo = Phase::LLVM;
  options.outputFile.clear();
  options.printMemoryPlan = false;
  if (options.importOptions.defaultDim < 0)
    options.importOptions.defaultDim = 1;
  std::vector<std::string> errors;
  CompileHooks hooks;
  hooks.context = &context;
  hooks.onDiagnostic = [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
      return;
    std::string node = compiler::getNodeName(diagnostic.getLocation());
    errors.push_back((node.empty() ? "" : "node '" + node + "': ") +
                     diagnostic.str());
  };
  llvm::Expected<compiler::Artifacts> compiled =
      compile(ModelSource::fromFile(path.str()), options, hooks);
  os << "compile for target " << options.target
     << " (unknown input dims as " << options.importOptions.defaultDim
     << "): " << (compiled ? "ok" : "FAILED") << "\n";
  for (const std::string &error : errors)
    os << "  " << error << "\n";
  if (!compiled) {
    llvm::consumeError(compiled.takeError());
    os << "summary: not supported (the lowering refuses the nodes above)\n";
    return failure();
  }
  os << "summary: supported\n";
  return success();
}
