//===- TargetBackend.h - The interface every code generator implements ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// CPU, GPU and NPU code generators are siblings behind this interface. The
// compiler driver asks a backend for (1) the passes that lower loop-level IR
// (kernels on tensors) to the backend's final dialect and (2) serialization of
// that IR into an artifact (an object file, a GPU binary, an NPU command
// stream). Backends register themselves by name; `mlc-compile --target=NAME`
// looks them up.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_TARGETBACKEND_H
#define MLC_TARGET_TARGETBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlc::target {

/// A code generator for one kind of device.
class TargetBackend {
public:
  virtual ~TargetBackend();

  /// Short name used on the command line (`cpu`, `gpu`, `npu`).
  virtual llvm::StringRef getName() const = 0;

  /// One line for `--help` and `--list-targets`.
  virtual llvm::StringRef getDescription() const = 0;

  /// Dialects the lowering pipeline creates.
  virtual void getDependentDialects(mlir::DialectRegistry &registry) const {}

  /// Appends the passes that take a module of loop-level IR (upstream
  /// linalg/tensor/arith and mlc_loop kernels on tensors) to the dialect
  /// `serialize` consumes.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm) const = 0;

  /// Writes the artifact for a module that `buildLoweringPipeline` produced.
  /// Emits a diagnostic on the module and fails on error.
  virtual llvm::LogicalResult serialize(mlir::ModuleOp module,
                                        llvm::raw_pwrite_stream &os) const = 0;
};

/// Adds `backend` to the registry; a second backend of the same name
/// replaces the first.
void registerTargetBackend(std::unique_ptr<TargetBackend> backend);

/// The backend registered as `name`, or null.
const TargetBackend *lookupTargetBackend(llvm::StringRef name);

/// Names of all registered backends, sorted.
std::vector<std::string> getRegisteredTargetBackends();

/// Registers every backend mlc ships (idempotent).
void registerAllTargetBackends();

} // namespace mlc::target

#endif // MLC_TARGET_TARGETBACKEND_H
