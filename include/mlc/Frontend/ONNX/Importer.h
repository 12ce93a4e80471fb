//===- Importer.h - ONNX model to graph dialect -----------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Imports an ONNX ModelProto into one `func.func` of graph-dialect ops.
// Every failure is a diagnostic that names the model file and, where there
// is one, the node, its op type and opset; nothing a model file contains
// can crash the importer.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_FRONTEND_ONNX_IMPORTER_H
#define MLC_FRONTEND_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mlc::onnx_import {

/// How a model is imported.
struct ImportOptions {
  /// Shapes pinned per graph input name (`--shape image=1x3x224x224`).
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// Values of symbolic dims by their `dim_param` name (`--dim batch=1`).
  llvm::StringMap<int64_t> dimParams;
  /// The largest value of symbolic dims left symbolic (`--dim-max H=1024`):
  /// recorded on the function as `mlc_graph.dim_bounds`, for the memory
  /// plan to place buffers of symbol-dependent size at their bound.
  llvm::StringMap<int64_t> dimBounds;
  /// When not negative, the value every input dim the model leaves
  /// symbolic or unknown takes, unless dimParams or inputShapes give it
  /// (the support check compiles a model at some shape this way).
  int64_t defaultDim = -1;
  /// Name of the function the model becomes.
  std::string functionName = "main";
  /// Limits checked before anything is built: nodes in the model, its
  /// subgraphs included (`--max-nodes`), and how deep subgraphs nest
  /// (`--max-nesting`).
  int64_t maxNodes = int64_t(1) << 22;
  int64_t maxNesting = 16;
  /// The most bytes an initializer or constant may hold, checked before it
  /// is read (`--max-tensor-bytes`, which mlc-graph-check-limits applies to
  /// every other tensor).
  int64_t maxTensorBytes = int64_t(4) << 30;
};

/// Imports the model file at `path`. Diagnostics go to `context`'s handler;
/// returns null after reporting every problem found.
mlir::OwningOpRef<mlir::ModuleOp> importModelFile(llvm::StringRef path,
                                                  mlir::MLIRContext *context,
                                                  const ImportOptions &options);

/// Imports a model from the bytes of its file, `data`: `name` names it in
/// messages and `modelDir` is the folder its external data is looked for in
/// (and may not leave).
mlir::OwningOpRef<mlir::ModuleOp>
importModelBuffer(llvm::StringRef data, llvm::StringRef name,
                  llvm::StringRef modelDir, mlir::MLIRContext *context,
                  const ImportOptions &options);

/// Imports a model already parsed (e.g. built in memory by an embedder);
/// `name` and `modelDir` as for importModelBuffer.
mlir::OwningOpRef<mlir::ModuleOp>
importModelProto(const onnx::ModelProto &model, llvm::StringRef name,
                 llvm::StringRef modelDir, mlir::MLIRContext *context,
                 const ImportOptions &options);

/// Reads the model at `path` without importing it and writes a support
/// report to `os`: opsets, op types with counts, and each unsupported op
/// with the reason. Fails when the file cannot be read or an op is
/// unsupported.
llvm::LogicalResult writeSupportReport(llvm::StringRef path,
                                       mlir::MLIRContext *context,
                                       llvm::raw_ostream &os);

/// Parses `NAME=D1xD2x...` (a `?` or `-1` dim stays dynamic) into `options`.
llvm::LogicalResult parseShapeOverride(llvm::StringRef spec,
                                       ImportOptions &options,
                                       std::string &error);

/// Parses `NAME=N` into `options`.
llvm::LogicalResult parseDimOverride(llvm::StringRef spec,
                                     ImportOptions &options,
                                     std::string &error);

/// Parses `NAME=N` (N >= 1) into `options.dimBounds`.
llvm::LogicalResult parseDimBound(llvm::StringRef spec, ImportOptions &options,
                                  std::string &error);

} // namespace mlc::onnx_import

#endif // MLC_FRONTEND_ONNX_IMPORTER_H
