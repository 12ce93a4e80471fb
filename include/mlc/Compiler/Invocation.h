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
#include <vector>

namespace mlc::compiler {
class PhaseTimer;
struct ReportData;

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
  /// Where the result goes (`-` for stdout, for IR and assembly only;
  /// empty: nowhere, the result stays in memory; a shared library needs a
  /// file).
  std::string outputFile;
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

  /// Settings mlc::compile() resolves against the output file before it
  /// runs (an Invocation made directly takes importOptions.functionName,
  /// targetOptions.parallel and targetOptions.weightsFile as they are):
  /// the model's symbol prefix, empty for getDefaultModelName(outputFile);
  std::string modelName;
  /// large kernels on threads; unset: on for the host, off with a triple;
  std::optional<bool> parallel;
  /// the weights in FILE.weights beside the output, not in the object;
  bool externalWeights = false;
  /// an HTML report of the compile written here (empty: none), with the
  /// kernel times of an `mlc-run --profile=FILE` JSON file when given.
  std::string reportFile;
  std::string reportProfile;
  /// Testing only: a node whose result is made wrong on purpose
  /// (mlc-graph-test-perturb-node), to test the tools that find one.
  std::string testingPerturbNode;
};

/// How long one phase took, and the process's peak memory when it ended.
struct PhaseTiming {
  std::string phase;
  double seconds = 0;
  int64_t peakMemoryBytes = 0;
};

/// Where a compilation is, as each pass starts.
struct Progress {
  llvm::StringRef phase;
  /// The top-level pass it is in (from 1) of `passes`; 0 of 0 outside the
  /// pass pipeline (code generation).
  unsigned pass = 0, passes = 0;
  llvm::StringRef passName;
  /// For a pass on each function (each outlined kernel, late in the
  /// pipeline): the functions it has started on (from 1) of `functions`;
  /// 0 of 0 for a pass on the whole module.
  unsigned function = 0, functions = 0;
};
using ProgressCallback = std::function<void(const Progress &)>;

/// What a compilation produced, in memory. Invocation::writeOutput() also
/// writes it to CompileOptions::outputFile and the files beside it.
struct Artifacts {
  /// Phase::Object: the relocatable object (also for a shared library,
  /// which is linked from it), or the assembly text.
  std::string object;
  /// Phase::Object, except for assembly: the model's C header.
  std::string header;
  /// With external weights: the contents of FILE.weights.
  std::string weights;
  /// An earlier phase: its IR, as text or bytecode.
  std::string ir;
  /// CompileOptions::printMemoryPlan: the arena, weight and input/output
  /// bytes of each model.
  std::string memoryPlan;
  /// The files written, the main output first.
  std::vector<std::string> files;
  /// Each phase's wall time and the peak memory after it, in order:
  /// import, graph, loop, kernels, llvm (the pass pipelines), object (LLVM's
  /// code generator), link.
  std::vector<PhaseTiming> timings;
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

  /// Called as each pass starts (a progress display).
  void setProgressCallback(ProgressCallback callback) {
    progressCallback = std::move(callback);
  }

  /// Times the work from now to the next phase or to endPhase() as
  /// `phase` (for work done outside the Invocation, e.g. an import).
  void beginPhase(llvm::StringRef phase);
  void endPhase();
  /// The phases timed so far.
  const std::vector<PhaseTiming> &getTimings() const { return timings; }
  /// What run() recorded for the report (CompileOptions::reportFile), or
  /// null.
  const ReportData *getReportData() const { return report.get(); }

  /// Imports or parses the input and works out its phase.
  llvm::LogicalResult load();

  /// Takes a module already loaded (e.g. imported from bytes in memory)
  /// at `phase`, instead of load().
  llvm::LogicalResult load(mlir::OwningOpRef<mlir::ModuleOp> loaded,
                           Phase phase);

  /// Appends the passes from the loaded phase to `compileTo` (not counting
  /// serialization) to `pm`. Fails for an unknown target or a stop before
  /// the start.
  llvm::LogicalResult buildPipeline(mlir::OpPassManager &pm);

  /// Runs those passes on the loaded module.
  llvm::LogicalResult run();

  /// Produces the result in memory: the IR of `compileTo`, or for
  /// Phase::Object the object (or assembly), header and weights.
  llvm::LogicalResult emit(Artifacts &artifacts);

  /// Writes `artifacts` to `outputFile` (`-`: stdout) and beside it
  /// (FILE.h, FILE.weights), linking a shared library from the object;
  /// records the paths in `artifacts.files`.
  llvm::LogicalResult write(Artifacts &artifacts);

  /// emit() and write(); prints the memory plan to stdout when asked.
  llvm::LogicalResult writeOutput();

  /// The phase the input was loaded at.
  Phase getInputPhase() const { return inputPhase; }
  /// The module as it stands.
  mlir::ModuleOp getModule() { return *module; }

private:
  /// The backend for the options, or null after a diagnostic.
  std::unique_ptr<target::TargetBackend> createBackend();
  llvm::LogicalResult checkStaticInputs();
  llvm::LogicalResult buildPipeline(mlir::OpPassManager &pm,
                                    PhaseTimer *timer);
  llvm::LogicalResult emitIR(Artifacts &artifacts);
  llvm::LogicalResult emitArtifact(Artifacts &artifacts);

  mlir::MLIRContext &context;
  CompileOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Phase inputPhase = Phase::Input;
  std::unique_ptr<target::TargetBackend> backend;
  std::function<llvm::LogicalResult(mlir::PassManager &)> passManagerHook;
  /// The object calls the OpenMP runtime: a shared library links it.
  bool usesOpenMPRuntime = false;
  /// The weights go to FILE.weights.
  bool externalWeights = false;
  std::vector<PhaseTiming> timings;
  std::unique_ptr<PhaseTimer> timer;
  std::unique_ptr<ReportData> report;
  ProgressCallback progressCallback;
};

} // namespace mlc::compiler

#endif // MLC_COMPILER_INVOCATION_H
