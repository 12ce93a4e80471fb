//===- Compile.cpp - Compile a model in one call --------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/Compile.h"

#include "mlc/InitAll.h"
#include "mlc/Target/GPU/GPUTarget.h"
#include "Report.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlc;
using compiler::ArtifactKind;
using compiler::Artifacts;
using compiler::CompileOptions;

ModelSource ModelSource::fromFile(std::string path) {
  ModelSource source;
  source.kind = Kind::File;
  source.name = std::move(path);
  return source;
}

ModelSource ModelSource::fromBuffer(std::string bytes, std::string name,
                                    std::string modelDir) {
  ModelSource source;
  source.kind = Kind::Buffer;
  source.bytes = std::move(bytes);
  source.name = std::move(name);
  source.modelDir = std::move(modelDir);
  return source;
}

ModelSource ModelSource::fromProto(const onnx::ModelProto &model,
                                   std::string name, std::string modelDir) {
  ModelSource source;
  source.kind = Kind::Proto;
  source.proto = &model;
  source.name = std::move(name);
  source.modelDir = std::move(modelDir);
  return source;
}

std::string mlc::formatDiagnostic(Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto print = [&](Diagnostic &d) {
    if (!isa<UnknownLoc>(d.getLocation()))
      os << d.getLocation() << ": ";
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    default:
      os << "note: ";
      break;
    }
    os << d.str();
  };
  print(diagnostic);
  for (Diagnostic &note : diagnostic.getNotes()) {
    os << "\n";
    print(note);
  }
  return text;
}

std::string mlc::sanitizeIdentifier(StringRef text) {
  std::string id;
  for (char c : text)
    id.push_back(llvm::isAlnum(c) ? c : '_');
  if (id.empty() || llvm::isDigit(id[0]))
    id.insert(id.begin(), '_');
  return id;
}

std::string mlc::getDefaultModelName(StringRef outputFile) {
  if (outputFile.empty() || outputFile == "-")
    return "main";
  return sanitizeIdentifier(
      llvm::sys::path::stem(llvm::sys::path::filename(outputFile)));
}

void mlc::setOutputKind(CompileOptions &options, StringRef outputFile,
                        Phase irPhase) {
  StringRef ext = llvm::sys::path::extension(outputFile);
  if (ext == ".o" || ext == ".obj") {
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Object;
  } else if (ext == ".so") {
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Shared;
  } else if (ext == ".s" || ext == ".S") {
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Assembly;
  } else {
    options.compileTo = irPhase;
  }
}

static llvm::Error optionError(StringRef name, StringRef value,
                               const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "option '" + name + "=" + value + "': " + why);
}

