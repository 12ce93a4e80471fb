//===- FlattenConstants.cpp - Weights as one-dimensional arrays -----------===//
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
#define GEN_PASS_DEF_HOSTFLATTENCONSTANTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// The same elements as `value` under the one-dimensional type `flat`, or a
/// null attribute when `value` is a splat or of an unknown kind.
ElementsAttr flatten(ElementsAttr value, RankedTensorType flat) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(flat, resource.getRawHandle());
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    if (!dense.isSplat())
      return dense.reshape(flat);
  return {};
}

struct HostFlattenConstantsPass
    : mlc::host::impl::HostFlattenConstantsBase<HostFlattenConstantsPass> {
  void runOnOperation() override {
    SmallVector<arith::ConstantOp> constants;
    getOperation().walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (type && type.getRank() >= 2 && type.hasStaticShape() &&
          type.getNumElements() > 1)
        constants.push_back(op);
    });
    for (arith::ConstantOp op : constants) {
      auto type = cast<RankedTensorType>(op.getType());
      auto flatType =
          RankedTensorType::get({type.getNumElements()}, type.getElementType());
      ElementsAttr flat =
          flatten(cast<ElementsAttr>(op.getValue()), flatType);
      if (!flat)
        continue;
      OpBuilder b(op);
      Value flatValue = arith::ConstantOp::create(b, op.getLoc(), flat);
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        all[0].push_back(d);
      Value shaped = tensor::ExpandShapeOp::create(b, op.getLoc(), type,
                                                   flatValue, all);
      op.replaceAllUsesWith(shaped);
      op.erase();
    }
  }
};
} // namespace
