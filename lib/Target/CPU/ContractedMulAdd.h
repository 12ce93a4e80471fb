//===- ContractedMulAdd.h - FMA ops as contractible mul + add ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_CONTRACTEDMULADD_H
#define MLC_LIB_TARGET_CPU_CONTRACTEDMULADD_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// Rewrites an FMA op (`vector.fma`, `math.fma`: operands a, b, c) into
/// `a * b + c` with the `contract` fast-math flag. LLVM fuses the pair into
/// an FMA instruction on targets that have one (AVX2, NEON) and keeps two
/// instructions elsewhere, where `llvm.fma` would become a call to libm's
/// correctly rounded `fmaf` per lane (generic x86-64).
template <typename FmaOpTy>
struct FmaToContractedMulAdd : mlir::OpRewritePattern<FmaOpTy> {
  using mlir::OpRewritePattern<FmaOpTy>::OpRewritePattern;
  mlir::LogicalResult
  matchAndRewrite(FmaOpTy op, mlir::PatternRewriter &rewriter) const override {
    auto contract = mlir::arith::FastMathFlagsAttr::get(
        op.getContext(), mlir::arith::FastMathFlags::contract);
    mlir::Value product = mlir::arith::MulFOp::create(
        rewriter, op.getLoc(), op->getOperand(0), op->getOperand(1), contract);
    rewriter.replaceOpWithNewOp<mlir::arith::AddFOp>(
        op, product, op->getOperand(2), contract);
    return mlir::success();
  }
};

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_CONTRACTEDMULADD_H
