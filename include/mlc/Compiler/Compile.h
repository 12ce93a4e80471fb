//===- Compile.h - Compile a model in one call ------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler in one call, for embedders: a model (a file, the bytes of
// one, or an onnx::ModelProto) and options in, the artifacts out, or an
// error holding every diagnostic.
//
//   mlc::compiler::CompileOptions options;
//   options.outputFile = "model.so";
//   mlc::setOutputKind(options, options.outputFile);
//   llvm::Expected<mlc::compiler::Artifacts> result =
//       mlc::compile(mlc::ModelSource::fromFile("model.onnx"), options);
//   if (!result)
//     llvm::errs() << llvm::toString(result.takeError());
//
// mlc-compile is a command line over this call; the C interface
// (mlc-c/Compiler.h) and the Python package are built on it too.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_COMPILER_COMPILE_H
#define MLC_COMPILER_COMPILE_H

#include "mlc/Compiler/Invocation.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>

namespace mlc {

/// The model a compilation starts from.
class ModelSource {
public:
  enum class Kind { File, Buffer, Proto };

  /// An `.onnx` file, or the `.mlir`/`.mlirbc` file of a phase.
  static ModelSource fromFile(std::string path);
  /// The bytes of an `.onnx` file. `name` names the model in messages;
  /// external data is looked for in `modelDir` (and may not leave it).
  static ModelSource fromBuffer(std::string bytes,
                                std::string name = "model.onnx",
                                std::string modelDir = ".");
  /// A parsed model; it is not changed, and must outlive the call.
  static ModelSource fromProto(const onnx::ModelProto &model,
                               std::string name = "model.onnx",
                               std::string modelDir = ".");

  Kind getKind() const { return kind; }
  /// The file's path, or the name given.
  const std::string &getName() const { return name; }
  const std::string &getBytes() const { return bytes; }
  const std::string &getModelDir() const { return modelDir; }
  const onnx::ModelProto *getProto() const { return proto; }

private:
  Kind kind = Kind::File;
  std::string name, bytes, modelDir;
  const onnx::ModelProto *proto = nullptr;
};

/// Ways to watch or steer a compilation.
struct CompileHooks {
  /// Run the compilation in this context (its registry must hold every mlc
  /// dialect, see registerEverything()); null: a fresh one.
  mlir::MLIRContext *context = nullptr;
  /// Called with each diagnostic as it is reported, besides its being
  /// collected into the error.
  std::function<void(mlir::Diagnostic &)> onDiagnostic;
  /// Called on the pass manager before it runs (tools apply MLIR's
  /// command-line options, print the pipeline, add instrumentation).
  std::function<llvm::LogicalResult(mlir::PassManager &)> onPassManager;
  /// Called as each pass starts, and before LLVM's code generation.
  compiler::ProgressCallback onProgress;
};

/// Compiles `source` as `options` say. The artifacts are returned in memory
/// and, when `options.outputFile` is set, written there (see
/// compiler::Artifacts). On failure the error's message holds every
/// diagnostic, one per line, as formatDiagnostic() writes them.
llvm::Expected<compiler::Artifacts> compile(const ModelSource &source,
                                            compiler::CompileOptions options,
                                            const CompileHooks &hooks = {});

/// `mlc-compile --check-support`: the importer's report for every op of
/// the model at `path` (If/Loop/Scan bodies included), then, when the
/// importer converts them all, a compile for `options.target` to its LLVM
/// dialect in memory (input dims the options leave unknown set to 1), with
/// each node the lowering refuses. Succeeds when the model compiles.
llvm::LogicalResult checkSupport(llvm::StringRef path,
                                 compiler::CompileOptions options,
                                 mlir::MLIRContext &context,
                                 llvm::raw_ostream &os);

/// `[location: ]error|warning|note: message`; the location is left out when
/// unknown (messages name the model file, node and op themselves).
std::string formatDiagnostic(mlir::Diagnostic &diagnostic);

/// Sets `options.compileTo` and `options.artifact` from an output file's
/// extension: `.o`/`.obj` an object, `.so` a shared library, `.s` assembly
/// (each with its C header), anything else the IR of `irPhase`.
void setOutputKind(compiler::CompileOptions &options,
                   llvm::StringRef outputFile,
                   Phase irPhase = Phase::Graph);

/// The symbol prefix a model gets by default: the output file's stem as a
/// C identifier, or `main` for stdout or memory.
std::string getDefaultModelName(llvm::StringRef outputFile);

/// `text` as a C identifier: other characters become `_`, and a leading
/// digit gets a `_` before it.
std::string sanitizeIdentifier(llvm::StringRef text);

/// Sets the option mlc-compile calls `--NAME` to `value`, for interfaces
/// that take options as strings (the C interface, Python): target, shape,
/// dim (repeatable), mtriple, mcpu, mattr, name, parallel, emit,
/// compile-to, weights, linker, schedules, profile, report,
/// report-profile, print-memory-plan,
/// max-tensor-bytes, max-nodes, max-nesting. Fails for an unknown name or
/// a value it does not take.
llvm::Error setCompileOption(compiler::CompileOptions &options,
                             llvm::StringRef name, llvm::StringRef value);

} // namespace mlc

#endif // MLC_COMPILER_COMPILE_H
