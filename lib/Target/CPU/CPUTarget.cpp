//===- CPUTarget.cpp - The CPU (x86-64, AArch64) backend ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace mlc::target;

namespace {
/// Upstream lowering from linalg on tensors to the LLVM dialect, around
/// mlc's model ABI: the signature is recorded while types are still
/// tensors, results become destination arguments, every intermediate buffer
/// is placed in the arena, and memrefs cross the entry point as bare
/// pointers. `%t` is the weight packing's panel width, `%d` the vector
/// width for choosing depthwise convolutions computed channels-last and
/// `%p` the tiling
/// pass's options (tiles from the target's vector unit and caches,
/// `parallel`, schedules), `%w`
/// moves the weights out of the object when asked, `%s` is the entry-point
/// pass's option list. Thread-level `scf.forall` loops become
/// OpenMP parallel loops (`__kmpc_*` calls into libomp).
constexpr llvm::StringLiteral kLoweringPipeline =
    "func.func(mlc-cpu-fold-weight-transposes,mlc-cpu-fuse-elementwise,"
    "mlc-cpu-small-convolutions-as-matmuls{%t},"
    "mlc-cpu-channels-last-depthwise{%d},mlc-cpu-fold-weight-transposes,"
    "mlc-cpu-approximate-math,mlc-cpu-reassociate-sums,"
    "mlc-cpu-pack-weights{%t},"
    "mlc-cpu-tile-and-vectorize{%p},"
    "mlc-cpu-flatten-constants,mlc-cpu-concat-in-place),"
    "mlc-cpu-prepare-model-abi,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions},"
    "mlc-cpu-plan-arena,%w"
    "mlc-cpu-lower-copies,mlc-cpu-outline-kernels,mlc-cpu-byte-weights,"
    "func.func(convert-linalg-to-loops,convert-vector-to-scf{full-unroll}),"
    "func.func(scf-forall-to-parallel),convert-scf-to-openmp,"
    "func.func(canonicalize),mlc-cpu-stack-scratch,"
    "lower-affine,convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,convert-vector-to-llvm,"
    "convert-math-to-llvm,convert-math-to-libm,"
    "mlc-cpu-scalar-min-max,arith-expand{include-bf16},convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-cf-to-llvm,"
    "convert-ub-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv},"
    "convert-openmp-to-llvm,"
    "mlc-cpu-emit-entry-points{%s},reconcile-unrealized-casts";

void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

class CPUTargetBackend final : public TargetBackend {
public:
  explicit CPUTargetBackend(CPUTargetOptions options)
      : options(std::move(options)) {}

  llvm::StringRef getName() const override { return "cpu"; }

  llvm::StringRef getDescription() const override {
    return "CPU through LLVM (x86-64 by default, AArch64 with "
           "--mtriple=aarch64-linux-gnu)";
  }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    // The pipeline text is a constant of this file: failing to parse it is
    // a broken invariant, not bad input.
    // Placeholders are filled from the last to the first, so that a path
    // in one cannot be mistaken for a later placeholder.
    std::string text = kLoweringPipeline.str();
    text.replace(text.find("%s"), 2,
                 options.sharedLibrary ? "shared-aliases=true" : "");
    std::string weights;
    if (!options.weightsFile.empty())
      weights = "mlc-cpu-externalize-weights{file=\"" + options.weightsFile +
                "\"},";
    text.replace(text.find("%w"), 2, weights);
    CPUTargetInfo info = getCPUTargetInfo(options);
    ContractionTiles tiles = chooseContractionTiles(info);
    ContractionTiles unpacked = chooseContractionTiles(info, kCacheLineFloats);
    std::string tiling = llvm::formatv(
        "parallel={0} m-tile={1} n-tile={2} k-tile={3} n-block={4} "
        "unpacked-tiles={5},{6},{7},{8}{10} vector-width={9}",
        options.parallel ? "true" : "false", tiles.mTile, tiles.nTile,
        tiles.kTile, tiles.nBlock, unpacked.mTile, unpacked.nTile,
        unpacked.kTile, unpacked.nBlock, info.lanes(),
        unpacked.registerRows
            ? llvm::formatv(",{0},{1}", unpacked.registerRows,
                            unpacked.registerColumns)
                  .str()
            : std::string());
    if (options.printSchedules) {
      tiling += " print-schedules=true";
      llvm::outs() << "// target: " << describe(info, tiles, unpacked) << "\n";
    }
    if (!options.scheduleFile.empty())
      tiling += " schedule-file=\"" + options.scheduleFile + "\"";
    text.replace(text.find("%p"), 2, tiling);
    text.replace(text.find("%d"), 2,
                 "lanes=" + std::to_string(info.lanes()));
    // Twice: the small convolutions' and the packing's panel width.
    for (int i = 0; i < 2; ++i)
      text.replace(text.find("%t"), 2,
                   "panel=" + std::to_string(tiles.nTile));
    if (failed(parsePassPipeline(text, pm, llvm::errs())))
      llvm::report_fatal_error("mlc: invalid built-in CPU lowering pipeline");
  }

  LogicalResult serialize(ModuleOp module,
                          llvm::raw_pwrite_stream &os) const override;

private:
  CPUTargetOptions options;
};
} // namespace

LogicalResult CPUTargetBackend::serialize(ModuleOp module,
                                          llvm::raw_pwrite_stream &os) const {
  initializeLLVMTargets();
  MLIRContext *context = module->getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);

  llvm::Triple triple(options.triple.empty()
                          ? llvm::sys::getDefaultTargetTriple()
                          : options.triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("unknown target triple '")
           << triple.str() << "': " << error;

  ResolvedCPU resolved = resolveCPU(options);
  const std::string &cpu = resolved.cpu;

  llvm::TargetOptions targetOptions;
  auto optLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, resolved.features, targetOptions, llvm::Reloc::PIC_,
      std::nullopt, optLevel));
  if (!machine)
    return module.emitError("cannot create a target machine for '")
           << triple.str() << "' (cpu '" << cpu << "')";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  // The tiling heuristic sized the register tiles for the vector width the
  // CPU prefers (getCPUTargetInfo); without this attribute x86's LLVM keeps
  // 512-bit types legal in every function and puts a 16-float vector in one
  // zmm register even where the CPU prefers 256-bit ones
  // (`--mattr=+prefer-256-bit`, Skylake-AVX512).
  if (triple.isX86())
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration())
        function.addFnAttr("min-legal-vector-width", "0");

  auto optimize = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                            machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return module.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(err));

  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, /*DwoOut=*/nullptr,
                                   options.assembly
                                       ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile))
    return module.emitError("target '")
           << triple.str() << "' cannot emit object files";
  codegen.run(*llvmModule);
  return success();
}

std::unique_ptr<TargetBackend>
mlc::target::createCPUTargetBackend(CPUTargetOptions options) {
  return std::make_unique<CPUTargetBackend>(std::move(options));
}
