//===- Im2col.cpp - Convolutions' im2col matrices -------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Im2col.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlc/Dialect/Loop/Utils/ValueBounds.h"

using namespace mlir;

linalg::GenericOp
mlc::loop::createIm2colGather(RewriterBase &rewriter,
                                linalg::Conv2DNchwFchwOp conv, Value init) {
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  auto readMap = AffineMap::get(
      6, 0,
      {d[0], d[1], d[4] * strides[0] + d[2] * dilations[0],
       d[5] * strides[1] + d[3] * dilations[1]},
      ctx);
  auto gather = linalg::GenericOp::create(
      rewriter, conv.getLoc(), init.getType(), conv.getInputs()[0], init,
      ArrayRef<AffineMap>{readMap, rewriter.getMultiDimIdentityMap(6)},
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  return gather;
}

linalg::GenericOp mlc::loop::getIm2colGather(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return nullptr;
  auto gather = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!gather || !gather->hasAttr(kIm2colAttr) ||
      gather->getNumResults() != 1)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(gather->getResult(0).getType());
  if (!type || type.getRank() != 6 || !type.hasStaticShape() ||
      collapse.getResultType().getRank() != 3)
    return nullptr;
  return gather;
}

/// Whether dim `i` of `a` and dim `j` of `b` have the same size: both
/// static and equal, or both known at run time and provably the same value.
static bool sameSize(Value a, int64_t i, Value b, int64_t j) {
  auto typeA = cast<ShapedType>(a.getType());
  auto typeB = cast<ShapedType>(b.getType());
  if (!typeA.isDynamicDim(i) || !typeB.isDynamicDim(j))
    return typeA.getDimSize(i) == typeB.getDimSize(j);
  return mlc::loop::provablyEqual(ValueBoundsConstraintSet::Variable(a, i),
                                  ValueBoundsConstraintSet::Variable(b, j));
}

bool mlc::loop::isPointwiseConvolution(linalg::Conv2DNchwFchwOp conv) {
  Value input = conv.getInputs()[0], init = conv.getOutputs()[0];
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(init.getType());
  if (!inputType || !filterType || !outType || !filterType.hasStaticShape())
    return false;
  return filterType.getDimSize(2) == 1 && filterType.getDimSize(3) == 1 &&
         llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 1; }) &&
         sameSize(input, 2, init, 2) && sameSize(input, 3, init, 3);
}

bool mlc::loop::hasStaticChannels(linalg::Conv2DNchwFchwOp conv) {
  auto inputType = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filterType = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  return conv.hasPureTensorSemantics() && inputType && filterType &&
         outType && filterType.hasStaticShape() &&
         !inputType.isDynamicDim(1) && !outType.isDynamicDim(1) &&
         llvm::all_of(TypeRange{inputType, filterType, outType},
                      [](Type t) { return getElementTypeOrSelf(t).isF32(); });
}
