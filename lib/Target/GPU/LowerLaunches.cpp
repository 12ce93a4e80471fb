//===- LowerLaunches.cpp - Kernel launches through the runtime's launcher -===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host half of a GPU model: its launches call a function the runtime
// gives it, so that the object needs nothing from CUDA (no libcudart, no
// symbol to resolve when loaded); see mlc-gpu-lower-launches in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/GPU/Passes.h"
#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/ModelFunctions.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Regex.h"

namespace mlc::target {
#define GEN_PASS_DEF_GPULOWERLAUNCHES
#include "mlc/Target/GPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
/// A constant byte array global.
void createBytesGlobal(OpBuilder &b, Location loc, StringRef name,
                       StringRef bytes) {
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, name, b.getStringAttr(bytes));
}

void createSizeGlobal(OpBuilder &b, Location loc, StringRef name,
                      int64_t size) {
  LLVM::GlobalOp::create(b, loc, b.getI64Type(), /*isConstant=*/true,
                         LLVM::Linkage::External, name,
                         b.getI64IntegerAttr(size));
}

struct GPULowerLaunchesPass
    : mlc::target::impl::GPULowerLaunchesBase<GPULowerLaunchesPass> {
  using Base::Base;

  /// `count` slots of `type` on the stack.
  Value allocate(OpBuilder &b, Location loc, Type type, int64_t count) {
    Value n = LLVM::ConstantOp::create(
        b, loc, b.getI64Type(),
        b.getI64IntegerAttr(std::max<int64_t>(count, 1)));
    return LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), type, n,
        /*alignment=*/8);
  }

  /// Replaces `launch` by a call of the launcher's `launch` for kernel
  /// `index`.
  LogicalResult lower(gpu::LaunchFuncOp launch, Value launcher, int32_t index) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    MLIRContext *ctx = b.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i32 = b.getI32Type();
    ValueRange operands = launch.getKernelOperands();
    Value values = allocate(b, loc, ptr, operands.size());
    // NULL-terminated, for launchers that look at the arguments.
    Value argv = allocate(b, loc, ptr, operands.size() + 1);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value end = LLVM::GEPOp::create(
        b, loc, ptr, ptr, argv,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(operands.size())});
    LLVM::StoreOp::create(b, loc, null, end);
    for (auto [i, operand] : llvm::enumerate(operands)) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || !type.getLayout().isIdentity())
        return launch.emitError("kernel argument ")
               << i << " of type " << operand.getType()
               << " is not a buffer with the identity layout";
      Value slot =
          host::storeBufferAddress(b, loc, operand, values, int32_t(i));
      Value argSlot = LLVM::GEPOp::create(b, loc, ptr, ptr, argv,
                                          ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, slot, argSlot);
    }
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value dims = allocate(b, loc, i32, 6);
    for (auto [i, size] : llvm::enumerate(SmallVector<Value>{
             grid.x, grid.y, grid.z, block.x, block.y, block.z})) {
      std::optional<int64_t> value = getConstantIntValue(size);
      if (!value || *value < 1 || *value > std::numeric_limits<int32_t>::max())
        return launch.emitError("launch sizes must be constants that fit "
                                "32 bits");
      Value slot = LLVM::GEPOp::create(b, loc, ptr, i32, dims,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(
          b, loc,
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(*value)),
          slot);
    }
    // mlc_gpu_launcher's launch(context, kernel, dims, args)
    host::callLauncher(b, loc, launcher, index, ValueRange{dims, argv});
    launch.erase();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
    if (binaries.size() > 1) {
      module.emitError("expected at most one GPU binary, found ")
          << binaries.size();
      return signalPassFailure();
    }
    std::string image;
    std::string format = "ptx";
    if (!binaries.empty()) {
      auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
      image = object.getObject().getValue().str();
      if (object.getFormat() == gpu::CompilationTarget::Fatbin)
        format = "fatbin";
      else if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        module.emitError("GPU images are PTX or fatbins");
        return signalPassFailure();
      }
    }
    // Math functions LLVM could not take from libdevice stay undefined.
    llvm::Regex external(
        R"(\.extern \.func[^(]*\(?[^)]*\)? *(__nv_[A-Za-z0-9_]+))");
    SmallVector<StringRef> match;
    if (format == "ptx" && external.match(image, &match)) {
      module.emitError("the GPU code calls ")
          << match[1]
          << " from CUDA's libdevice, which was not found: give the CUDA "
             "toolkit's directory with --cuda-path";
      return signalPassFailure();
    }
    // A PTX image is read as a C string.
    image.push_back('\0');

    FailureOr<SmallVector<func::FuncOp>> library =
        host::getLibraryModels(module, sharedAliases);
    if (failed(library))
      return signalPassFailure();
    SmallVector<func::FuncOp> &models = *library;
    for (func::FuncOp f : models) {
      if (failed(host::addLauncherArgument(f, "mlc_loop.gpu_launcher")))
        return signalPassFailure();
      llvm::MapVector<StringAttr, int32_t> kernels;
      SmallVector<gpu::LaunchFuncOp> launches;
      f.walk([&](gpu::LaunchFuncOp l) { launches.push_back(l); });
      for (gpu::LaunchFuncOp l : launches) {
        StringAttr kernel = l.getKernelName();
        auto [it, inserted] = kernels.try_emplace(kernel, kernels.size());
        if (failed(lower(l, f.getArgument(0), it->second)))
          return signalPassFailure();
      }
      abi::GPUCode gpu{arch, format, {}};
      for (auto &[kernel, index] : kernels)
        gpu.kernels.push_back(kernel.str());
      if (failed(host::updateSignature(
              f, [&](abi::ModelSignature &s) { s.gpu = std::move(gpu); })))
        return signalPassFailure();
    }

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    for (func::FuncOp f : models) {
      createBytesGlobal(b, loc, (f.getSymName() + "_gpu_image").str(), image);
      createSizeGlobal(b, loc, (f.getSymName() + "_gpu_image_size").str(),
                       image.size());
    }
    if (sharedAliases) {
      createBytesGlobal(b, loc, abi::kSharedGPUImageSymbol, image);
      createSizeGlobal(b, loc, abi::kSharedGPUImageSizeSymbol, image.size());
    }
    for (gpu::BinaryOp binary : binaries)
      binary.erase();
    for (auto m : llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      m.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};
} // namespace
