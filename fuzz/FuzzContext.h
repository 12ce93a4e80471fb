//===- FuzzContext.h - What the compiler harnesses share --------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each input gets a fresh MLIRContext (uniqued types and attributes would
// otherwise pile up across millions of inputs), with every dialect
// registered, no threads, and diagnostics swallowed: an error is a correct
// answer to a broken model; only a crash or a sanitizer report is a
// finding. External data is looked for in an empty folder of its own.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_FUZZ_FUZZCONTEXT_H
#define MLC_FUZZ_FUZZCONTEXT_H

#include "mlc/Frontend/ONNX/Importer.h"
#include "mlc/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <string>

namespace mlc::fuzz {

/// The folder external data is looked for in: empty, made once.
inline const std::string &getEmptyModelDir() {
  static const std::string dir = [] {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("mlc-fuzz", path))
      return std::string("/nonexistent-mlc-fuzz");
    return std::string(path);
  }();
  return dir;
}

/// Imports `data` as a model in `context`; null when it is refused.
inline mlir::OwningOpRef<mlir::ModuleOp>
importFuzzInput(mlir::MLIRContext &context, const uint8_t *data, size_t size) {
  mlc::onnx_import::ImportOptions options;
  return mlc::onnx_import::importModelBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.onnx", getEmptyModelDir(), &context, options);
}

/// A context in which every dialect can be loaded (the passes load what
/// they use), with diagnostics swallowed.
struct FuzzContext {
  FuzzContext()
      : context(makeRegistry(), mlir::MLIRContext::Threading::DISABLED),
        handler(&context,
                [](mlir::Diagnostic &) { return mlir::success(); }) {}
  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    mlc::registerEverything(registry);
    return registry;
  }
  mlir::MLIRContext context;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace mlc::fuzz

#endif // MLC_FUZZ_FUZZCONTEXT_H
