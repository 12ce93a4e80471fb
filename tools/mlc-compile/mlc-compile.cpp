//===- mlc-compile.cpp - Compile an ONNX model ----------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc-compile MODEL.onnx -o model.o      object + model.h (C ABI)
// mlc-compile MODEL.onnx -o model.so     self-contained shared library
// mlc-compile MODEL.onnx --emit=input|graph|loop|llvm|asm -o OUT
//   [--shape NAME=AxB] [--dim NAME=N] [--check-support] [--name=P]
//   [--mtriple=T] [--mcpu=C] [--print-memory-plan] [--weights=external]
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/Passes.h"
#include "mlc/Frontend/ONNX/Importer.h"
#include "mlc/InitAll.h"
#include "mlc/Pipelines/Pipelines.h"
#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/CPU/ModelABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Default, Input, Graph, Loop, LLVM, Assembly, Object, Shared };

cl::OptionCategory category("mlc-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<Emit> emit(
    "emit",
    cl::desc("What to produce (default: from the -o extension: .o object, "
             ".so shared library, .s assembly, otherwise graph IR)"),
    cl::init(Emit::Default),
    cl::values(
        clEnumValN(Emit::Input, "input", "graph dialect exactly as imported"),
        clEnumValN(Emit::Graph, "graph",
                   "graph dialect after canonicalization and shape inference"),
        clEnumValN(Emit::Loop, "loop", "linalg/tensor/arith/math on tensors"),
        clEnumValN(Emit::LLVM, "llvm", "LLVM dialect for the CPU"),
        clEnumValN(Emit::Assembly, "asm", "CPU assembly text"),
        clEnumValN(Emit::Object, "obj",
                   "CPU object file, plus a C header next to it (FILE.h)"),
        clEnumValN(Emit::Shared, "shared",
                   "self-contained shared library (needs a C compiler driver "
                   "'cc' to link), plus a C header")),
    cl::cat(category));
cl::opt<bool> emitBytecode("emit-bytecode",
                           cl::desc("Write MLIR bytecode instead of text"),
                           cl::cat(category));
cl::opt<bool> checkSupport(
    "check-support",
    cl::desc("Print which ops the model uses and which are unsupported; "
             "compile nothing"),
    cl::cat(category));
cl::list<std::string>
    shapes("shape",
           cl::desc("Pin an input's shape, e.g. --shape image=1x3x224x224 "
                    "(? keeps a dim dynamic); repeatable"),
           cl::value_desc("name=shape"), cl::cat(category));
cl::list<std::string>
    dims("dim",
         cl::desc("Give a symbolic dim a value, e.g. --dim batch=1; "
                  "repeatable"),
         cl::value_desc("name=N"), cl::cat(category));
cl::opt<std::string>
    mtriple("mtriple", cl::desc("Target triple for llvm/obj (default: host)"),
            cl::cat(category));
cl::opt<std::string>
    mcpu("mcpu", cl::desc("Target CPU (default: the triple's generic CPU, e.g. "
                       "x86-64 without AVX/FMA; 'native' = this machine's "
                       "CPU and features, needed for vectorized speed)"),
         cl::cat(category));
cl::opt<std::string>
    mattr("mattr",
          cl::desc("Target features to add or remove, comma-separated, as "
                   "LLVM spells them (e.g. +avx2,+fma or +prefer-256-bit)"),
          cl::value_desc("+a,-b"), cl::cat(category));
cl::opt<std::string> functionName(
    "name",
    cl::desc("Symbol prefix of the compiled model: <name>_run, "
             "<name>_metadata (default: the output file's stem, or main when "
             "writing to stdout)"),
    cl::value_desc("identifier"), cl::cat(category));
cl::alias functionNameAlias("function-name", cl::desc("Alias for --name"),
                            cl::aliasopt(functionName), cl::cat(category));
cl::opt<bool> parallel(
    "parallel",
    cl::desc("Run large matmuls and convolutions on threads through LLVM's "
             "OpenMP runtime (the object then needs libomp; thread count from "
             "OMP_NUM_THREADS). Default: on for the host, off with --mtriple; "
             "--parallel=false gives code needing only libc/libm"),
    cl::cat(category));
cl::opt<bool> printSchedules(
    "print-schedules",
    cl::desc("Print the schedule of every matmul and convolution kernel to "
             "stdout while compiling: first a '// target:' line with the "
             "CPU's vector width, registers and caches and the default tiles "
             "chosen from them, then one line per kernel with its ONNX node "
             "name, loop ranges and #mlc_loop.schedule (thread, cache and "
             "register tile sizes per loop)"),
    cl::cat(category));
