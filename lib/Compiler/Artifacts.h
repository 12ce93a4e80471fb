//===- Artifacts.h - Writing what a compilation produces --------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pieces of the object phase that are not passes: the model signatures
// the lowering recorded, the weights file, linking a shared library, the
// memory-plan report. Errors are diagnostics on the module's context.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_COMPILER_ARTIFACTS_H
#define MLC_LIB_COMPILER_ARTIFACTS_H

#include "mlc/Target/Host/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlc::compiler {

/// The signatures the lowering recorded on each model function.
mlir::FailureOr<llvm::SmallVector<abi::ModelSignature, 1>>
collectSignatures(mlir::ModuleOp module);

/// Whether the lowered module calls the OpenMP runtime.
bool usesOpenMP(mlir::ModuleOp module);

/// Takes the blob that the weights externalization left on `module`: its
/// bytes, and the attribute dropped from the module.
mlir::FailureOr<std::string> takeWeights(mlir::ModuleOp module);

/// Writes `text` to `path`.
llvm::LogicalResult writeTextFile(mlir::MLIRContext *context,
                                  llvm::StringRef path, llvm::StringRef text);

/// Links `object` into the shared library `output` with the C compiler
/// driver `driver`; with `openmp` also LLVM's OpenMP runtime, found at run
/// time through an rpath.
llvm::LogicalResult linkSharedLibrary(mlir::MLIRContext *context,
                                      llvm::StringRef driver,
                                      llvm::StringRef object,
                                      llvm::StringRef output, bool openmp);

/// Prints each model's arena, weight and input/output bytes.
void printMemoryPlan(mlir::ModuleOp module,
                     llvm::ArrayRef<abi::ModelSignature> models,
                     llvm::raw_ostream &os);

} // namespace mlc::compiler

#endif // MLC_LIB_COMPILER_ARTIFACTS_H
