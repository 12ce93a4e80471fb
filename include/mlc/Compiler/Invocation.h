//===- Invocation.h - One compilation, from a model to artifacts -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler as a library: an Invocation loads a model (an ONNX file, or
// the `.mlir` of any phase), runs the phases between where it starts and
// where it stops as one pass manager, and writes the artifacts: IR of a
// phase, or an object, shared library or assembly plus the C header (and
// the weights file). `mlc-compile` is a command line over this class;
// embedders use it directly.
//
//   mlc::compiler::CompileOptions options;
//   options.inputFile = "model.onnx";
//   options.outputFile = "model.so";
//   mlc::compiler::Invocation invocation(context, options);
//   if (failed(invocation.load()) || failed(invocation.run()) ||
//       failed(invocation.writeOutput()))
//     ...  // diagnostics went to the context's handler
//
//===----------------------------------------------------------------------===//

#ifndef MLC_COMPILER_INVOCATION_H
#define MLC_COMPILER_INVOCATION_H

#include "mlc/Frontend/ONNX/Importer.h"
#include "mlc/Pipelines/Pipelines.h"
#include "mlc/Target/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <optional>
#include <string>

namespace mlc::compiler {

/// What the output of the object phase is.
enum class ArtifactKind {
  Object,   ///< an ELF object plus FILE.h
  Shared,   ///< a shared library plus FILE.h (linked by a C compiler driver)
  Assembly, ///< assembly text
};

/// Everything one compilation needs to know.
struct CompileOptions {
  /// The model: `.onnx`, or the `.mlir`/`.mlirbc` of a phase.
  std::string inputFile;
  /// Where the result goes (`-` for stdout, for IR and assembly only).
  std::string outputFile = "-";
  /// The phase the input is at; unset: `.onnx` files are imported, IR
  /// files are at the phase their ops show (see detectPhase()).
  std::optional<Phase> compileFrom;
  /// The last phase to run; Phase::Object writes `artifact`.
  Phase compileTo = Phase::Object;
  ArtifactKind artifact = ArtifactKind::Object;
  /// The registered backend (`--target`).
  std::string target = "cpu";
  target::TargetOptions targetOptions;
  /// How ONNX files are imported (function name, pinned shapes and dims,
  /// node and nesting limits).
  onnx_import::ImportOptions importOptions;
  /// The most bytes one tensor of the model may hold (mlc-graph-check-limits).
  int64_t maxTensorBytes = int64_t(4) << 30;
  /// IR outputs as bytecode rather than text.
  bool emitBytecode = false;
  /// Text IR outputs keep their locations, which carry the ONNX node names
  /// kernels are named after: resuming from the file then gives the same
  /// code. Without them the text is easier to read.
  bool printLocations = true;
  /// Print the arena, weight and input/output bytes after compiling.
  bool printMemoryPlan = false;
  /// C compiler driver for shared libraries (default `cc`, or
  /// `<triple>-gcc` for another triple).
  std::string linker;
};

/// The phase an IR module is at, from the ops it holds: LLVM dialect
/// functions mean Phase::LLVM, kernels Phase::Kernels, graph ops
/// Phase::Input, anything else Phase::Loop.
Phase detectPhase(mlir::ModuleOp module);

/// One compilation. Diagnostics go to the context's handler; every method
/// that fails has reported why.
class Invocation {
public:
  Invocation(mlir::MLIRContext &context, CompileOptions options);
  ~Invocation();

  /// Called on each pass manager before it runs: tools apply the MLIR
  /// command-line options (`--mlir-timing`, `--mlir-print-ir-after-all`).
  void setPassManagerHook(
      std::function<llvm::LogicalResult(mlir::PassManager &)> hook) {
    passManagerHook = std::move(hook);
  }

  /// Imports or parses the input and works out its phase.
  llvm::LogicalResult load();

  /// Appends the passes from the loaded phase to `compileTo` (not counting
  /// serialization) to `pm`. Fails for an unknown target or a stop before
  /// the start.
  llvm::LogicalResult buildPipeline(mlir::OpPassManager &pm);

  /// Runs those passes on the loaded module.
  llvm::LogicalResult run();

  /// Writes the result: the IR of `compileTo`, or the artifact with its
  /// header (and weights file) for Phase::Object.
  llvm::LogicalResult writeOutput();

  /// The phase the input was loaded at.
  Phase getInputPhase() const { return inputPhase; }
  /// The module as it stands.
  mlir::ModuleOp getModule() { return *module; }

private:
  /// The backend for the options, or null after a diagnostic.
  std::unique_ptr<target::TargetBackend> createBackend();
  llvm::LogicalResult checkStaticInputs();
  llvm::LogicalResult writeIR();
  llvm::LogicalResult writeArtifact();

  mlir::MLIRContext &context;
  CompileOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Phase inputPhase = Phase::Input;
  std::unique_ptr<target::TargetBackend> backend;
  std::function<llvm::LogicalResult(mlir::PassManager &)> passManagerHook;
};

} // namespace mlc::compiler

#endif // MLC_COMPILER_INVOCATION_H