cl::opt<std::string> scheduleFile(
    "schedules",
    cl::desc("Use the schedules in this file (lines as --print-schedules "
             "prints them, edited) instead of the built-in heuristic's for "
             "the kernels it names"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<bool> printMemoryPlan(
    "print-memory-plan",
    cl::desc("Print each model's arena size, weight bytes and input/output "
             "bytes after compiling"),
    cl::cat(category));
enum class Weights { Embedded, External };
cl::opt<Weights> weightsMode(
    "weights",
    cl::desc("Where the weights go (default: embedded)"),
    cl::init(Weights::Embedded),
    cl::values(
        clEnumValN(Weights::Embedded, "embedded",
                   "in the object's read-only data"),
        clEnumValN(Weights::External, "external",
                   "in FILE.weights beside the output (-o FILE.o/.so): the "
                   "object stays small, and the entry point becomes "
                   "<name>_run_with_weights(weights, arena, inputs, outputs)")),
    cl::cat(category));
cl::opt<std::string> linker(
    "linker",
    cl::desc("C compiler driver that links --emit=shared (default: cc, or "
             "<triple>-gcc for another target)"),
    cl::cat(category));

/// A C identifier made from `text` (the output file's stem by default).
std::string sanitizeIdentifier(StringRef text) {
  std::string id;
  for (char c : text)
    id.push_back(llvm::isAlnum(c) ? c : '_');
  if (id.empty() || llvm::isDigit(id[0]))
    id.insert(id.begin(), '_');
  return id;
}

/// What `--emit` means when it is not given: the output's extension.
Emit getEmitKind() {
  if (emit != Emit::Default)
    return emit;
  StringRef ext = llvm::sys::path::extension(outputFile);
  if (ext == ".o" || ext == ".obj")
    return Emit::Object;
  if (ext == ".so")
    return Emit::Shared;
  if (ext == ".s" || ext == ".S")
    return Emit::Assembly;
  return Emit::Graph;
}

/// The signatures the CPU lowering recorded on each model function.
FailureOr<SmallVector<mlc::abi::ModelSignature>>
collectSignatures(ModuleOp module) {
  SmallVector<mlc::abi::ModelSignature> models;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>()) {
    auto json = f->getAttrOfType<StringAttr>("mlc.signature");
    auto arena = f->getAttrOfType<IntegerAttr>("mlc.arena_size");
    if (!json || !arena)
      continue;
    llvm::Expected<mlc::abi::ModelSignature> signature =
        mlc::abi::parseModelSignature(json.getValue());
    if (!signature) {
      llvm::errs() << "mlc-compile: error: "
                   << llvm::toString(signature.takeError()) << "\n";
      return failure();
    }
    signature->arenaSize = arena.getInt();
    models.push_back(std::move(*signature));
  }
  return models;
}

/// Bytes of constant data (weights) in the lowered module.
int64_t getConstantBytes(ModuleOp module) {
  DataLayout layout(module);
  int64_t bytes = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (global.getConstant())
      bytes += layout.getTypeSize(global.getType());
  return bytes;
}

void printMemoryPlanOf(ArrayRef<mlc::abi::ModelSignature> models,
                       int64_t constantBytes) {
  if (!models.empty() && models.front().weights)
    llvm::outs() << "weights in " << models.front().weights->file << ": "
                 << models.front().weights->size << " bytes\n";
  for (const mlc::abi::ModelSignature &m : models) {
    int64_t io = 0;
    for (const auto &t : m.inputs)
      io += t.getNumBytes();
    for (const auto &t : m.outputs)
      io += t.getNumBytes();
    llvm::outs() << m.name << ": arena " << m.arenaSize
                 << " bytes (all activations, planned statically), inputs + "
                    "outputs "
                 << io << " bytes, peak run memory " << m.arenaSize + io
                 << " bytes besides the weights\n";
  }
  llvm::outs() << "constant data in the object: " << constantBytes
               << " bytes\n";
}

/// Writes `text` to `path`.
LogicalResult writeFile(StringRef path, StringRef text) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "mlc-compile: error: " << error << "\n";
    return failure();
  }
  file->os() << text;
  file->keep();
  return success();
}

/// Writes the blob that mlc-cpu-externalize-weights left on `module` to
/// `path` and drops it from the module.
LogicalResult writeWeights(ModuleOp module, StringRef path) {
  auto weights =
      module->getAttrOfType<DenseResourceElementsAttr>("mlc.weights");
  AsmResourceBlob *blob = weights ? weights.getRawHandle().getBlob() : nullptr;
  if (!blob) {
    llvm::errs() << "mlc-compile: error: the lowering left no weights blob\n";
    return failure();
  }
  int64_t size = cast<ShapedType>(weights.getType()).getNumElements();
  ArrayRef<char> data = blob->getData().take_front(size);
  if (failed(writeFile(path, StringRef(data.data(), data.size()))))
    return failure();
  module->removeAttr("mlc.weights");
  return success();
}

