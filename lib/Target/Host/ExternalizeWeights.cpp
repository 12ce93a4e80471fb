//===- ExternalizeWeights.cpp - Weights in a file beside the object -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Utils/ConstantData.h"

#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTEXTERNALIZEWEIGHTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// A global moving into the blob, and where.
struct Placement {
  ArrayRef<char> bytes;
  int64_t offset = 0;
};

bool isModelFunction(func::FuncOp f) {
  return !f.isExternal() && f.isPublic() && f->hasAttr("mlc_loop.signature");
}

struct HostExternalizeWeightsPass
    : mlc::host::impl::HostExternalizeWeightsBase<
          HostExternalizeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);

    // Constant globals with data of their own, in module order.
    llvm::MapVector<StringAttr, Placement> placements;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (!global.getConstant() || !global.getInitialValue())
        continue;
      auto value = dyn_cast<ElementsAttr>(*global.getInitialValue());
      std::optional<ArrayRef<char>> bytes =
          value ? mlc::loop::getConstantBytes(value) : std::nullopt;
      if (bytes && !bytes->empty())
        placements[global.getSymNameAttr()] = Placement{*bytes, 0};
    }
    // Globals that something besides a model function reads stay.
    module.walk([&](memref::GetGlobalOp op) {
      auto f = op->getParentOfType<func::FuncOp>();
      if (!f || !isModelFunction(f))
        placements.erase(op.getNameAttr().getAttr());
    });

    int64_t size = 0;
    for (auto &[name, placement] : placements) {
      placement.offset = size;
      size = llvm::alignTo(size + placement.bytes.size(),
                           mlc::abi::kWeightsAlignment);
    }
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
        std::max<int64_t>(size, 1), mlc::abi::kWeightsAlignment);
    MutableArrayRef<char> data = blob.getMutableData();
    std::fill(data.begin(), data.end(), 0);
    for (auto &[name, placement] : placements)
      llvm::copy(placement.bytes, data.begin() + placement.offset);
    uint64_t hash = mlc::abi::hashWeights(data.data(), size);

    Type i8 = IntegerType::get(ctx, 8);
    auto weightsType = MemRefType::get({size}, i8);
    for (func::FuncOp f : module.getOps<func::FuncOp>()) {
      if (!isModelFunction(f))
        continue;
      if (!f->hasAttr("mlc_loop.arena_size")) {
        f.emitError("no arena argument: run mlc-host-plan-arena first");
        return signalPassFailure();
      }
      auto name = NamedAttribute(StringAttr::get(ctx, "mlc_graph.name"),
                                 StringAttr::get(ctx, "weights"));
      if (failed(f.insertArgument(1, weightsType,
                                  DictionaryAttr::get(ctx, {name}),
                                  f.getLoc()))) {
        f.emitError("cannot add the weights argument");
        return signalPassFailure();
      }
      Value weights = f.getArgument(1);
      SmallVector<memref::GetGlobalOp> uses;
      f.walk([&](memref::GetGlobalOp op) {
        if (placements.count(op.getNameAttr().getAttr()))
          uses.push_back(op);
      });
      for (memref::GetGlobalOp op : uses) {
        OpBuilder b(op);
        const Placement &placement =
            placements.find(op.getNameAttr().getAttr())->second;
        Value offset =
            arith::ConstantIndexOp::create(b, op.getLoc(), placement.offset);
        Value view = memref::ViewOp::create(b, op.getLoc(), op.getType(),
                                            weights, offset, ValueRange());
        op.replaceAllUsesWith(view);
        op.erase();
      }
      f->setAttr("mlc_loop.weights_size",
                 IntegerAttr::get(IntegerType::get(ctx, 64), size));
      f->setAttr("mlc_loop.weights_hash",
                 IntegerAttr::get(IntegerType::get(ctx, 64),
                                  static_cast<int64_t>(hash)));
      f->setAttr("mlc_loop.weights_file", StringAttr::get(ctx, fileName));
    }
    for (auto &[name, placement] : placements)
      symbols.erase(symbols.lookup(name));
    module->setAttr(
        "mlc_loop.weights",
        DenseResourceElementsAttr::get(RankedTensorType::get({size}, i8),
                                       "mlc_weights", std::move(blob)));
  }
};
} // namespace
