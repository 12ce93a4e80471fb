//===- Invocation.cpp - One compilation, from a model to artifacts --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/Invocation.h"
#include "Artifacts.h"
#include "PhaseTimer.h"
#include "Report.h"

#include "mlc/Dialect/Graph/IR/GraphDialect.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::compiler;

Phase compiler::detectPhase(ModuleOp module) {
  if (!module.getOps<LLVM::LLVMFuncOp>().empty())
    return Phase::LLVM;
  bool kernels = false;
  module.walk([&](loop::KernelOp) {
    kernels = true;
    return WalkResult::interrupt();
  });
  if (kernels)
    return Phase::Kernels;
  bool graph = false;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<graph::GraphDialect>(op->getDialect())) {
      graph = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return graph ? Phase::Input : Phase::Loop;
}

Invocation::Invocation(MLIRContext &context, CompileOptions options)
    : context(context), options(std::move(options)),
      timer(std::make_unique<PhaseTimer>(timings)) {
  target::TargetOptions &t = this->options.targetOptions;
  t.sharedLibrary = this->options.artifact == ArtifactKind::Shared;
  t.assembly = this->options.artifact == ArtifactKind::Assembly;
}

Invocation::~Invocation() = default;

void Invocation::beginPhase(StringRef phase) { timer->begin(phase); }

void Invocation::endPhase() { timer->end(); }

LogicalResult Invocation::load() {
  // An unknown target is the first thing to say, before any work.
  if (options.compileTo >= Phase::Kernels && !backend &&
      !(backend = createBackend()))
    return failure();
  StringRef ext = llvm::sys::path::extension(options.inputFile);
  bool isIR = ext == ".mlir" || ext == ".mlirbc";
  if (!isIR && options.compileFrom) {
    if (*options.compileFrom != Phase::Input)
      return emitError(UnknownLoc::get(&context))
             << options.inputFile << ": --compile-from="
             << getPhaseName(*options.compileFrom)
             << " needs the .mlir or .mlirbc file of that phase";
  }
  if (!isIR) {
    timer->begin("import");
    OwningOpRef<ModuleOp> imported = onnx_import::importModelFile(
        options.inputFile, &context, options.importOptions);
    timer->end();
    return load(std::move(imported), Phase::Input);
  }
  llvm::SourceMgr sourceMgr;
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(options.inputFile, &error);
  if (!file)
    return emitError(UnknownLoc::get(&context)) << error;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  inputPhase = options.compileFrom ? *options.compileFrom : detectPhase(*module);
  if (inputPhase == Phase::Object)
    return emitError(UnknownLoc::get(&context))
           << "--compile-from=object: an object is the end of compilation";
  return success();
}

LogicalResult Invocation::load(OwningOpRef<ModuleOp> loaded, Phase phase) {
  if (options.compileTo >= Phase::Kernels && !backend &&
      !(backend = createBackend()))
    return failure();
  if (!loaded || failed(verify(*loaded)))
    return failure();
  module = std::move(loaded);
  inputPhase = phase;
  return success();
}

std::unique_ptr<target::TargetBackend> Invocation::createBackend() {
  target::registerAllTargetBackends();
  std::unique_ptr<target::TargetBackend> created =
      target::createTargetBackend(options.target, options.targetOptions);
  if (!created) {
    InFlightDiagnostic diag = emitError(UnknownLoc::get(&context))
                              << "unknown target '" << options.target
                              << "'; known targets:";
    for (const auto &[name, description] :
         target::getRegisteredTargetBackends())
      diag << " " << name;
    return nullptr;
  }
  return created;
}

LogicalResult Invocation::checkStaticInputs() {
  // Code generation needs static shapes: say which input to pin.
  bool dynamic = false;
  for (func::FuncOp f : module->getOps<func::FuncOp>())
    for (auto [i, type] : llvm::enumerate(f.getArgumentTypes()))
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && !tensor.hasStaticShape()) {
        auto name = f.getArgAttrOfType<StringAttr>(i, "mlc_graph.name");
        emitError(UnknownLoc::get(&context))
            << options.inputFile << ": input '"
            << (name ? name.getValue() : StringRef("?"))
            << "' has dynamic shape " << type
            << "; compiling needs static shapes: pin it with --shape "
               "NAME=AxB or its symbolic dims with --dim NAME=N";
        dynamic = true;
      }
  return failure(dynamic);
}

