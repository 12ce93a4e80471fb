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

/// What an entry point passes to the model function and checks after it.
struct EntryShape {
  unsigned numInputs = 0, numOutputs = 0;
  /// External weights (`weights` before the arena) and a launcher (GPU or
  /// NPU: before everything).
  bool weights = false, launcher = false;
  /// A model with run-time checks: the arena offset of its status word.
  std::optional<int64_t> statusOffset;
  /// Outputs whose data the model allocates (records).
  SmallVector<unsigned> dynamicOutputs;
  /// A model compiled for one sample of a symbolic batch: per input, then
  /// per output, the bytes of one sample's slice (0: not batched); the
  /// entry takes `const int64_t *dims` first and calls the model once per
  /// sample. `minBatch` is 1 when an output does not carry the batch (it
  /// must be computed at least once).
  std::optional<SmallVector<int64_t>> batchSlices;
  int64_t minBatch = 0;
  /// A model whose inputs keep symbolic dims: the number of symbols; the
  /// entry takes `const int64_t *dims` first, checks each value and passes
  /// the array last to the model function.
  unsigned numSymbols = 0;
};

/// Frees the data of the dynamic outputs in `records` when `failed` and
/// zeroes their addresses, so that a failed run leaves nothing to free.
void releaseDynamicOutputs(OpBuilder &b, Location loc, LLVM::LLVMFuncOp entry,
                           ArrayRef<Value> records, Value failed) {
  MLIRContext *context = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
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
  for (Value record : records) {
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

/// `int32_t NAME(void *arena, const void *const *inputs, void *const
/// *outputs)` that unpacks the arrays and calls `callee` (which takes the
/// arena, then every input and output); with weights, `NAME(const void
/// *weights, void *arena, ...)` calling `callee(arena, weights, ...)`.
/// With a launcher (a GPU or NPU model), `NAME(const launcher *, [const
/// void *weights,] void *arena, ...)` calling `callee(launcher, arena,
/// [weights,] ...)`.
/// With a status word (a model with run-time checks), the entry point
/// returns MLC_ERROR_CHECK when it is not zero after the call; then it also
/// frees the data of the dynamic outputs.
/// With batch slices, `NAME(const int64_t *dims, ...)` returns
/// MLC_ERROR_SHAPE unless `minBatch <= dims[0] <= ` the most samples whose
/// buffers fit 2^62 bytes, then calls `callee` for each sample b with every
/// batched buffer advanced by b slices, stopping at a failed check.
void createEntry(OpBuilder &b, Location loc, StringRef name,
                 LLVM::LLVMFuncOp callee, const EntryShape &shape) {
  MLIRContext *context = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i32 = b.getI32Type();
  auto i64 = b.getI64Type();
  bool batched = shape.batchSlices.has_value();
  bool takesDims = batched || shape.numSymbols > 0;
  unsigned lead = (takesDims ? 1 : 0) + (shape.launcher ? 1 : 0);
  SmallVector<Type> params(lead + (shape.weights ? 4 : 3), ptr);
  auto type = LLVM::LLVMFunctionType::get(i32, params);
  auto entry = LLVM::LLVMFuncOp::create(b, loc, name, type);
  OpBuilder::InsertionGuard guard(b);
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  unsigned first = lead + (shape.weights ? 1 : 0);
  Value arena = block->getArgument(first);
  auto constant32 = [&](int32_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  auto constant64 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  SmallVector<Value> fixed, buffers;
  if (shape.launcher)
    fixed.push_back(block->getArgument(takesDims ? 1 : 0));
  fixed.push_back(arena);
  if (shape.weights)
    fixed.push_back(block->getArgument(lead));
  auto unpack = [&](Value array, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, array,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      buffers.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
  };
  unpack(block->getArgument(first + 1), shape.numInputs);
  unpack(block->getArgument(first + 2), shape.numOutputs);
  // The status word after a call: whether it says a check failed.
  auto checkFailed = [&]() -> Value {
    Value slot = LLVM::GEPOp::create(
        b, loc, ptr, b.getI8Type(), arena,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(*shape.statusOffset)});
    Value status = LLVM::LoadOp::create(b, loc, i32, slot);
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, status,
                                constant32(0));
  };

  if (shape.numSymbols > 0) {
    // Each symbol's value in [0, 2^31): the model's own run-time checks
    // hold its sizes to what the ops need.
    Value inRange;
    for (unsigned s = 0; s < shape.numSymbols; ++s) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, i64, block->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{int32_t(s)});
      Value value = LLVM::LoadOp::create(b, loc, i64, slot);
      Value ok = LLVM::AndOp::create(
          b, loc,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, value,
                               constant64(0)),
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, value,
                               constant64(int64_t(1) << 31)));
      inRange = inRange ? LLVM::AndOp::create(b, loc, inRange, ok) : ok;
    }
    Block *bad = entry.addBlock();
    Block *good = entry.addBlock();
    LLVM::CondBrOp::create(b, loc, inRange, good, bad);
    b.setInsertionPointToStart(bad);
    LLVM::ReturnOp::create(b, loc, constant32(mlc::abi::kErrorShape));
    b.setInsertionPointToStart(good);
  }
  if (!batched) {
    SmallVector<Value> args(fixed);
    args.append(buffers);
    if (shape.numSymbols > 0)
      args.push_back(block->getArgument(0));
    LLVM::CallOp::create(b, loc, callee, args);
    if (!shape.statusOffset) {
      LLVM::ReturnOp::create(b, loc, constant32(0));
      return;
    }
    Value failed = checkFailed();
    SmallVector<Value> records;
    for (unsigned k : shape.dynamicOutputs)
      records.push_back(buffers[shape.numInputs + k]);
    if (!records.empty())
      releaseDynamicOutputs(b, loc, entry, records, failed);
    LLVM::ReturnOp::create(
        b, loc,
        LLVM::SelectOp::create(b, loc, failed,
                               constant32(mlc::abi::kErrorCheck),
                               constant32(0)));
    return;
  }

  // The number of samples, in range.
  int64_t maxBatch = int64_t(1) << 62;
  for (int64_t slice : *shape.batchSlices)
    if (slice > 0)
      maxBatch = std::min(maxBatch, (int64_t(1) << 62) / slice);
  Value count = LLVM::LoadOp::create(b, loc, i64, block->getArgument(0));
  Value inRange = LLVM::AndOp::create(
      b, loc,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, count,
                           constant64(shape.minBatch)),
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sle, count,
                           constant64(maxBatch)));
  Block *bad = entry.addBlock();
  Block *header = entry.addBlock();
  header->addArgument(i64, loc);
  Block *body = entry.addBlock();
  Block *done = entry.addBlock();
  LLVM::CondBrOp::create(b, loc, inRange, header, ValueRange{constant64(0)},
                         bad, ValueRange{});
  b.setInsertionPointToStart(bad);
  LLVM::ReturnOp::create(b, loc, constant32(mlc::abi::kErrorShape));

  b.setInsertionPointToStart(header);
  Value sample = header->getArgument(0);
  LLVM::CondBrOp::create(
      b, loc,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, sample, count),
      body, ValueRange{}, done, ValueRange{});

  b.setInsertionPointToStart(body);
  SmallVector<Value> args(fixed);
  for (auto [buffer, slice] : llvm::zip(buffers, *shape.batchSlices)) {
    if (slice == 0) {
      args.push_back(buffer);
      continue;
    }
    Value offset = LLVM::MulOp::create(b, loc, sample, constant64(slice));
    args.push_back(LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), buffer,
                                       ArrayRef<LLVM::GEPArg>{offset}));
  }
  LLVM::CallOp::create(b, loc, callee, args);
  Value next = LLVM::AddOp::create(b, loc, sample, constant64(1));
  if (shape.statusOffset) {
    Block *failedBlock = entry.addBlock();
    LLVM::CondBrOp::create(b, loc, checkFailed(), failedBlock, ValueRange{},
                           header, ValueRange{next});
    b.setInsertionPointToStart(failedBlock);
    LLVM::ReturnOp::create(b, loc, constant32(mlc::abi::kErrorCheck));
  } else {
    LLVM::BrOp::create(b, loc, ValueRange{next}, header);
  }
  b.setInsertionPointToStart(done);
  LLVM::ReturnOp::create(b, loc, constant32(0));
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
      unsigned numSymbols = 0;
      if (auto count = f->getAttrOfType<IntegerAttr>("mlc_loop.dims_argument"))
        numSymbols = count.getInt();
      unsigned expected = (weights ? 2 : 1) + (launcher ? 1 : 0) + numInputs +
                          numOutputs + (numSymbols ? 1 : 0);
      if (type.getNumParams() != expected || !type.getReturnType() ||
          !isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          !llvm::all_of(type.getParams(), [](Type t) {
            return isa<LLVM::LLVMPointerType>(t);
          })) {
        f.emitError("expected ")
            << expected
            << " pointer parameters (" << (launcher ? "launcher, " : "")
            << "arena, " << (weights ? "weights, " : "")
            << "inputs, outputs" << (numSymbols ? ", dims" : "")
            << ") and no result; "
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
        statusOffset = offset.getInt();
        mlc::abi::RunTimeChecks checks{*statusOffset, {}};
        for (Attribute m : messages)
          checks.messages.push_back(cast<StringAttr>(m).str());
        signature->checks = std::move(checks);
      }
      if (auto offset =
              f->getAttrOfType<IntegerAttr>("mlc_loop.buffer_cache_offset"))
        signature->bufferCacheOffset = offset.getInt();
      EntryShape shape;
      shape.numInputs = numInputs;
      shape.numOutputs = numOutputs;
      shape.weights = weights;
      shape.launcher = launcher;
      shape.statusOffset = statusOffset;
      // A GPU model's outputs of run-time sizes are device memory the
      // runtime releases.
      for (auto [k, output] : llvm::enumerate(signature->outputs))
        if (output.isDynamic() && !gpu)
          shape.dynamicOutputs.push_back(k);
      shape.numSymbols = numSymbols;
      if (!signature->symbols.empty() && !numSymbols) {
        if (gpu) {
          emitError(f.getLoc(), "the GPU target needs the batch pinned: "
                                "--dim ")
              << signature->symbols.front() << "=N";
          return signalPassFailure();
        }
        if (signature->symbols.size() != 1 || !shape.dynamicOutputs.empty()) {
          f.emitError("a model compiled for one sample has one symbol and "
                      "outputs of static sizes");
          return signalPassFailure();
        }
        SmallVector<int64_t> slices;
        shape.minBatch = 0;
        for (const std::vector<mlc::abi::TensorSignature> *list :
             {&signature->inputs, &signature->outputs})
          for (const mlc::abi::TensorSignature &t : *list) {
            bool batchedTensor = t.getDimSymbol(0) == 0;
            int64_t one = 1;
            slices.push_back(batchedTensor ? t.getNumBytes(&one) : 0);
            if (!batchedTensor && list == &signature->outputs)
              shape.minBatch = 1;
          }
        shape.batchSlices = std::move(slices);
      }
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
                  f, shape);
      createStringGlobal(b, f.getLoc(), name + "_metadata", metadata);
      if (sharedAliases) {
        createEntry(b, f.getLoc(),
                    gpu       ? mlc::abi::kSharedRunGPUSymbol
                    : npu     ? mlc::abi::kSharedRunNPUSymbol
                    : weights ? mlc::abi::kSharedRunWithWeightsSymbol
                              : mlc::abi::kSharedRunSymbol,
                    f, shape);
        createStringGlobal(b, f.getLoc(), mlc::abi::kSharedMetadataSymbol,
                           metadata);
      }
    }
  }
};
} // namespace
