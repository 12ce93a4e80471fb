//===- TestPerturbNode.cpp - Make one node's result wrong on purpose ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHTESTPERTURBNODE
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;

namespace {
struct GraphTestPerturbNodePass
    : mlc::graph::impl::GraphTestPerturbNodeBase<GraphTestPerturbNodePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> targets;
    getOperation().walk([&](Operation *op) {
      auto name = dyn_cast<NameLoc>(op->getLoc());
      if (name && name.getName() == node && op->getNumResults() > 0 &&
          !op->hasTrait<OpTrait::ConstantLike>() &&
          isa_and_nonnull<mlc::graph::GraphDialect>(op->getDialect()))
        targets.push_back(op);
    });
    for (Operation *op : targets)
      for (OpResult result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || !isa<FloatType>(type.getElementType()))
          continue;
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        auto scalar = RankedTensorType::get({}, type.getElementType());
        Value delta = mlc::graph::ConstantOp::create(
            b, op->getLoc(), scalar,
            DenseElementsAttr::get(
                scalar, b.getFloatAttr(type.getElementType(), this->delta)));
        auto add = mlc::graph::AddOp::create(b, op->getLoc(), type, result,
                                             delta);
        result.replaceAllUsesExcept(add.getResult(), add);
        break;
      }
  }
};
} // namespace