LogicalResult Invocation::buildPipeline(OpPassManager &pm) {
  return buildPipeline(pm, nullptr);
}

LogicalResult Invocation::buildPipeline(OpPassManager &pm,
                                        PhaseTimer *phases) {
  // The top-level passes each phase added, for the timer.
  size_t before = pm.size();
  auto endOf = [&](Phase phase) {
    if (phases && pm.size() > before)
      phases->addPipelinePhase(getPhaseName(phase), pm.size() - before);
    before = pm.size();
  };
  Phase to = std::min(options.compileTo, Phase::LLVM);
  if (options.compileTo < inputPhase)
    return emitError(UnknownLoc::get(&context))
           << "cannot stop at phase '" << getPhaseName(options.compileTo)
           << "': the input is at the later phase '"
           << getPhaseName(inputPhase) << "'";
  if (inputPhase < Phase::Graph && to >= Phase::Graph) {
    GraphOptimizePipelineOptions graphOptions;
    graphOptions.maxTensorBytes = options.maxTensorBytes;
    // Code needs every symbolic dim but a batch pinned; the graph phase
    // alone may keep them.
    graphOptions.strictBatch = to >= Phase::Loop;
    // The GPU target's entry points do not loop over a batch yet.
    graphOptions.keepBatch = options.target != "gpu";
    // The CPU's code takes other symbolic dims at run time.
    graphOptions.dynamicDims = options.target == "cpu";
    // CPUs compute half-precision models in f32, as ONNX Runtime's CPU
    // provider does (the NPU's kernels take f32 and round to bf16
    // themselves); the GPU keeps them.
    graphOptions.computeHalfInF32 = options.target != "gpu";
    buildGraphOptimizePipeline(pm, graphOptions);
    if (!options.testingPerturbNode.empty())
      pm.nest<func::FuncOp>().addPass(graph::createGraphTestPerturbNode(
          graph::GraphTestPerturbNodeOptions{options.testingPerturbNode,
                                             0.5}));
    endOf(Phase::Graph);
  }
  if (inputPhase < Phase::Loop && to >= Phase::Loop) {
    buildGraphToLoopPipeline(pm, GraphToLoopPipelineOptions());
    endOf(Phase::Loop);
  }
  if (to >= Phase::Kernels && inputPhase < Phase::LLVM) {
    if (!backend)
      backend = createBackend();
    if (!backend)
      return failure();
    if (inputPhase < Phase::Kernels) {
      backend->buildKernelPipeline(pm);
      endOf(Phase::Kernels);
    }
    if (to >= Phase::LLVM) {
      backend->buildLoweringPipeline(pm);
      endOf(Phase::LLVM);
    }
  }
  return success();
}

LogicalResult Invocation::run() {
  // From the input phase, mlc-graph-separate-batch says which symbolic dims
  // to pin; a graph file has passed it already.
  if (inputPhase == Phase::Graph && options.compileTo >= Phase::Loop &&
      options.target != "cpu" && failed(checkStaticInputs()))
    return failure();
  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(buildPipeline(pm, timer.get())))
    return failure();
  pm.addInstrumentation(timer->createInstrumentation(progressCallback));
  if (!options.reportFile.empty()) {
    report = std::make_unique<ReportData>();
    report->input = options.inputFile;
    report->target = options.target;
    pm.addInstrumentation(createReportInstrumentation(*report));
  }
  if (passManagerHook && failed(passManagerHook(pm)))
    return failure();
  LogicalResult result = pm.run(*module);
  timer->end();
  return result;
}

LogicalResult Invocation::emit(Artifacts &artifacts) {
  if (options.compileTo >= Phase::LLVM && options.printMemoryPlan) {
    FailureOr<SmallVector<abi::ModelSignature, 1>> models =
        collectSignatures(*module);
    if (failed(models))
      return failure();
    llvm::raw_string_ostream os(artifacts.memoryPlan);
    printMemoryPlan(*module, *models, os);
  }
  return options.compileTo == Phase::Object ? emitArtifact(artifacts)
                                            : emitIR(artifacts);
}

LogicalResult Invocation::writeOutput() {
  Artifacts artifacts;
  if (failed(emit(artifacts)))
    return failure();
  llvm::outs() << artifacts.memoryPlan;
  return write(artifacts);
}