llvm::Error mlc::setCompileOption(CompileOptions &options, StringRef name,
                                  StringRef value) {
  auto getInt = [&](int64_t &out) -> llvm::Error {
    int64_t v;
    if (value.getAsInteger(10, v) || v <= 0)
      return optionError(name, value, "expected a positive integer");
    out = v;
    return llvm::Error::success();
  };
  auto getBool = [&](bool &out) -> llvm::Error {
    std::optional<bool> v = llvm::StringSwitch<std::optional<bool>>(value)
                                .Cases({"1", "true", "on", ""}, true)
                                .Cases({"0", "false", "off"}, false)
                                .Default(std::nullopt);
    if (!v)
      return optionError(name, value, "expected true or false");
    out = *v;
    return llvm::Error::success();
  };
  std::string error;
  onnx_import::ImportOptions &import = options.importOptions;
  target::TargetOptions &target = options.targetOptions;
  if (name == "target")
    options.target = value.str();
  else if (name == "dim-max") {
    if (failed(onnx_import::parseDimBound(value, import, error)))
      return optionError(name, value, error);
  } else if (name == "shape" || name == "dim") {
    if (failed(name == "shape"
                   ? onnx_import::parseShapeOverride(value, import, error)
                   : onnx_import::parseDimOverride(value, import, error)))
      return optionError(name, value, error);
  } else if (name == "mtriple")
    target.triple = value.str();
  else if (name == "mcpu")
    target.cpu = value.str();
  else if (name == "mattr")
    target.features = value.str();
  else if (name == "gpu-arch") {
    if (!target::getPTXFeatures(value))
      return optionError(name, value,
                         "expected sm_80, sm_86, sm_89, sm_90 or sm_90a");
    target.gpuArch = value.str();
  } else if (name == "cuda-path")
    target.cudaPath = value.str();
  else if (name == "gpu-host-emulation")
    return getBool(target.gpuHostEmulation);
  else if (name == "npu-config")
    target.npuConfig = value.str();
  else if (name == "npu-placement")
    target.npuPlacementFile = value.str();
  else if (name == "print-placement")
    return getBool(target.printPlacement);
  else if (name == "npu-float") {
    if (value != "bf16" && value != "cpu")
      return optionError(name, value, "expected bf16 or cpu");
    target.npuFloat = value.str();
  }
  else if (name == "name")
    options.modelName = value.str();
  else if (name == "parallel") {
    bool on;
    if (llvm::Error err = getBool(on))
      return err;
    options.parallel = on;
  } else if (name == "print-memory-plan")
    return getBool(options.printMemoryPlan);
  else if (name == "profile")
    return getBool(target.profile);
  else if (name == "report")
    options.reportFile = value.str();
  else if (name == "report-profile")
    options.reportProfile = value.str();
  else if (name == "testing-perturb-node")
    options.testingPerturbNode = value.str();
  else if (name == "emit") {
    std::optional<std::pair<Phase, ArtifactKind>> kind =
        llvm::StringSwitch<std::optional<std::pair<Phase, ArtifactKind>>>(
            value)
            .Case("obj", {{Phase::Object, ArtifactKind::Object}})
            .Case("shared", {{Phase::Object, ArtifactKind::Shared}})
            .Case("asm", {{Phase::Object, ArtifactKind::Assembly}})
            .Default(std::nullopt);
    std::optional<Phase> phase = parsePhase(value);
    if (!kind && (!phase || *phase == Phase::Object))
      return optionError(name, value,
                         "expected obj, shared, asm, input, graph, loop, "
                         "kernels or llvm");
    options.compileTo = kind ? kind->first : *phase;
    if (kind)
      options.artifact = kind->second;
  } else if (name == "compile-to") {
    std::optional<Phase> phase = parsePhase(value);
    if (!phase)
      return optionError(name, value,
                         "expected input, graph, loop, kernels, llvm or "
                         "object");
    options.compileTo = *phase;
  } else if (name == "weights") {
    if (value != "embedded" && value != "external")
      return optionError(name, value, "expected embedded or external");
    options.externalWeights = value == "external";
  } else if (name == "linker")
    options.linker = value.str();
  else if (name == "schedules")
    target.scheduleFile = value.str();
  else if (name == "max-tensor-bytes") {
    if (llvm::Error err = getInt(options.maxTensorBytes))
      return err;
    import.maxTensorBytes = options.maxTensorBytes;
  } else if (name == "max-nodes")
    return getInt(import.maxNodes);
  else if (name == "max-nesting")
    return getInt(import.maxNesting);
  else
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown option '" + name + "'");
  return llvm::Error::success();
}

/// Fills in what `options` leaves to the output file.
/// The largest limits accepted: with every tensor at most 2^38 bytes and at
/// most 2^24 nodes, sums of sizes (the arena, the weights) stay under 2^62,
/// so that the size and offset arithmetic after the graph level cannot
/// overflow whatever the model.
constexpr int64_t kMaxTensorBytesLimit = int64_t(1) << 38;
constexpr int64_t kMaxNodesLimit = int64_t(1) << 24;

