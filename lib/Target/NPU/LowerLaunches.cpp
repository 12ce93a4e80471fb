//===- LowerLaunches.cpp - NPU launches through the runtime's launcher ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host half of an NPU model: its launches call a function the runtime
// gives it (the simulator, or a driver), so that the object needs nothing
// but libc; see mlc-npu-lower-launches in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/ModelFunctions.h"
#include "mlc/Target/NPU/Passes.h"

#include "llvm/ADT/StringMap.h"

namespace mlc::target {
#define GEN_PASS_DEF_NPULOWERLAUNCHES
#include "mlc/Target/NPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

namespace {
/// Streams start on this many bytes of the image.
constexpr int64_t kImageAlignment = 16;

struct NPULowerLaunchesPass
    : mlc::target::impl::NPULowerLaunchesBase<NPULowerLaunchesPass> {
  using Base::Base;

  /// Replaces `launch` by a call of the launcher's `run` for program
  /// `index`.
  void lower(npu::LaunchOp launch, Value launcher, int32_t index) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto i64 = b.getI64Type();
    ValueRange buffers = launch.getBuffers();
    Value count = LLVM::ConstantOp::create(
        b, loc, i64, b.getI64IntegerAttr(std::max<int64_t>(buffers.size(), 1)));
    Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr, count,
                                         /*alignment=*/8);
    for (auto [i, buffer] : llvm::enumerate(buffers))
      host::storeBufferAddress(b, loc, buffer, array, int32_t(i));
    // mlc_npu_launcher's run(context, program, buffers)
    host::callLauncher(b, loc, launcher, index, ValueRange{array});
    launch.erase();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();

    // The image: every stream, in module order.
    std::string image;
    llvm::StringMap<int32_t> indices;
    abi::NPUCode code;
    SmallVector<npu::BinaryOp> binaries(module.getOps<npu::BinaryOp>());
    for (npu::BinaryOp binary : binaries) {
      auto data = dyn_cast<DenseElementsAttr>(binary.getData());
      if (!binary.getSymName() || !data ||
          !data.getElementType().isInteger(8)) {
        binary.emitError("expected a named stream of i8 bytes");
        return signalPassFailure();
      }
      image.resize((image.size() + kImageAlignment - 1) / kImageAlignment *
                   kImageAlignment);
      abi::NPUCode::Program program;
      program.offset = int64_t(image.size());
      ArrayRef<char> bytes = data.getRawData();
      image.append(bytes.data(), bytes.size());
      program.size = int64_t(bytes.size());
      std::string node = loop::getKernelName(binary.getLoc());
      if (node != "?")
        program.node = node;
      indices[*binary.getSymName()] = int32_t(code.programs.size());
      code.programs.push_back(program);
    }
    std::string error;
    std::optional<npu::NPUConfig> config = npu::loadNPUConfig(npu, error);
    if (!config) {
      module.emitError(error);
      return signalPassFailure();
    }
    code.config = npu::printNPUConfig(*config);

    FailureOr<SmallVector<func::FuncOp>> library =
        host::getLibraryModels(module, sharedAliases);
    if (failed(library))
      return signalPassFailure();
    SmallVector<func::FuncOp> &models = *library;
    for (func::FuncOp f : models) {
      SmallVector<npu::LaunchOp> launches;
      f.walk([&](npu::LaunchOp l) { launches.push_back(l); });
      if (failed(host::addLauncherArgument(f, "mlc_loop.npu_launcher")))
        return signalPassFailure();
      for (npu::LaunchOp l : launches) {
        auto it = indices.find(l.getProgram());
        if (it == indices.end()) {
          l.emitError("launches a program that is not in the module");
          return signalPassFailure();
        }
        abi::NPUCode::Program &program = code.programs[it->second];
        program.buffers.clear();
        for (auto [buffer, dram, write] : llvm::zip_equal(
                 l.getBuffers(), l.getDramOffsets(), l.getWrites())) {
          auto type = cast<MemRefType>(buffer.getType());
          program.buffers.push_back(
              {dram, type.getNumElements() * type.getElementTypeBitWidth() / 8,
               write});
        }
        lower(l, f.getArgument(0), it->second);
      }
    }
    for (func::FuncOp f : models)
      if (failed(host::updateSignature(
              f, [&](abi::ModelSignature &s) { s.npu = code; })))
        return signalPassFailure();

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    auto global = [&](StringRef symbol) {
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), image.size());
      LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                             LLVM::Linkage::External, symbol,
                             b.getStringAttr(image));
    };
    auto size = [&](StringRef symbol) {
      LLVM::GlobalOp::create(b, loc, b.getI64Type(), /*isConstant=*/true,
                             LLVM::Linkage::External, symbol,
                             b.getI64IntegerAttr(int64_t(image.size())));
    };
    for (func::FuncOp f : models) {
      global((f.getSymName() + "_npu_image").str());
      size((f.getSymName() + "_npu_image_size").str());
    }
    if (sharedAliases) {
      global(abi::kSharedNPUImageSymbol);
      size(abi::kSharedNPUImageSizeSymbol);
    }
    for (npu::BinaryOp binary : binaries)
      binary.erase();
  }
};
} // namespace
