//===- PackWeights.cpp - Constant right-hand sides in panel layout --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlc/Dialect/Loop/Utils/ConstantData.h"
#include "mlc/Dialect/Loop/Transforms/Packing.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPPACKWEIGHTS
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// Rewrites `op` to read its constant right-hand side in panels of `panel`
/// columns; returns false (leaving `op` alone) when it does not apply.
bool packRightHandSide(RewriterBase &rewriter, linalg::LinalgOp op,
                       int64_t panel) {
  if (op.getNumDpsInputs() != 2 ||
      !llvm::all_of(op->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isF32();
      }))
    return false;
  // The right-hand side: exactly B[k, n], a constant.
  for (OpOperand *rhs : op.getDpsInputOperands()) {
    auto constant = rhs->get().getDefiningOp<arith::ConstantOp>();
    if (!constant || op.getMatchingIndexingMap(rhs).getNumResults() != 2)
      continue;
    auto rhsType = dyn_cast<RankedTensorType>(rhs->get().getType());
    if (!rhsType)
      continue;
    std::optional<std::pair<unsigned, unsigned>> dims =
        mlc::loop::getPackableOperand(op, rhs, panel);
    std::optional<ArrayRef<char>> data = mlc::loop::getConstantBytes(
        cast<ElementsAttr>(constant.getValue()));
    if (!dims || !data)
      continue;
    int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
    // B'[n1, k, n0] = B[k, n1 * panel + n0].
    auto packedType = RankedTensorType::get({n / panel, k, panel},
                                            rhsType.getElementType());
    DenseResourceElementsAttr packed = mlc::loop::makeConstantBlob(
        packedType, "packed", data->size(), [&](MutableArrayRef<char> out) {
          const float *src = reinterpret_cast<const float *>(data->data());
          float *dst = reinterpret_cast<float *>(out.data());
          for (int64_t n1 = 0; n1 < n / panel; ++n1)
            for (int64_t kk = 0; kk < k; ++kk)
              for (int64_t n0 = 0; n0 < panel; ++n0)
                *dst++ = src[kk * n + n1 * panel + n0];
        });
    rewriter.setInsertionPoint(op);
    Value packedValue =
        arith::ConstantOp::create(rewriter, op.getLoc(), packed);
    mlc::loop::readPacked(rewriter, op, rhs, packedValue, dims->first,
                            dims->second, panel);
    if (constant->use_empty())
      rewriter.eraseOp(constant);
    return true;
  }
  return false;
}

struct LoopPackWeightsPass
    : mlc::loop::impl::LoopPackWeightsBase<LoopPackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto layout = op->getAttrOfType<mlc::loop::LayoutAttr>(
          mlc::loop::LoopDialect::getLayoutAttrName());
      if (!layout || layout.getKind() != "packed")
        return;
      op->removeAttr(mlc::loop::LoopDialect::getLayoutAttrName());
      candidates.emplace_back(op, layout.getPanel());
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, panel] : candidates)
      packRightHandSide(rewriter, op, panel);
  }
};
} // namespace
