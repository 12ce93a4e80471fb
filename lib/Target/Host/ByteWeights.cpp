//===- ByteWeights.cpp - Blob-backed weights as byte arrays ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTBYTEWEIGHTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
constexpr int64_t kWeightAlignment = 64;

struct HostByteWeightsPass
    : mlc::host::impl::HostByteWeightsBase<HostByteWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::DenseMap<StringAttr, MemRefType> retyped;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (!global.getConstant() || !global.getInitialValue())
        continue;
      auto resource =
          dyn_cast<DenseResourceElementsAttr>(*global.getInitialValue());
      MemRefType type = global.getType();
      unsigned bits = type.getElementTypeBitWidth();
      if (!resource || bits % 8 != 0 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity())
        continue;
      int64_t bytes = type.getNumElements() * (bits / 8);
      Type i8 = IntegerType::get(ctx, 8);
      global.setType(MemRefType::get({bytes}, i8));
      global.setInitialValueAttr(DenseResourceElementsAttr::get(
          RankedTensorType::get({bytes}, i8), resource.getRawHandle()));
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(0),
                             kWeightAlignment));
      retyped[global.getSymNameAttr()] = type;
    }
    if (retyped.empty())
      return;
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp op) {
      if (retyped.count(op.getNameAttr().getAttr()))
        uses.push_back(op);
    });
    for (memref::GetGlobalOp op : uses) {
      MemRefType original = retyped.lookup(op.getNameAttr().getAttr());
      OpBuilder b(op);
      int64_t bytes =
          original.getNumElements() * (original.getElementTypeBitWidth() / 8);
      Value raw = memref::GetGlobalOp::create(
          b, op.getLoc(), MemRefType::get({bytes}, b.getI8Type()),
          op.getNameAttr().getAttr());
      Value zero = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
      Value view = memref::ViewOp::create(b, op.getLoc(), original, raw, zero,
                                          ValueRange());
      op.replaceAllUsesWith(view);
      op.erase();
    }
  }
};
} // namespace
