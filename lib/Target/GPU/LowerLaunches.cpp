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

/// The members of the C header's mlc_gpu_launcher after `context`.
enum LauncherMember : int32_t {
  kLaunch = 1,
  kAllocate,
  kRelease,
  kSynchronize
};

/// Calls member `member` of `launcher` as `fn(context, args...)`.
Value callMember(OpBuilder &b, Location loc, Value launcher,
                 LauncherMember member, Type result, ValueRange args) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value context = LLVM::LoadOp::create(b, loc, ptr, launcher);
  Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, launcher,
                                   ArrayRef<LLVM::GEPArg>{member});
  Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
  SmallVector<Type> params{ptr};
  SmallVector<Value> operands{fn, context};
  for (Value arg : args) {
    params.push_back(arg.getType());
    operands.push_back(arg);
  }
  auto call = LLVM::CallOp::create(
      b, loc, LLVM::LLVMFunctionType::get(result, params), operands);
  return isa<LLVM::LLVMVoidType>(result) ? Value() : call.getResult();
}

/// Bytes of one element of a buffer of `type`, or 0 when unknown.
int64_t getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  return 0;
}

/// Replaces host buffer `alloc` by device memory from the launcher's
/// `allocate`: the memref descriptor of the address, which the conversion to
/// LLVM takes as the buffer.
LogicalResult lowerAlloc(memref::AllocOp alloc, Value launcher) {
  MemRefType type = alloc.getType();
  int64_t elementBytes = getElementBytes(type.getElementType());
  if (!type.getLayout().isIdentity() || elementBytes == 0)
    return alloc.emitError("the GPU target cannot allocate a buffer of type ")
           << type << " on the device";
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  MLIRContext *ctx = b.getContext();
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Value> sizes;
  auto dynamic = alloc.getDynamicSizes().begin();
  for (int64_t size : type.getShape())
    sizes.push_back(
        ShapedType::isDynamic(size)
            ? arith::IndexCastOp::create(b, loc, i64, *dynamic++).getResult()
            : LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(size))
                  .getResult());
  Value bytes =
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(elementBytes));
  for (Value size : sizes)
    bytes = LLVM::MulOp::create(b, loc, bytes, size);
  Value address = callMember(b, loc, launcher, kAllocate, ptr, bytes);
  int64_t rank = type.getRank();
  SmallVector<Type> fields{ptr, ptr, i64};
  if (rank > 0)
    fields.append(2, LLVM::LLVMArrayType::get(i64, rank));
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value descriptor = LLVM::UndefOp::create(b, loc, structType);
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, address,
                                           ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, address,
                                           ArrayRef<int64_t>{1});
  Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, zero,
                                           ArrayRef<int64_t>{2});
  Value stride = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  for (int64_t d = rank - 1; d >= 0; --d) {
    descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, sizes[d],
                                             ArrayRef<int64_t>{3, d});
    descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, stride,
                                             ArrayRef<int64_t>{4, d});
    stride = LLVM::MulOp::create(b, loc, stride, sizes[d]);
  }
  Value buffer =
      UnrealizedConversionCastOp::create(b, loc, type, descriptor).getResult(0);
  alloc.replaceAllUsesWith(buffer);
  alloc.erase();
  return success();
}

/// The host code's device memory and waits: `memref.alloc` and
/// `memref.dealloc` through the launcher's `allocate` and `release`, and
/// `gpu.wait` (the host waits for the kernels so far) as `synchronize`.
LogicalResult lowerHostMemory(func::FuncOp f, Value launcher) {
  SmallVector<Operation *> ops;
  f.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::DeallocOp, gpu::WaitOp>(op))
      ops.push_back(op);
  });
  auto ptr = LLVM::LLVMPointerType::get(f.getContext());
  for (Operation *op : ops) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (failed(lowerAlloc(alloc, launcher)))
        return failure();
      continue;
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      Value index = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, dealloc.getMemref());
      Value integer = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
      Value address = LLVM::IntToPtrOp::create(b, loc, ptr, integer);
      callMember(b, loc, launcher, kRelease,
                 LLVM::LLVMVoidType::get(b.getContext()), address);
    } else {
      auto wait = cast<gpu::WaitOp>(op);
      if (wait.getAsyncToken() || !wait.getAsyncDependencies().empty())
        return wait.emitError("the GPU target waits only for all kernels");
      callMember(b, loc, launcher, kSynchronize, b.getI32Type(), {});
    }
    op->erase();
  }
  return success();
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
      Type operandType = operand.getType();
      Value slot;
      if (operandType.isIndex() || operandType.isIntOrFloat()) {
        // A scalar the host computed (a size known at run time).
        Value value = operand;
        if (operandType.isIndex())
          value = arith::IndexCastOp::create(b, loc, b.getI64Type(), operand);
        slot = allocate(b, loc, value.getType(), 1);
        LLVM::StoreOp::create(b, loc, value, slot);
      } else {
        auto type = dyn_cast<MemRefType>(operandType);
        if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape())
          return launch.emitError("kernel argument ")
                 << i << " of type " << operandType
                 << " is neither a scalar nor a buffer of static sizes with "
                    "the identity layout";
        slot = host::storeBufferAddress(b, loc, operand, values, int32_t(i));
      }
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
      Value dim;
      if (value) {
        if (*value < 1 || *value > std::numeric_limits<int32_t>::max())
          return launch.emitError("launch sizes must fit 31 bits");
        dim =
            LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(*value));
      } else {
        // A grid the host computed: one too large for 32 bits stays too
        // large (2^32 - 1), which the driver refuses with an error.
        Value most = arith::ConstantIndexOp::create(b, loc, UINT32_MAX);
        Value clamped = arith::MinUIOp::create(b, loc, size, most);
        dim = arith::IndexCastUIOp::create(b, loc, i32, clamped);
      }
      Value slot = LLVM::GEPOp::create(b, loc, ptr, i32, dims,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, dim, slot);
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
      if (failed(lowerHostMemory(f, f.getArgument(0))))
        return signalPassFailure();
      abi::GPUCode gpu{arch, format, {}};
      gpu.hostAccess = f->hasAttr("mlc_loop.gpu_host_access");
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