/// The dialect namespace of OpenMP ops left in lowered code.
constexpr llvm::StringLiteral kOpenMPNamespace = "omp";

/// Links `object` into the shared library `output` with a C compiler driver.
/// With `openmp`, the library also links LLVM's OpenMP runtime and finds it
/// at run time through an rpath.
LogicalResult linkSharedLibrary(StringRef object, StringRef output,
                                bool openmp) {
  std::string driver = linker;
  if (driver.empty())
    driver = mtriple.empty() ? "cc" : mtriple + "-gcc";
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(driver);
  if (!program) {
    llvm::errs() << "mlc-compile: error: cannot find the linker driver '"
                 << driver << "' to make " << output
                 << " (install a C compiler or pass --linker=PATH)\n";
    return failure();
  }
  SmallVector<StringRef> args{*program, "-shared", "-o",  output,
                              object,   "-lm",     "-Wl,-z,noexecstack",
                              "-Wl,--no-undefined"};
  std::string libDir = std::string("-L") + MLC_OPENMP_LIBRARY_DIR;
  std::string rpath = std::string("-Wl,-rpath,") + MLC_OPENMP_LIBRARY_DIR;
  if (openmp)
    args.append({libDir, "-lomp", rpath});
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    llvm::errs() << "mlc-compile: error: linking " << output << " with "
                 << *program << " failed"
                 << (message.empty() ? "" : ": " + message) << "\n";
    return failure();
  }
  return success();
}

/// Lowers `module` for the CPU and writes the object, shared library or
/// assembly plus the header.
int compileForCPU(ModuleOp module, Emit kind) {
  if (outputFile == "-" && kind != Emit::Assembly && kind != Emit::LLVM) {
    llvm::errs() << "mlc-compile: error: this output needs -o FILE\n";
    return 1;
  }
  mlc::target::CPUTargetOptions targetOptions;
  targetOptions.triple = mtriple;
  targetOptions.cpu = mcpu;
  targetOptions.features = mattr;
  targetOptions.sharedLibrary = kind == Emit::Shared;
  targetOptions.parallel =
      parallel.getNumOccurrences() ? bool(parallel) : mtriple.empty();
  targetOptions.assembly = kind == Emit::Assembly;
  if (scheduleFile.find('"') != std::string::npos) {
    llvm::errs() << "mlc-compile: error: the schedule file's path may not "
                    "contain '\"'\n";
    return 1;
  }
  targetOptions.printSchedules = printSchedules;
  targetOptions.scheduleFile = scheduleFile;
  llvm::SmallString<128> weightsPath;
  if (weightsMode == Weights::External) {
    if (outputFile == "-") {
      llvm::errs() << "mlc-compile: error: --weights=external needs -o FILE "
                      "(the weights go to FILE.weights)\n";
      return 1;
    }
    weightsPath = outputFile;
    llvm::sys::path::replace_extension(weightsPath, "weights");
    targetOptions.weightsFile = llvm::sys::path::filename(weightsPath).str();
    if (targetOptions.weightsFile.find('"') != std::string::npos) {
      llvm::errs() << "mlc-compile: error: the output's name may not contain "
                      "'\"' with --weights=external\n";
      return 1;
    }
  }
  auto backend = mlc::target::createCPUTargetBackend(targetOptions);
  PassManager pm(module.getContext());
  backend->buildLoweringPipeline(pm);
  if (failed(pm.run(module)))
    return 1;
  FailureOr<SmallVector<mlc::abi::ModelSignature>> models =
      collectSignatures(module);
  if (failed(models))
    return 1;
  bool usesOpenMP = false;
  module.walk([&](Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() == kOpenMPNamespace) {
      usesOpenMP = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  for (mlc::abi::ModelSignature &m : *models)
    m.usesOpenMP = usesOpenMP;
  if (!weightsPath.empty() && failed(writeWeights(module, weightsPath)))
    return 1;
  if (printMemoryPlan)
    printMemoryPlanOf(*models, getConstantBytes(module));

  std::string error;
  if (kind == Emit::LLVM) {
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output) {
      llvm::errs() << "mlc-compile: error: " << error << "\n";
      return 1;
    }
    module.print(output->os());
    output->keep();
    return 0;
  }

  // The object goes to a temporary file when it is only linked.
  std::string objectPath = outputFile;
  llvm::SmallString<128> tempObject;
  if (kind == Emit::Shared) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "mlc-model", "o", tempObject)) {
      llvm::errs() << "mlc-compile: error: cannot create a temporary file: "
                   << ec.message() << "\n";
      return 1;
    }
    objectPath = tempObject.str().str();
  }
  llvm::FileRemover removeTemp(tempObject);
  std::unique_ptr<llvm::ToolOutputFile> object =
      openOutputFile(objectPath, &error);
  if (!object) {
    llvm::errs() << "mlc-compile: error: " << error << "\n";
    return 1;
  }
  if (failed(backend->serialize(module, object->os())))
    return 1;
  object->keep();
  object->os().close();
  if (kind == Emit::Assembly)
    return 0;
  if (kind == Emit::Shared &&
      failed(linkSharedLibrary(objectPath, outputFile, usesOpenMP)))
    return 1;

  std::string header;
  llvm::raw_string_ostream headerStream(header);
  mlc::abi::writeCHeader(*models, llvm::sys::path::filename(inputFile),
                         headerStream);
  llvm::SmallString<128> headerPath(outputFile);
  llvm::sys::path::replace_extension(headerPath, "h");
  return succeeded(writeFile(headerPath, header)) ? 0 : 1;
}

