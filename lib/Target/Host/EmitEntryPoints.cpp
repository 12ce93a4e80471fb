//===- EmitEntryPoints.cpp - C entry points of compiled models ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTEMITENTRYPOINTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// A NUL-terminated constant string global.
void createStringGlobal(OpBuilder &b, Location loc, StringRef name,
                        StringRef text) {
  std::string data = text.str();
  data.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, name,
                         b.getStringAttr(data));
}

/// `int32_t NAME(void *arena, const void *const *inputs, void *const
/// *outputs)` that unpacks the arrays and calls `callee` (which takes the
/// arena, then every input and output); with `weights`, `NAME(const void
/// *weights, void *arena, ...)` calling `callee(arena, weights, ...)`.
/// With `launcher` (a GPU model), `NAME(const mlc_gpu_launcher *launcher,
/// const void *weights, void *arena, ...)` calling `callee(launcher, arena,
/// weights, ...)`.
/// With `statusOffset` (a model with run-time checks), the entry point
/// returns MLC_ERROR_CHECK when the arena's status word is not zero after
/// the call; then it also frees the data of the `dynamicOutputs` (records
/// of buffers the model allocated) and zeroes their addresses, so that a
/// failed run leaves nothing to free.
void createEntry(OpBuilder &b, Location loc, StringRef name,
                 LLVM::LLVMFuncOp callee, unsigned numInputs,
                 unsigned numOutputs, bool weights, bool launcher,
                 std::optional<int64_t> statusOffset,
                 ArrayRef<unsigned> dynamicOutputs) {
  MLIRContext *context = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i32 = b.getI32Type();
  SmallVector<Type> params((weights ? 4 : 3) + (launcher ? 1 : 0), ptr);
  auto type = LLVM::LLVMFunctionType::get(i32, params);
  auto entry = LLVM::LLVMFuncOp::create(b, loc, name, type);
  OpBuilder::InsertionGuard guard(b);
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  unsigned first = (weights ? 1 : 0) + (launcher ? 1 : 0);
  SmallVector<Value> args;
  if (launcher)
    args.push_back(block->getArgument(0));
  args.push_back(block->getArgument(first));
  if (weights)
    args.push_back(block->getArgument(launcher ? 1 : 0));
  auto unpack = [&](Value array, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, array,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
  };
  unpack(block->getArgument(first + 1), numInputs);
  unpack(block->getArgument(first + 2), numOutputs);
  LLVM::CallOp::create(b, loc, callee, args);
  Value ok = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  if (!statusOffset) {
    LLVM::ReturnOp::create(b, loc, ok);
    return;
  }
  Value slot = LLVM::GEPOp::create(
      b, loc, ptr, b.getI8Type(), block->getArgument(first),
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(*statusOffset)});
  Value status = LLVM::LoadOp::create(b, loc, i32, slot);
  Value failed =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, status, ok);
  if (!dynamicOutputs.empty()) {
    auto module = entry->getParentOfType<ModuleOp>();
    auto free = module.lookupSymbol<LLVM::LLVMFuncOp>("free");
    if (!free) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      free = LLVM::LLVMFuncOp::create(
          b, loc, "free",
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), ptr));
    }
    auto i64 = b.getI64Type();
    Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    for (unsigned k : dynamicOutputs) {
      Value record = args[args.size() - numOutputs + k];
      Value word = LLVM::LoadOp::create(b, loc, i64, record);
      Value data = LLVM::IntToPtrOp::create(b, loc, ptr, word);
      LLVM::CallOp::create(
          b, loc, free,
          ValueRange{LLVM::SelectOp::create(b, loc, failed, data, null)});
      LLVM::StoreOp::create(b, loc,
                            LLVM::SelectOp::create(b, loc, failed, zero, word),
                            record);
    }
  }
  Value check = LLVM::ConstantOp::create(
      b, loc, i32, b.getI32IntegerAttr(mlc::abi::kErrorCheck));
  LLVM::ReturnOp::create(b, loc,
                         LLVM::SelectOp::create(b, loc, failed, check, ok));
}

