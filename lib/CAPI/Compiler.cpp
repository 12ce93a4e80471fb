//===- Compiler.cpp - C interface of the mlc compiler ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-c/Compiler.h"

#include "mlc/Compiler/Compile.h"
#include "mlc/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdlib>
#include <cstring>

using namespace mlc;

struct mlc_compile_options {
  compiler::CompileOptions options;
  /// emit or compile-to was given: the output's extension does not decide.
  bool outputKindSet = false;
  mlc_progress_fn progress = nullptr;
  void *progressUser = nullptr;
};

struct mlc_artifacts {
  compiler::Artifacts artifacts;
};

namespace {
/// A copy of `text` the caller frees with mlc_string_free.
char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.data(), text.size() + 1);
  return copy;
}

void copyError(const std::string &text, char *error, size_t errorSize) {
  if (!error || errorSize == 0)
    return;
  size_t n = std::min(text.size(), errorSize - 1);
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

/// Compiles `source` to `outputPath` (may be null: memory only) with
/// `options` (may be null); the diagnostics go to `*diagnostics`, the
/// results to `*out` when it is not null.
int compileSource(const ModelSource &source, const char *outputPath,
                  const mlc_compile_options *options, mlc_artifacts **out,
                  char **diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  if (out)
    *out = nullptr;
  mlc_compile_options defaults;
  const mlc_compile_options &chosen = options ? *options : defaults;
  compiler::CompileOptions compileOptions = chosen.options;
  compileOptions.outputFile = outputPath ? outputPath : "";
  if (!chosen.outputKindSet)
    setOutputKind(compileOptions, outputPath ? outputPath : "model.o");
  // Warnings are kept too; errors come back in the llvm::Error.
  std::string warnings;
  CompileHooks hooks;
  hooks.onDiagnostic = [&](mlir::Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Warning)
      warnings += formatDiagnostic(diagnostic) + "\n";
  };
  if (chosen.progress)
    hooks.onProgress = [&](const compiler::Progress &at) {
      chosen.progress(at.phase.str().c_str(), at.pass, at.passes,
                      at.passName.str().c_str(), at.function, at.functions,
                      chosen.progressUser);
    };
  llvm::Expected<compiler::Artifacts> artifacts =
      compile(source, std::move(compileOptions), hooks);
  std::string text = warnings;
  int status = 0;
  if (!artifacts) {
    text += llvm::toString(artifacts.takeError()) + "\n";
    status = -1;
  } else if (out) {
    *out = new (std::nothrow) mlc_artifacts{std::move(*artifacts)};
  }
  if (diagnostics && !text.empty())
    *diagnostics = copyString(text);
  return status;
}
} // namespace

extern "C" {

const char *mlc_compiler_version(void) { return MLC_VERSION; }

mlc_compile_options *mlc_compile_options_new(void) {
  return new (std::nothrow) mlc_compile_options();
}

void mlc_compile_options_free(mlc_compile_options *options) {
  delete options;
}

int mlc_compile_options_set(mlc_compile_options *options, const char *name,
                            const char *value, char *error,
                            size_t errorSize) {
  if (!options || !name || !value) {
    copyError("mlc_compile_options_set: null argument", error, errorSize);
    return -1;
  }
  if (llvm::Error err = setCompileOption(options->options, name, value)) {
    copyError(llvm::toString(std::move(err)), error, errorSize);
    return -1;
  }
  llvm::StringRef key(name);
  if (key == "emit" || key == "compile-to")
    options->outputKindSet = true;
  return 0;
}

int mlc_compile_file(const char *modelPath, const char *outputPath,
                     const mlc_compile_options *options,
                     char **diagnostics) {
  return mlc_compile_file_ex(modelPath, outputPath, options, nullptr,
                             diagnostics);
}

int mlc_compile_file_ex(const char *modelPath, const char *outputPath,
                        const mlc_compile_options *options,
                        mlc_artifacts **artifacts, char **diagnostics) {
  if (!modelPath) {
    if (diagnostics)
      *diagnostics = copyString("error: mlc_compile_file_ex: no model path\n");
    return -1;
  }
  return compileSource(ModelSource::fromFile(modelPath), outputPath, options,
                       artifacts, diagnostics);
}

int mlc_compile_buffer(const void *data, size_t size, const char *name,
                       const char *modelDir, const char *outputPath,
                       const mlc_compile_options *options,
                       char **diagnostics) {
  return mlc_compile_buffer_ex(data, size, name, modelDir, outputPath,
                               options, nullptr, diagnostics);
}

int mlc_compile_buffer_ex(const void *data, size_t size, const char *name,
                          const char *modelDir, const char *outputPath,
                          const mlc_compile_options *options,
                          mlc_artifacts **artifacts, char **diagnostics) {
  if (!data && size) {
    if (diagnostics)
      *diagnostics = copyString("error: mlc_compile_buffer: no data\n");
    return -1;
  }
  std::string bytes(static_cast<const char *>(data), size);
  return compileSource(
      ModelSource::fromBuffer(std::move(bytes), name ? name : "model.onnx",
                              modelDir ? modelDir : "."),
      outputPath, options, artifacts, diagnostics);
}

void mlc_compile_options_set_progress(mlc_compile_options *options,
                                      mlc_progress_fn progress, void *user) {
  if (!options)
    return;
  options->progress = progress;
  options->progressUser = user;
}

const void *mlc_artifacts_get(const mlc_artifacts *artifacts,
                              const char *what, size_t *size) {
  if (size)
    *size = 0;
  if (!artifacts || !what)
    return nullptr;
  const compiler::Artifacts &a = artifacts->artifacts;
  llvm::StringRef key(what);
  const std::string *bytes = key == "object"        ? &a.object
                             : key == "header"      ? &a.header
                             : key == "weights"     ? &a.weights
                             : key == "ir"          ? &a.ir
                             : key == "memory-plan" ? &a.memoryPlan
                                                    : nullptr;
  if (!bytes || bytes->empty())
    return nullptr;
  if (size)
    *size = bytes->size();
  return bytes->data();
}

size_t mlc_artifacts_num_phases(const mlc_artifacts *artifacts) {
  return artifacts ? artifacts->artifacts.timings.size() : 0;
}

const char *mlc_artifacts_phase(const mlc_artifacts *artifacts, size_t index,
                                double *seconds, int64_t *peakBytes) {
  if (!artifacts || index >= artifacts->artifacts.timings.size())
    return nullptr;
  const compiler::PhaseTiming &t = artifacts->artifacts.timings[index];
  if (seconds)
    *seconds = t.seconds;
  if (peakBytes)
    *peakBytes = t.peakMemoryBytes;
  return t.phase.c_str();
}

void mlc_artifacts_free(mlc_artifacts *artifacts) { delete artifacts; }

int mlc_check_support(const char *modelPath,
                      const mlc_compile_options *options, char **report) {
  if (report)
    *report = nullptr;
  if (!modelPath)
    return -1;
  mlir::DialectRegistry registry;
  registerEverything(registry);
  mlir::MLIRContext context(registry);
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        os << formatDiagnostic(diagnostic) << "\n";
        return mlir::success();
      });
  compiler::CompileOptions compileOptions;
  if (options)
    compileOptions = options->options;
  bool supported =
      succeeded(checkSupport(modelPath, compileOptions, context, os));
  if (report)
    *report = copyString(text);
  return supported ? 0 : -1;
}

void mlc_string_free(char *string) { std::free(string); }

} // extern "C"
