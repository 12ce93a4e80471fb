//===- QuantizedAdd.cpp - QDQ residual adds on the NPU --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "QuantizedAdd.h"

#include "QuantizedMatmul.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

std::optional<QuantizedAdd> mlc::npu::matchQuantizedAdd(linalg::GenericOp op,
                                                        std::string &why) {
  auto type = dyn_cast<RankedTensorType>(op->getResultTypes().front());
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || !type || !type.hasStaticShape() ||
      !type.getElementType().isF32() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); })) {
    why = "not an elementwise f32 add of two tensors of its shape";
    return std::nullopt;
  }
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != body ||
      !((add.getLhs() == body->getArgument(0) &&
         add.getRhs() == body->getArgument(1)) ||
        (add.getLhs() == body->getArgument(1) &&
         add.getRhs() == body->getArgument(0)))) {
    why = "not an elementwise f32 add of two tensors of its shape";
    return std::nullopt;
  }
  QuantizedAdd q;
  std::optional<target::Activations> a =
      target::getActivations(op.getDpsInputs()[0], why);
  std::optional<target::Activations> b =
      a ? target::getActivations(op.getDpsInputs()[1], why) : std::nullopt;
  if (!a || !b || a->widened || b->widened) {
    why = "its operands are not both dequantized 8-bit tensors";
    return std::nullopt;
  }
  for (const target::Activations *x : {&*a, &*b})
    if (cast<ShapedType>(x->integers.getType()).getShape() != type.getShape()) {
      why = "an operand dequantized from another shape";
      return std::nullopt;
    }
  std::optional<Requantization> r = matchRequantization(op.getResult(0), why);
  if (!r)
    return std::nullopt;
  if (!r->bias.empty()) {
    why = "its sum gets a bias before it is requantized";
    return std::nullopt;
  }
  q.lhs = a->integers;
  q.rhs = b->integers;
  q.lhsUnsigned = a->isUnsigned;
  q.rhsUnsigned = b->isUnsigned;
  QuantizedAddShape &s = q.shape;
  s.elements = type.getNumElements();
  s.lhsScale = a->scale;
  s.rhsScale = b->scale;
  s.lhsZeroPoint = int32_t(getShiftedZero(a->isUnsigned, a->zeroPoint));
  s.rhsZeroPoint = int32_t(getShiftedZero(b->isUnsigned, b->zeroPoint));
  s.resultScale = 1.0f / r->scale;
  s.zeroPoint = int32_t(getShiftedZero(r->isUnsigned, r->zeroPoint));
  s.relu = r->relu;
  if (!(s.lhsScale > 0) || !(s.rhsScale > 0) || !std::isfinite(s.lhsScale) ||
      !std::isfinite(s.rhsScale) || !std::isfinite(s.resultScale)) {
    why = "a scale that is not positive and finite";
    return std::nullopt;
  }
  q.requantization = std::move(*r);
  return q;
}

Value mlc::npu::buildQuantizedNPUAdd(OpBuilder &b, Location loc,
                                     const QuantizedAdd &q, StringRef npu,
                                     const QuantizedAddTiles &tiles) {
  Value lhs = shiftToInt8(b, loc, q.lhs, q.lhsUnsigned);
  Value rhs = shiftToInt8(b, loc, q.rhs, q.rhsUnsigned);
  auto type = cast<RankedTensorType>(lhs.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  const QuantizedAddShape &s = q.shape;
  auto sum = npu::QuantizedAddOp::create(
      b, loc, TypeRange{type}, lhs, rhs, init, b.getStringAttr(npu),
      b.getF32FloatAttr(s.lhsScale), b.getI32IntegerAttr(s.lhsZeroPoint),
      b.getF32FloatAttr(s.rhsScale), b.getI32IntegerAttr(s.rhsZeroPoint),
      b.getF32FloatAttr(s.resultScale), b.getI32IntegerAttr(s.zeroPoint),
      s.relu ? b.getUnitAttr() : UnitAttr(),
      b.getI64IntegerAttr(tiles.elements), b.getI64IntegerAttr(tiles.buffers));
  linalg::GenericOp quantize = q.requantization.ops.back();
  return buildQuantizedResult(
      b, loc, sum.getResult()[0], b.getMultiDimIdentityMap(type.getRank()),
      cast<RankedTensorType>(quantize.getResult(0).getType()));
}
