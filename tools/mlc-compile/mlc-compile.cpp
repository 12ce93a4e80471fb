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
// mlc-compile MODEL.onnx --compile-to=input|graph|loop|llvm -o OUT.mlir
// mlc-compile OUT.mlir --compile-from=PHASE -o model.o
//   [--target=cpu] [--shape NAME=AxB] [--dim NAME=N] [--check-support]
//   [--name=P] [--mtriple=T] [--mcpu=C] [--print-memory-plan]
//   [--weights=external] [--dump-pass-pipeline] [--mlir-timing] ...
//
// A command line over mlc::compile() (mlc/Compiler/Compile.h).
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/Compile.h"
#include "mlc/Compiler/CrashGuard.h"
#include "mlc/Frontend/ONNX/Importer.h"
#include "mlc/InitAll.h"
#include "mlc/Target/CPU/TargetInfo.h"
#include "mlc/Target/GPU/GPUTarget.h"
#include "mlc/Pipelines/Pipelines.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <optional>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Default, Input, Graph, Loop, LLVM, Assembly, Object, Shared };

cl::OptionCategory category("mlc-compile options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<model.onnx | phase.mlir>"),
                               cl::cat(category));
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
        clEnumValN(Emit::LLVM, "llvm",
                   "the lowered module: LLVM dialect (with --target=gpu, "
                   "the host code and the GPU binary)"),
        clEnumValN(Emit::Assembly, "asm",
                   "assembly text: the CPU's, or PTX with --target=gpu"),
        clEnumValN(Emit::Object, "obj",
                   "object file, plus a C header next to it (FILE.h); with "
                   "--target=gpu the host code with the kernels' PTX inside, "
                   "and the weights in FILE.weights"),
        clEnumValN(Emit::Shared, "shared",
                   "self-contained shared library (needs a C compiler driver "
                   "'cc' to link), plus a C header")),
    cl::cat(category));
cl::opt<bool> emitBytecode("emit-bytecode",
                           cl::desc("Write MLIR bytecode instead of text"),
                           cl::cat(category));
cl::opt<bool> checkSupport(
    "check-support",
    cl::desc("Print which ops the model uses (If/Loop/Scan bodies "
             "included) and which the importer does not convert; then compile "
             "for --target to its LLVM dialect in memory, at --shape/--dim "
             "(other unknown input dims 1), and list each node the lowering "
             "refuses. Exit 1 when the model does not compile; write "
             "nothing"),
    cl::cat(category));
cl::list<std::string>
    shapes("shape",
           cl::desc("Pin an input's shape, e.g. --shape image=1x3x224x224 "
                    "(? keeps a dim dynamic); repeatable"),
           cl::value_desc("name=shape"), cl::cat(category));
cl::list<std::string>
    dims("dim",
         cl::desc("Give a symbolic dim a value, e.g. --dim batch=1; "
                  "repeatable. Left unpinned, a batch dim (dim 0 of the "
                  "inputs, which no op mixes) is compiled once for any "
                  "batch; on the CPU target other symbolic dims (a "
                  "sequence length, an image size) stay symbolic too, and "
                  "the code takes their values at run time; the NPU and "
                  "GPU targets need them pinned"),
         cl::value_desc("name=N"), cl::cat(category));
cl::list<std::string> dimBounds(
    "dim-max",
    cl::desc("Bound a symbolic dim left symbolic, e.g. --dim-max H=1024; "
             "repeatable. Buffers whose size depends on bounded dims get "
             "their place in the arena at the bound (no heap allocation per "
             "run), and a run with a larger value fails with an error "
             "naming the input and dim"),
    cl::value_desc("name=N"), cl::cat(category));
cl::opt<std::string>
    mtriple("mtriple", cl::desc("Target triple for llvm/obj (default: host)"),
            cl::cat(category));
