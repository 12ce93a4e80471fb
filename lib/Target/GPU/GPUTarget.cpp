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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

bool mlc::target::hasCUDABinaryTools(StringRef toolkit) {
  if (toolkit.empty())
    return false;
  for (StringRef tool : {"ptxas", "fatbinary"}) {
    llvm::SmallString<128> path(toolkit);
    llvm::sys::path::append(path, "bin", tool);
    if (!llvm::sys::fs::can_execute(path))
      return false;
  }
  return true;
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
    // The host code only computes launch sizes, so by default it is built
    // for the triple's baseline and runs on any GPU server, not only on a
    // machine like the one that compiled it. The host emulation runs the
    // kernels themselves on this CPU and keeps its default.
    if (this->options.cpu.empty() && !this->options.gpuHostEmulation)
      this->options.cpu = "generic";
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

  LogicalResult serialize(ModuleOp module,
                          llvm::raw_pwrite_stream &os) const override;

private:
  TargetOptions options;
  /// The CPU backend that compiles the host code (or the host emulation).
  std::unique_ptr<TargetBackend> host;
};
} // namespace

LogicalResult GPUTargetBackend::serialize(ModuleOp module,
                                          llvm::raw_pwrite_stream &os) const {
  if (!options.assembly || options.gpuHostEmulation)
    return host->serialize(module, os);
  // The device code: the image mlc-gpu-lower-launches put in the object.
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getSymName().ends_with("_gpu_image"))
      continue;
    auto bytes = dyn_cast_or_null<StringAttr>(global.getValueOrNull());
    if (!bytes)
      break;
    StringRef code = bytes.getValue();
    if (code.ends_with(StringRef("\0", 1)))
      code = code.drop_back();
    if (code.empty()) {
      // A model with nothing to compute (all its tensors empty).
      StringRef version = StringRef(*getPTXFeatures(options.gpuArch))
                              .drop_front(strlen("+ptx"));
      os << "// mlc: the model has no kernels\n.version "
         << version.drop_back() << "." << version.take_back() << "\n.target "
         << options.gpuArch << "\n.address_size 64\n";
      return success();
    }
    os << code;
    return success();
  }
  return module.emitError("the lowered module has no GPU image");
}

std::unique_ptr<TargetBackend>
mlc::target::createGPUTargetBackend(TargetOptions options) {
  return std::make_unique<GPUTargetBackend>(std::move(options));
}