LogicalResult Invocation::emitIR(Artifacts &artifacts) {
  llvm::raw_string_ostream os(artifacts.ir);
  if (options.emitBytecode)
    return writeBytecodeToFile(*module, os);
  OpPrintingFlags flags;
  if (options.printLocations)
    flags.enableDebugInfo();
  module->print(os, flags);
  return success();
}

LogicalResult Invocation::emitArtifact(Artifacts &artifacts) {
  MLIRContext *ctx = &context;
  if (!backend)
    backend = createBackend();
  if (!backend)
    return failure();
  // Only the LLVM dialect serializes: an IR file resumed at the wrong
  // phase says so instead of failing inside the translation.
  for (Operation &op : module->getBody()->getOperations())
    if (!isa_and_nonnull<LLVM::LLVMDialect>(op.getDialect()))
      return emitError(UnknownLoc::get(ctx))
             << options.inputFile << ": '" << op.getName()
             << "' is not in the LLVM dialect: the module is not at the "
                "'llvm' phase (give --compile-from the phase the file is at)";
  FailureOr<SmallVector<abi::ModelSignature, 1>> models =
      collectSignatures(*module);
  if (failed(models))
    return failure();
  bool openmp = usesOpenMP(*module);
  for (abi::ModelSignature &m : *models)
    m.usesOpenMP = openmp;
  if ((*module)->hasAttr("mlc_loop.weights")) {
    FailureOr<std::string> weights = takeWeights(*module);
    if (failed(weights))
      return failure();
    artifacts.weights = std::move(*weights);
    externalWeights = true;
  }
  // Objects are written with pwrite: the stream must seek.
  SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream object(buffer);
  timer->begin("object");
  if (progressCallback) {
    Progress codegen;
    codegen.phase = "object";
    codegen.passName = "LLVM code generation";
    progressCallback(codegen);
  }
  LogicalResult serialized = backend->serialize(*module, object);
  timer->end();
  if (failed(serialized))
    return failure();
  artifacts.object.assign(buffer.begin(), buffer.end());
  if (options.artifact == ArtifactKind::Assembly)
    return success();
  usesOpenMPRuntime = openmp;
  llvm::raw_string_ostream header(artifacts.header);
  abi::writeCHeader(*models, llvm::sys::path::filename(options.inputFile),
                    header);
  return success();
}

LogicalResult Invocation::write(Artifacts &artifacts) {
  MLIRContext *ctx = &context;
  const std::string &output = options.outputFile;
  if (output.empty())
    return success();
  if (options.compileTo != Phase::Object) {
    if (failed(writeTextFile(ctx, output, artifacts.ir)))
      return failure();
    artifacts.files.push_back(output);
    return success();
  }
  if (output == "-" && options.artifact != ArtifactKind::Assembly)
    return emitError(UnknownLoc::get(ctx)) << "this output needs -o FILE";
  auto beside = [&](StringRef ext) {
    llvm::SmallString<128> path(output);
    llvm::sys::path::replace_extension(path, ext);
    return path.str().str();
  };
  if (options.artifact != ArtifactKind::Shared) {
    if (failed(writeTextFile(ctx, output, artifacts.object)))
      return failure();
    artifacts.files.push_back(output);
  } else {
    // The object goes to a temporary file, linked into the library.
    llvm::SmallString<128> tempObject;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "mlc-model", "o", tempObject))
      return emitError(UnknownLoc::get(ctx))
             << "cannot create a temporary file: " << ec.message();
    llvm::FileRemover removeTemp(tempObject);
    std::string driver = options.linker;
    const std::string &triple = options.targetOptions.triple;
    if (driver.empty())
      driver = triple.empty() ? "cc" : triple + "-gcc";
    timer->begin("link");
    LogicalResult linked =
        success(succeeded(writeTextFile(ctx, tempObject, artifacts.object)) &&
                succeeded(linkSharedLibrary(ctx, driver, tempObject, output,
                                            usesOpenMPRuntime)));
    timer->end();
    if (failed(linked))
      return failure();
    artifacts.files.push_back(output);
  }
  if (options.artifact == ArtifactKind::Assembly)
    return success();
  if (externalWeights) {
    std::string path = beside("weights");
    if (failed(writeTextFile(ctx, path, artifacts.weights)))
      return failure();
    artifacts.files.push_back(path);
  }
  std::string headerPath = beside("h");
  if (failed(writeTextFile(ctx, headerPath, artifacts.header)))
    return failure();
  artifacts.files.push_back(headerPath);
  return success();
}