/// `--mcpu`'s help names the build's default CPU when it has one.
const std::string mcpuHelp =
    "Target CPU (default: " +
    (mlc::target::defaultCPU({}).empty()
         ? std::string("this machine's CPU and features")
         : "'" + mlc::target::defaultCPU({}) + "' (this build's default)") +
    " when compiling for this machine's triple, "
    "else the triple's baseline; for --target=gpu the baseline, as its host "
    "code only launches kernels; 'native' = this machine's; 'generic' = the "
    "triple's baseline, e.g. x86-64 without AVX/FMA, for a portable object)";
cl::opt<std::string>
    mcpu("mcpu",
         cl::desc(mcpuHelp),
         cl::cat(category));
cl::opt<std::string>
    mattr("mattr",
          cl::desc("Target features to add or remove, comma-separated, as "
                   "LLVM spells them (e.g. +avx2,+fma or +prefer-256-bit)"),
          cl::value_desc("+a,-b"), cl::cat(category));
cl::opt<std::string>
    gpuArch("gpu-arch",
            cl::desc("NVIDIA architecture for --target=gpu: sm_80 (default), "
                     "sm_86, sm_89, sm_90 or sm_90a"),
            cl::init("sm_80"), cl::cat(category));
cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit for --target=gpu, for libdevice's math "
                      "functions (default: /usr/local/cuda); nothing from it "
                      "is needed to build mlc"),
             cl::cat(category));
cl::opt<std::string> gpuRegisterTile(
    "gpu-register-tile",
    cl::desc("With --target=gpu: the output elements one thread of a "
             "reduction (a matmul, a convolution) accumulates in registers, "
             "as ROWSxCOLS of its output's last two dims (default 1x1)"),
    cl::value_desc("RxC"), cl::init("1x1"), cl::cat(category));
cl::opt<bool> gpuHostEmulation(
    "gpu-host-emulation",
    cl::desc("With --target=gpu: compile the GPU's kernels for this CPU, "
             "blocks and threads as loops, to check the GPU strategy "
             "without a GPU (the output is a CPU object or library)"),
    cl::cat(category));
cl::opt<std::string> npuConfig(
    "npu-config",
    cl::desc("The NPU for --target=npu: a built-in description, edge "
             "(default; 16x16 int8, Gemmini-like) or large (64x64 "
             "int8/bf16/f16), or a JSON file (docs/NPU.md)"),
    cl::value_desc("NAME|FILE"), cl::init("edge"), cl::cat(category));
cl::opt<bool> printPlacement(
    "print-placement",
    cl::desc("With --target=npu: print the device (npu or cpu) of each "
             "matmul, convolution, quantized residual add and pooling and "
             "why (the NPU lowering's tiles and the simulator's time for "
             "its stream against the CPU's estimate, or what the NPU "
             "lacks) to stdout while compiling"),
    cl::cat(category));
cl::opt<std::string> npuPlacement(
    "npu-placement",
    cl::desc("With --target=npu: a JSON file {\"node\": \"cpu\"|\"npu\"} "
             "that forces the placement of the kernels (matmuls, "
             "convolutions, quantized adds, poolings) of those ONNX nodes (a forced npu the NPU cannot run is an "
             "error); the key \"*\" sets it for the nodes not named "
             "(\"*\": \"npu\" puts everything the NPU can run there)"),
    cl::value_desc("FILE"), cl::cat(category));
cl::opt<std::string> npuFloat(
    "npu-float",
    cl::desc("With --target=npu: where f32 matmuls and convolutions run: bf16 "
             "(default: on the NPU, its matrix unit taking the operands as "
             "bf16, about 3 significant digits) or cpu (they stay on the CPU "
             "in f32; only quantized models' integer kernels go to the NPU)"),
    cl::value_desc("bf16|cpu"), cl::init("bf16"), cl::cat(category));
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
cl::opt<bool> profileKernels(
    "profile",
    cl::desc("Time every kernel call into counters in the object, for "
             "`mlc-run --profile` (a clock read before and after each "
             "kernel; the code is otherwise the same)"),
    cl::cat(category));
