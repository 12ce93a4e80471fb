//===- GPUTarget.cpp - The NVIDIA GPU (NVPTX) backend ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/GPU/GPUTarget.h"
#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/GPU/LoopToGPUPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

std::optional<std::string> mlc::target::getPTXFeatures(StringRef arch) {
  // The lowest PTX ISA version that knows the architecture.
  return llvm::StringSwitch<std::optional<std::string>>(arch)
      .Case("sm_80", std::string("+ptx70"))
      .Case("sm_86", std::string("+ptx71"))
      .Case("sm_89", std::string("+ptx78"))
      .Cases({"sm_90", "sm_90a"}, std::string("+ptx80"))
      .Default(std::nullopt);
}

std::string mlc::target::findCUDAToolkit(StringRef cudaPath) {
  std::string root = cudaPath.empty() ? "/usr/local/cuda" : cudaPath.str();
  llvm::SmallString<128> libdevice(root);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::exists(libdevice) ? root : std::string();
}

void mlc::target::registerGPUTargetExtensions(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

namespace {
class GPUTargetBackend final : public TargetBackend {
public:
  explicit GPUTargetBackend(TargetOptions options)
      : options(std::move(options)) {
    if (this->options.gpuHostEmulation)
      host = createCPUTargetBackend(this->options);
  }

  StringRef getName() const override { return "gpu"; }

  StringRef getDescription() const override {
    return "NVIDIA GPUs through LLVM's NVPTX backend (--gpu-arch)";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registerGPUTargetExtensions(registry);
  }

  void buildKernelPipeline(OpPassManager &pm) const override {
    buildGPUKernelPipeline(pm, options);
  }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    buildGPULoweringPipeline(pm, options);
  }

  bool writesHostObject() const override {
    return options.gpuHostEmulation;
  }

  LogicalResult serialize(ModuleOp module,
                          llvm::raw_pwrite_stream &os) const override;

private:
  TargetOptions options;
  /// The CPU backend that compiles the host emulation.
  std::unique_ptr<TargetBackend> host;
};
} // namespace

LogicalResult GPUTargetBackend::serialize(ModuleOp module,
                                          llvm::raw_pwrite_stream &os) const {
  if (host)
    return host->serialize(module, os);
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.empty() && options.assembly) {
    // A model with nothing to compute (all its tensors empty).
    StringRef version = StringRef(*getPTXFeatures(options.gpuArch))
                            .drop_front(strlen("+ptx"));
    os << "// mlc: the model has no kernels\n.version " << version.drop_back()
       << "." << version.take_back() << "\n.target " << options.gpuArch
       << "\n.address_size 64\n";
    return success();
  }
  if (binaries.size() != 1)
    return module.emitError("expected one GPU binary, found ")
           << binaries.size();
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  StringRef code = object.getObject().getValue();
  // Math functions LLVM could not take from libdevice stay undefined.
  llvm::Regex external(R"(\.extern \.func[^(]*\(?[^)]*\)? *(__nv_[A-Za-z0-9_]+))");
  SmallVector<StringRef> match;
  if (external.match(code, &match))
    return module.emitError("the GPU code calls ")
           << match[1]
           << " from CUDA's libdevice, which was not found: give the CUDA "
              "toolkit's directory with --cuda-path";
  if (!options.assembly)
    return module.emitError(
        "the GPU target writes the device code (PTX) only so far: use -o "
        "FILE.s or --emit=asm");
  os << code;
  return success();
}

std::unique_ptr<TargetBackend>
mlc::target::createGPUTargetBackend(TargetOptions options) {
  return std::make_unique<GPUTargetBackend>(std::move(options));
}
