//===- CPUTarget.cpp - The CPU (x86-64, AArch64) backend ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/CPU/LoopToCPUPipeline.h"
#include "mlc/Target/CPU/TargetInfo.h"
#include "mlc/Target/Host/AttributeTranslation.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
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

  void buildKernelPipeline(OpPassManager &pm) const override {
    buildCPUKernelPipeline(pm, options);
  }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    buildCPULoweringPipeline(pm, options);
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
  host::registerMLCAttributeTranslation(*context);

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
