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

#include <functional>
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
  /// linalg/tensor/arith/scf on tensors) to kernels: the target's layout
  /// choices, `mlc_loop.kernel` formation and the target's strategy, which
  /// puts a `#mlc_loop.schedule` on the kernels it schedules.
  virtual void buildKernelPipeline(mlir::OpPassManager &pm) const = 0;

  /// Appends the passes that take scheduled kernels to the dialect
  /// `serialize` consumes.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm) const = 0;

  /// Writes the artifact for a module that `buildLoweringPipeline` produced.
  /// Emits a diagnostic on the module and fails on error.
  virtual llvm::LogicalResult serialize(mlir::ModuleOp module,
                                        llvm::raw_pwrite_stream &os) const = 0;
};

/// What machine code a backend emits and how the artifact is packaged:
/// the options every backend understands. A backend ignores those that do
/// not apply to it.
struct TargetOptions {
  /// LLVM target triple of the host code; empty means the host.
  std::string triple;
  /// CPU name (`znver3`, `cortex-a76`); `native` means the host CPU and its
  /// features; `generic` the triple's baseline CPU; empty means the host
  /// CPU when the triple is the host's (or empty), else `generic`.
  std::string cpu;
  /// Extra LLVM feature string (`+avx2,+fma`).
  std::string features;
  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 3;
  /// The object goes into a shared library: also export the entry point and
  /// metadata under the fixed names loaders look up (see ModelABI.h).
  bool sharedLibrary = false;
  /// Large kernels run on threads through the OpenMP runtime (the object
  /// then needs libomp); otherwise the code needs only libc/libm.
  bool parallel = false;
  /// serialize() writes assembly text instead of an object file.
  bool assembly = false;
  /// Print each kernel's schedule to stdout while lowering.
  bool printSchedules = false;
  /// Time each kernel call into counters a loader reads
  /// (mlc-host-instrument-kernels; `mlc-compile --profile`).
  bool profile = false;
  /// Schedules that replace the heuristic's for the kernels they name
  /// (a file in --print-schedules' format); empty for none.
  std::string scheduleFile = "";
  /// When set, the weights leave the object: the lowered module carries
  /// them as `mlc_loop.weights` for the driver to write to a file of this name
  /// (recorded in the metadata), and the entry point takes them as an
  /// argument. Empty: weights are embedded in the object.
  std::string weightsFile = "";

  /// GPU: the architecture the code is for (`sm_80` ... `sm_90a`).
  std::string gpuArch = "sm_80";
  /// GPU: the CUDA toolkit whose libdevice, ptxas and fatbinary are used
  /// when present; empty: `/usr/local/cuda`.
  std::string cudaPath = "";
  /// GPU: the output rows and columns of a reduction's register tile (one
  /// thread's accumulators; mlc-gpu-set-schedules).
  int64_t gpuRegisterRows = 1;
  int64_t gpuRegisterCols = 1;
  /// GPU: compile the GPU's kernels for the CPU instead, their blocks and
  /// threads as loops (a check of the GPU strategy that needs no GPU).
  bool gpuHostEmulation = false;

  /// NPU: the description (a built-in name, `edge` or `large`, or a JSON
  /// file; docs/NPU.md).
  std::string npuConfig = "edge";
  /// NPU: a JSON object from ONNX node names to "cpu" or "npu" that
  /// overrides the placement; empty for none.
  std::string npuPlacementFile = "";
  /// NPU: print each matmul's device and the reason while compiling.
  bool printPlacement = false;
  /// NPU: `bf16` (f32 matmuls and convolutions run on the NPU as bf16) or
  /// `cpu` (they stay on the CPU; only quantized ones go to the NPU).
  std::string npuFloat = "bf16";
};

/// Makes a backend for the given options.
using TargetBackendFactory =
    std::function<std::unique_ptr<TargetBackend>(const TargetOptions &)>;

/// Adds a backend to the registry under `name` (the value of `--target`);
/// a second registration of the same name replaces the first.
void registerTargetBackend(llvm::StringRef name, llvm::StringRef description,
                           TargetBackendFactory factory);

/// The backend registered as `name`, made for `options`, or null.
std::unique_ptr<TargetBackend> createTargetBackend(llvm::StringRef name,
                                                   const TargetOptions &options);

/// Names and descriptions of all registered backends, sorted by name.
std::vector<std::pair<std::string, std::string>> getRegisteredTargetBackends();

/// Registers every backend mlc ships (idempotent).
void registerAllTargetBackends();

} // namespace mlc::target

#endif // MLC_TARGET_TARGETBACKEND_H