struct HostEmitEntryPointsPass
    : mlc::host::impl::HostEmitEntryPointsBase<HostEmitEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> models;
    for (auto f : module.getOps<LLVM::LLVMFuncOp>())
      if (f->hasAttr("mlc_loop.signature"))
        models.push_back(f);
    if (sharedAliases && models.size() != 1) {
      module.emitError("a shared library holds exactly one model; this "
                       "module has ")
          << models.size();
      return signalPassFailure();
    }
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    for (LLVM::LLVMFuncOp f : models) {
      auto json = f->getAttrOfType<StringAttr>("mlc_loop.signature");
      llvm::Expected<mlc::abi::ModelSignature> signature =
          mlc::abi::parseModelSignature(json.getValue());
      if (!signature) {
        f.emitError("bad mlc_loop.signature: ")
            << llvm::toString(signature.takeError());
        return signalPassFailure();
      }
      auto arena = f->getAttrOfType<IntegerAttr>("mlc_loop.arena_size");
      if (!arena) {
        f.emitError("no mlc_loop.arena_size: run mlc-host-plan-arena first");
        return signalPassFailure();
      }
      signature->arenaSize = arena.getInt();
      auto weightsSize = f->getAttrOfType<IntegerAttr>("mlc_loop.weights_size");
      if (weightsSize) {
        auto hash = f->getAttrOfType<IntegerAttr>("mlc_loop.weights_hash");
        auto file = f->getAttrOfType<StringAttr>("mlc_loop.weights_file");
        if (!hash || !file) {
          f.emitError("mlc_loop.weights_size without mlc_loop.weights_hash and "
                      "mlc_loop.weights_file");
          return signalPassFailure();
        }
        signature->weights = mlc::abi::ExternalWeights{
            file.str(), weightsSize.getInt(),
            hash.getValue().getZExtValue()};
      }
      if (!targetTriple.empty())
        signature->target = mlc::abi::CodeTarget{targetTriple, targetCPU,
                                                 targetFeatures};
      bool weights = signature->weights.has_value();
      unsigned numInputs = signature->inputs.size();
      unsigned numOutputs = signature->outputs.size();
      LLVM::LLVMFunctionType type = f.getFunctionType();
      bool gpu = f->hasAttr("mlc_loop.gpu_launcher");
      bool npu = f->hasAttr("mlc_loop.npu_launcher");
      bool launcher = gpu || npu;
      unsigned expected =
          (weights ? 2 : 1) + (launcher ? 1 : 0) + numInputs + numOutputs;
      if (type.getNumParams() != expected || !type.getReturnType() ||
          !isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          !llvm::all_of(type.getParams(), [](Type t) {
            return isa<LLVM::LLVMPointerType>(t);
          })) {
        f.emitError("expected ")
            << expected
            << " pointer parameters (" << (launcher ? "launcher, " : "")
            << "arena, " << (weights ? "weights, " : "")
            << "inputs, outputs) and no result; "
               "lower with the bare-pointer calling convention";
        return signalPassFailure();
      }
      std::optional<int64_t> statusOffset;
      if (auto offset =
              f->getAttrOfType<IntegerAttr>("mlc_loop.status_offset")) {
        auto messages = f->getAttrOfType<ArrayAttr>("mlc_loop.check_messages");
        if (!messages) {
          f.emitError("mlc_loop.status_offset without mlc_loop.check_messages");
          return signalPassFailure();
        }
        if (gpu) {
          f.emitError("the GPU target cannot report run-time checks yet: ")
              << messages;
          return signalPassFailure();
        }
        statusOffset = offset.getInt();
        mlc::abi::RunTimeChecks checks{*statusOffset, {}};
        for (Attribute m : messages)
          checks.messages.push_back(cast<StringAttr>(m).str());
        signature->checks = std::move(checks);
      }
      SmallVector<unsigned> dynamicOutputs;
      for (auto [k, output] : llvm::enumerate(signature->outputs))
        if (output.isDynamic())
          dynamicOutputs.push_back(k);
      std::string name = f.getSymName().str();
      std::string metadata = mlc::abi::toJSON(*signature);
      // The completed signature, for drivers that write the header.
      f->setAttr("mlc_loop.signature", b.getStringAttr(metadata));
      f.setLinkage(LLVM::Linkage::Internal);
      createEntry(b, f.getLoc(),
                  name + (gpu       ? "_run_gpu"
                          : npu     ? "_run_npu"
                          : weights ? "_run_with_weights"
                                    : "_run"),
                  f, numInputs, numOutputs, weights, launcher, statusOffset,
                  dynamicOutputs);
      createStringGlobal(b, f.getLoc(), name + "_metadata", metadata);
      if (sharedAliases) {
        createEntry(b, f.getLoc(),
                    gpu       ? mlc::abi::kSharedRunGPUSymbol
                    : npu     ? mlc::abi::kSharedRunNPUSymbol
                    : weights ? mlc::abi::kSharedRunWithWeightsSymbol
                              : mlc::abi::kSharedRunSymbol,
                    f, numInputs, numOutputs, weights, launcher, statusOffset,
                    dynamicOutputs);
        createStringGlobal(b, f.getLoc(), mlc::abi::kSharedMetadataSymbol,
                           metadata);
      }
    }
  }
};
} // namespace