static LogicalResult resolveOptions(CompileOptions &options,
                                    MLIRContext &context) {
  if (options.maxTensorBytes > kMaxTensorBytesLimit ||
      options.importOptions.maxTensorBytes > kMaxTensorBytesLimit)
    return emitError(UnknownLoc::get(&context))
           << "--max-tensor-bytes may be at most 2^38 (256 GiB), so that "
              "sums of tensor sizes cannot overflow";
  if (options.importOptions.maxNodes > kMaxNodesLimit)
    return emitError(UnknownLoc::get(&context))
           << "--max-nodes may be at most 2^24 (16777216), so that sums of "
              "tensor sizes cannot overflow";
  options.importOptions.functionName =
      options.modelName.empty() ? getDefaultModelName(options.outputFile)
                                : sanitizeIdentifier(options.modelName);
  target::TargetOptions &target = options.targetOptions;
  target.parallel = options.parallel ? *options.parallel : target.triple.empty();
  // A GPU model's weights are uploaded to the device from a file beside it.
  if (options.target == "gpu" && !target.gpuHostEmulation &&
      options.compileTo == Phase::Object &&
      options.artifact != ArtifactKind::Assembly)
    options.externalWeights = true;
  if (options.externalWeights) {
    if (options.outputFile.empty() || options.outputFile == "-")
      return emitError(UnknownLoc::get(&context))
             << "--weights=external needs -o FILE (the weights go to "
                "FILE.weights)";
    llvm::SmallString<128> weightsPath(options.outputFile);
    llvm::sys::path::replace_extension(weightsPath, "weights");
    target.weightsFile = llvm::sys::path::filename(weightsPath).str();
  }
  if (options.compileTo == Phase::Object &&
      options.artifact == ArtifactKind::Shared && options.outputFile.empty())
    return emitError(UnknownLoc::get(&context))
           << "a shared library needs an output file to be linked into";
  return success();
}

/// Imports or parses `source` into `invocation`.
static LogicalResult loadSource(compiler::Invocation &invocation,
                                const ModelSource &source,
                                const CompileOptions &options,
                                MLIRContext &context) {
  if (source.getKind() == ModelSource::Kind::File)
    return invocation.load();
  invocation.beginPhase("import");
  OwningOpRef<ModuleOp> module =
      source.getKind() == ModelSource::Kind::Buffer
          ? onnx_import::importModelBuffer(source.getBytes(), source.getName(),
                                           source.getModelDir(), &context,
                                           options.importOptions)
          : onnx_import::importModelProto(*source.getProto(), source.getName(),
                                          source.getModelDir(), &context,
                                          options.importOptions);
  invocation.endPhase();
  return invocation.load(std::move(module), Phase::Input);
}

llvm::Expected<Artifacts> mlc::compile(const ModelSource &source,
                                       CompileOptions options,
                                       const CompileHooks &hooks) {
  std::unique_ptr<MLIRContext> ownContext;
  MLIRContext *context = hooks.context;
  if (!context) {
    DialectRegistry registry;
    registerEverything(registry);
    ownContext = std::make_unique<MLIRContext>(registry);
    // Errors name the file, node and op without the op's IR.
    ownContext->printOpOnDiagnostic(false);
    context = ownContext.get();
  }
  std::string errors;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
    if (hooks.onDiagnostic)
      hooks.onDiagnostic(diagnostic);
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
      if (!errors.empty())
        errors += "\n";
      errors += formatDiagnostic(diagnostic);
    }
    return success();
  });
  auto fail = [&]() -> llvm::Error {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        errors.empty() ? source.getName() + ": compilation failed" : errors);
  };

  options.inputFile = source.getName();
  if (failed(resolveOptions(options, *context)))
    return fail();
  compiler::Invocation invocation(*context, options);
  if (hooks.onPassManager)
    invocation.setPassManagerHook(hooks.onPassManager);
  if (hooks.onProgress)
    invocation.setProgressCallback(hooks.onProgress);
  Artifacts artifacts;
  if (failed(loadSource(invocation, source, options, *context)) ||
      failed(invocation.run()) || failed(invocation.emit(artifacts)) ||
      failed(invocation.write(artifacts)))
    return fail();
  artifacts.timings = invocation.getTimings();
  if (const compiler::ReportData *report = invocation.getReportData()) {
    if (failed(compiler::writeReport(context, options.reportFile, *report,
                                     artifacts.timings,
                                     options.reportProfile)))
      return fail();
    artifacts.files.push_back(options.reportFile);
  }
  return artifacts;
}
