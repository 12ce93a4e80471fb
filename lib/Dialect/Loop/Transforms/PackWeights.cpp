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
#include "mlc/Dialect/Loop/Transforms/Layouts.h"
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
  OpOperand *rhs = mlc::loop::getPackableConstant(op, panel);
  if (!rhs)
    return false;
  auto constant = rhs->get().getDefiningOp<arith::ConstantOp>();
  auto rhsType = cast<RankedTensorType>(rhs->get().getType());
  auto [kDim, nDim] = *mlc::loop::getPackableOperand(op, rhs, panel);
  ArrayRef<char> data =
      *mlc::loop::getConstantBytes(cast<ElementsAttr>(constant.getValue()));
  int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
  // B'[n1, k, n0] = B[k, n1 * panel + n0].
  auto packedType =
      RankedTensorType::get({n / panel, k, panel}, rhsType.getElementType());
  DenseResourceElementsAttr packed = mlc::loop::makeConstantBlob(
      packedType, "packed", data.size(), [&](MutableArrayRef<char> out) {
        const float *src = reinterpret_cast<const float *>(data.data());
        float *dst = reinterpret_cast<float *>(out.data());
        for (int64_t n1 = 0; n1 < n / panel; ++n1)
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t n0 = 0; n0 < panel; ++n0)
              *dst++ = src[kk * n + n1 * panel + n0];
      });
  rewriter.setInsertionPoint(op);
  Value packedValue = arith::ConstantOp::create(rewriter, op.getLoc(), packed);
  mlc::loop::readPacked(rewriter, op, rhs, packedValue, kDim, nDim, panel);
  if (constant->use_empty())
    rewriter.eraseOp(constant);
  return true;
}

struct LoopPackWeightsPass
    : mlc::loop::impl::LoopPackWeightsBase<LoopPackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto [op, layout] :
         mlc::loop::takeLayouts<linalg::LinalgOp>(getOperation(), "packed"))
      packRightHandSide(rewriter, op, layout.getPanel());
  }
};
} // namespace