cl::opt<std::string> reportFile(
    "report",
    cl::desc("Write one self-contained HTML page about the compile: the "
             "ONNX nodes of each kernel (the graph after fusion), each "
             "kernel's schedule and inputs, the outlined functions, the "
             "arena plan and the phases' times"),
    cl::value_desc("file.html"), cl::cat(category));
cl::opt<std::string> reportProfile(
    "report-profile",
    cl::desc("With --report: add each kernel's time and share from a file "
             "written by `mlc-run --profile=FILE` (of a library compiled "
             "with --profile)"),
    cl::value_desc("profile.json"), cl::cat(category));
cl::opt<std::string> testingPerturbNode(
    "testing-perturb-node",
    cl::desc("Testing only: add 0.5 to this ONNX node's result, a planted "
             "wrong lowering for testing --bisect"),
    cl::Hidden, cl::cat(category));
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
cl::opt<mlc::Phase> compileTo(
    "compile-to",
    cl::desc("Stop after this phase and write its IR (text with locations, "
             "so that --compile-from resumes to the same object; or "
             "--emit-bytecode), or the artifact for 'object' (default: "
             "object when -o names a .o, .so or .s file, else graph)"),
    cl::values(
        clEnumValN(mlc::Phase::Input, "input", "graph dialect as imported"),
        clEnumValN(mlc::Phase::Graph, "graph",
                   "graph dialect after canonicalization and shape inference"),
        clEnumValN(mlc::Phase::Loop, "loop",
                   "linalg/tensor/arith/math/scf on tensors"),
        clEnumValN(mlc::Phase::Kernels, "kernels",
                   "mlc_loop.kernel ops with the target's schedules"),
        clEnumValN(mlc::Phase::LLVM, "llvm", "the target's LLVM dialect"),
        clEnumValN(mlc::Phase::Object, "object",
                   "object, shared library or assembly, by -o's extension")),
    cl::cat(category));
cl::opt<mlc::Phase> compileFrom(
    "compile-from",
    cl::desc("The phase the input .mlir/.mlirbc file is at, as written by "
             "--compile-to (default: an .onnx file is imported; an IR file "
             "is at 'llvm' if it holds LLVM functions, 'kernels' if it holds "
             "mlc_loop.kernel ops, 'input' if it holds graph ops, else "
             "'loop')"),
    cl::values(
        clEnumValN(mlc::Phase::Input, "input", "graph dialect as imported"),
        clEnumValN(mlc::Phase::Graph, "graph", "optimized graph dialect"),
        clEnumValN(mlc::Phase::Loop, "loop", "loop level on tensors"),
        clEnumValN(mlc::Phase::Kernels, "kernels", "scheduled kernels"),
        clEnumValN(mlc::Phase::LLVM, "llvm", "the target's LLVM dialect")),
    cl::cat(category));
cl::opt<std::string> targetName(
    "target",
    cl::desc("The backend that generates code (--list-targets; default: "
             "cpu)"),
    cl::init("cpu"), cl::cat(category));
cl::opt<bool> listTargets("list-targets",
                          cl::desc("List the backends and exit"),
                          cl::cat(category));
cl::opt<bool> timing(
    "timing",
    cl::desc("Print each phase's wall time and the peak memory after it to "
             "stderr (import, graph, loop, kernels, llvm, object, link); "
             "--mlir-timing gives the same per pass"),
    cl::cat(category));
cl::opt<bool> progress(
    "progress",
    cl::desc("Show the phase and pass being run on stderr while compiling "
             "(default: when stderr is a terminal, once a compile takes "
             "over two seconds; --progress=false never)"),
    cl::init(true), cl::cat(category));
cl::opt<double> progressDelay(
    "progress-delay",
    cl::desc("Seconds a compile runs before --progress shows (default 2)"),
    cl::init(2.0), cl::Hidden, cl::cat(category));
cl::opt<bool> dumpPassPipeline(
    "dump-pass-pipeline",
    cl::desc("Print the pass pipeline from the input's phase to the last "
             "one to stderr, in the form mlc-opt --pass-pipeline takes"),
    cl::cat(category));