int run(MLIRContext &context) {
  if (checkSupport)
    return succeeded(mlc::onnx_import::writeSupportReport(inputFile, &context,
                                                          llvm::outs()))
               ? 0
               : 1;

  mlc::onnx_import::ImportOptions options;
  if (!functionName.empty())
    options.functionName = sanitizeIdentifier(functionName);
  else if (outputFile != "-")
    options.functionName = sanitizeIdentifier(
        llvm::sys::path::stem(llvm::sys::path::filename(outputFile)));
  else
    options.functionName = "main";
  std::string error;
  for (const std::string &spec : shapes)
    if (failed(mlc::onnx_import::parseShapeOverride(spec, options, error))) {
      llvm::errs() << "mlc-compile: error: --shape: " << error << "\n";
      return 1;
    }
  for (const std::string &spec : dims)
    if (failed(mlc::onnx_import::parseDimOverride(spec, options, error))) {
      llvm::errs() << "mlc-compile: error: --dim: " << error << "\n";
      return 1;
    }

  OwningOpRef<ModuleOp> module =
      mlc::onnx_import::importModelFile(inputFile, &context, options);
  if (!module || failed(verify(*module)))
    return 1;
  Emit kind = getEmitKind();
  if (kind >= Emit::Loop) {
    // Code generation needs static shapes: say which input to pin.
    bool dynamic = false;
    for (func::FuncOp f : module->getOps<func::FuncOp>())
      for (auto [i, type] : llvm::enumerate(f.getArgumentTypes()))
        if (auto tensor = dyn_cast<RankedTensorType>(type);
            tensor && !tensor.hasStaticShape()) {
          auto name = f.getArgAttrOfType<StringAttr>(i, "mlc.name");
          llvm::errs() << "mlc-compile: error: " << inputFile << ": input '"
                       << (name ? name.getValue() : StringRef("?"))
                       << "' has dynamic shape " << type
                       << "; compiling needs static shapes: pin it with "
                          "--shape NAME=AxB or its symbolic dims with --dim "
                          "NAME=N\n";
          dynamic = true;
        }
    if (dynamic)
      return 1;
  }
  if (kind != Emit::Input) {
    PassManager pm(&context);
    mlc::buildGraphOptimizePipeline(pm, mlc::GraphOptimizePipelineOptions());
    if (kind >= Emit::Loop)
      pm.addNestedPass<func::FuncOp>(mlc::createConvertGraphToLoop());
    if (failed(pm.run(*module)))
      return 1;
  }
  if (kind >= Emit::LLVM)
    return compileForCPU(*module, kind);

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "mlc-compile: error: " << error << "\n";
    return 1;
  }
  if (emitBytecode) {
    if (failed(writeBytecodeToFile(*module, output->os())))
      return 1;
  } else {
    module->print(output->os());
  }
  output->keep();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "mlc-compile: ONNX model -> graph IR, loop IR, object file + C "
                              "header, or shared library\n");
  DialectRegistry registry;
  mlc::registerEverything(registry);
  MLIRContext context(registry);
  // Diagnostics carry the model file, node and op in their text; print a
  // location only when it says more than that.
  context.getDiagEngine().registerHandler([](Diagnostic &diag) {
    auto print = [](Diagnostic &d) {
      llvm::errs() << "mlc-compile: ";
      if (!isa<UnknownLoc>(d.getLocation()))
        llvm::errs() << d.getLocation() << ": ";
      switch (d.getSeverity()) {
      case DiagnosticSeverity::Error:
        llvm::errs() << "error: ";
        break;
      case DiagnosticSeverity::Warning:
        llvm::errs() << "warning: ";
        break;
      default:
        llvm::errs() << "note: ";
        break;
      }
      llvm::errs() << d.str() << "\n";
    };
    print(diag);
    for (Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
  return run(context);
}