cl::opt<std::string> testCrash(
    "test-crash-in-pass",
    cl::desc("Testing only: crash on purpose when the pass of this "
             "argument starts (PASS or PASS:deadlock, whose crash handler "
             "then blocks)"),
    cl::Hidden, cl::cat(category));
cl::OptionCategory limitsCategory(
    "Limits",
    "What a model may ask for; over a limit, it is refused with a message "
    "naming the node and the size (docs/Reliability.md)");
cl::opt<int64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("The most bytes one tensor of the model may hold (default: "
             "4 GiB)"),
    cl::init(int64_t(4) << 30), cl::cat(limitsCategory));
cl::opt<int64_t> maxNodes(
    "max-nodes",
    cl::desc("The most nodes a model may have, subgraphs included "
             "(default: 4194304)"),
    cl::init(int64_t(1) << 22), cl::cat(limitsCategory));
cl::opt<int64_t> maxNesting(
    "max-nesting",
    cl::desc("How deep subgraphs (If, Loop, Scan bodies) may nest (default: "
             "16)"),
    cl::init(16), cl::cat(limitsCategory));
cl::opt<std::string> linker(
    "linker",
    cl::desc("C compiler driver that links --emit=shared (default: cc, or "
             "<triple>-gcc for another target)"),
    cl::cat(category));

/// Diagnostics carry the model file, node and op in their text; a location
/// is printed only when it says more than that.
void printDiagnostic(Diagnostic &diagnostic) {
  std::string text = mlc::formatDiagnostic(diagnostic);
  for (StringRef line : llvm::split(text, '\n'))
    llvm::errs() << "mlc-compile: " << line << "\n";
}

/// Prints the phase table of --timing.
void printTimings(llvm::ArrayRef<mlc::compiler::PhaseTiming> timings) {
  double total = 0;
  int64_t peak = 0;
  llvm::errs() << "mlc-compile: phase      wall (s)  peak memory (MiB)\n";
  auto row = [](StringRef name, double seconds, int64_t bytes) {
    llvm::errs() << llvm::format("mlc-compile: %-9s %9.3f %18.1f\n",
                                 name.str().c_str(), seconds,
                                 double(bytes) / (1 << 20));
  };
  for (const mlc::compiler::PhaseTiming &t : timings) {
    row(t.phase, t.seconds, t.peakMemoryBytes);
    total += t.seconds;
    peak = std::max(peak, t.peakMemoryBytes);
  }
  row("total", total, peak);
}

/// The one-line progress display on a terminal: shown once the compile has
/// run two seconds, redrawn at most ten times a second, erased at the end.
class ProgressLine {
public:
  ProgressLine() : start(Clock::now()) {}
  ~ProgressLine() {
    if (shown)
      llvm::errs() << "\r\x1b[K";
  }
  void update(const mlc::compiler::Progress &at) {
    Clock::time_point now = Clock::now();
    if (now - start < std::chrono::duration<double>(progressDelay) ||
        (shown && now - last < std::chrono::milliseconds(100)))
      return;
    last = now;
    shown = true;
    double seconds = std::chrono::duration<double>(now - start).count();
    llvm::errs() << "\r\x1b[Kmlc-compile: [" << at.phase;
    if (at.passes)
      llvm::errs() << " " << at.pass << "/" << at.passes;
    llvm::errs() << "] " << at.passName;
    if (at.functions > 1)
      llvm::errs() << ", function " << at.function << "/" << at.functions;
    llvm::errs() << llvm::format("  %.1f s", seconds);
    llvm::errs().flush();
  }

private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start, last;
  bool shown = false;
};

/// The phase to stop at and the artifact, from --compile-to, --emit and
/// the output's extension.
void chooseOutput(mlc::compiler::CompileOptions &options) {
  using mlc::Phase;
  using mlc::compiler::ArtifactKind;
  // An .onnx model to a file that is no artifact: graph IR, as before
  // there were phases; an IR file: the object.
  mlc::setOutputKind(options, outputFile);
  switch (emit) {
  case Emit::Input:
    options.compileTo = Phase::Input;
    return;
  case Emit::Graph:
    options.compileTo = Phase::Graph;
    return;
  case Emit::Loop:
    options.compileTo = Phase::Loop;
    return;
  case Emit::LLVM:
    options.compileTo = Phase::LLVM;
    return;
  case Emit::Assembly:
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Assembly;
    return;
  case Emit::Object:
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Object;
    return;
  case Emit::Shared:
    options.compileTo = Phase::Object;
    options.artifact = ArtifactKind::Shared;
    return;
  case Emit::Default:
    break;
  }
  if (compileTo.getNumOccurrences())
    options.compileTo = compileTo;
}

int run(MLIRContext &context) {
  if (listTargets) {
    mlc::target::registerAllTargetBackends();
    for (const auto &[name, description] :
         mlc::target::getRegisteredTargetBackends())
      llvm::outs() << name << ": " << description << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "mlc-compile: error: no input file (see --help)\n";
    return 1;
  }
  mlc::compiler::CompileOptions options;
  options.outputFile = outputFile;
  chooseOutput(options);
  if (compileFrom.getNumOccurrences())
    options.compileFrom = compileFrom;
  options.target = targetName;
  options.emitBytecode = emitBytecode;
  // --compile-to writes a phase to resume from; otherwise IR is printed to
  // be read (--mlir-print-debuginfo adds the locations).
  options.printLocations = compileTo.getNumOccurrences() > 0;
  options.printMemoryPlan = printMemoryPlan;
  options.linker = linker;
  options.modelName = functionName;
  if (parallel.getNumOccurrences())
    options.parallel = bool(parallel);
  options.externalWeights = weightsMode == Weights::External;
  options.reportFile = reportFile;
  options.reportProfile = reportProfile;
  options.testingPerturbNode = testingPerturbNode;

  options.maxTensorBytes = maxTensorBytes;
  mlc::onnx_import::ImportOptions &import = options.importOptions;
  import.maxNodes = maxNodes;
  import.maxNesting = maxNesting;
  import.maxTensorBytes = maxTensorBytes;
  std::string error;
  for (const std::string &spec : shapes)
    if (failed(mlc::onnx_import::parseShapeOverride(spec, import, error))) {
      llvm::errs() << "mlc-compile: error: --shape: " << error << "\n";
      return 1;
    }
  for (const std::string &spec : dims)
    if (failed(mlc::onnx_import::parseDimOverride(spec, import, error))) {
      llvm::errs() << "mlc-compile: error: --dim: " << error << "\n";
      return 1;
    }
  for (const std::string &spec : dimBounds)
    if (failed(mlc::onnx_import::parseDimBound(spec, import, error))) {
      llvm::errs() << "mlc-compile: error: --dim-max: " << error << "\n";
      return 1;
    }

  mlc::target::TargetOptions &target = options.targetOptions;
  target.triple = mtriple;
  target.cpu = mcpu;
  target.features = mattr;
  if (!mlc::target::getPTXFeatures(gpuArch)) {
    llvm::errs() << "mlc-compile: error: --gpu-arch=" << gpuArch
                 << ": expected sm_80, sm_86, sm_89, sm_90 or sm_90a\n";
    return 1;
  }
  if (gpuHostEmulation && targetName != "gpu") {
    llvm::errs() << "mlc-compile: error: --gpu-host-emulation goes with "
                    "--target=gpu\n";
    return 1;
  }
  if ((printPlacement || !npuPlacement.empty() ||
       npuConfig.getNumOccurrences() || npuFloat.getNumOccurrences()) &&
      targetName != "npu") {
    llvm::errs() << "mlc-compile: error: --npu-config, --npu-float, "
                    "--print-placement and --npu-placement go with "
                    "--target=npu\n";
    return 1;
  }
  if (npuFloat != "bf16" && npuFloat != "cpu") {
    llvm::errs() << "mlc-compile: error: --npu-float=" << npuFloat
                 << ": expected bf16 or cpu\n";
    return 1;
  }
  target.npuFloat = npuFloat;
  target.npuConfig = npuConfig;
  target.printPlacement = printPlacement;
  target.npuPlacementFile = npuPlacement;
  target.gpuArch = gpuArch;
  target.cudaPath = cudaPath;
  target.gpuHostEmulation = gpuHostEmulation;
  {
    llvm::StringRef rows, cols;
    std::tie(rows, cols) = llvm::StringRef(gpuRegisterTile).split('x');
    if (rows.getAsInteger(10, target.gpuRegisterRows) ||
        cols.getAsInteger(10, target.gpuRegisterCols) ||
        target.gpuRegisterRows < 1 || target.gpuRegisterCols < 1 ||
        target.gpuRegisterRows * target.gpuRegisterCols > 16) {
      llvm::errs() << "mlc-compile: error: --gpu-register-tile="
                   << gpuRegisterTile
                   << ": expected ROWSxCOLS, each at least 1, at most 16 "
                      "elements (e.g. 2x4)\n";
      return 1;
    }
  }
  target.printSchedules = printSchedules;
  target.profile = profileKernels;
  target.scheduleFile = scheduleFile;

  if (checkSupport)
    return succeeded(mlc::checkSupport(inputFile, options, context,
                                       llvm::outs()))
               ? 0
               : 1;

  mlc::CompileHooks hooks;
  hooks.context = &context;
  hooks.onDiagnostic = printDiagnostic;
  hooks.onPassManager = [](PassManager &pm) {
    pm.addInstrumentation(mlc::createCrashContextInstrumentation(testCrash));
    if (dumpPassPipeline) {
      pm.printAsTextualPipeline(llvm::errs());
      llvm::errs() << "\n";
    }
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    return success();
  };
  std::optional<ProgressLine> line;
  if (progress && llvm::sys::Process::StandardErrIsDisplayed()) {
    line.emplace();
    hooks.onProgress = [&line](const mlc::compiler::Progress &at) {
      line->update(at);
    };
    // A diagnostic starts on a clean line.
    hooks.onDiagnostic = [&line](Diagnostic &diagnostic) {
      line.reset();
      line.emplace();
      printDiagnostic(diagnostic);
    };
  }
  llvm::Expected<mlc::compiler::Artifacts> artifacts =
      mlc::compile(mlc::ModelSource::fromFile(inputFile), options, hooks);
  line.reset();
  if (!artifacts) {
    // Every diagnostic was printed as it came.
    llvm::consumeError(artifacts.takeError());
    return 1;
  }
  llvm::outs() << artifacts->memoryPlan;
  if (timing)
    printTimings(artifacts->timings);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlc::installCrashGuard("mlc-compile");
  // Passes are registered before the options are parsed:
  // --mlir-print-ir-after=PASS looks them up.
  DialectRegistry registry;
  mlc::registerEverything(registry);
  // MLIR's pass-manager, timing, printing and context options work as in
  // mlc-opt (--mlir-timing, --mlir-print-ir-after-all, ...).
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  static cl::OptionCategory mlirCategory("MLIR options (as in mlc-opt)");
  for (auto &option : cl::getRegisteredOptions())
    if (option.first.starts_with("mlir-"))
      option.second->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&category, &limitsCategory, &mlirCategory});
  cl::ParseCommandLineOptions(argc, argv,
      "mlc-compile: an ONNX model (or the .mlir of a phase) -> the IR of any "
      "phase (input, graph, loop, kernels, llvm), or an object file, shared "
      "library or assembly with a C header\n");
  MLIRContext context(registry);
  // An error names the file, node and op; the op's IR after it is for
  // compiler developers, who ask for it with --mlir-print-op-on-diagnostic.
  cl::Option *printOp =
      cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  if (!printOp || !printOp->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler([](Diagnostic &diagnostic) {
    printDiagnostic(diagnostic);
    return success();
  });
  return run(context);
}
