//===- MaxPool.cpp - Max pooling on the NPU -------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "MaxPool.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {
/// Whether `value` is a float constant of -inf.
bool isMinusInfinity(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         attr.getValue().isInfinity() && attr.getValue().isNegative();
}
} // namespace

std::optional<MaxPool> mlc::npu::matchMaxPool(linalg::PoolingNchwMaxOp op,
                                              std::string &why) {
  why = "not a static float max pooling on tensors";
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return std::nullopt;
  Value padded = op.getInputs()[0];
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto window = cast<ShapedType>(op.getInputs()[1].getType());
  auto paddedType = cast<RankedTensorType>(padded.getType());
  if (!result.hasStaticShape() || !paddedType.hasStaticShape() ||
      !window.hasStaticShape() || !isa<FloatType>(result.getElementType()))
    return std::nullopt;
  std::optional<ElementType> type = getNPUElementType(result.getElementType());
  if (!type) {
    why = "an element type the NPU does not have";
    return std::nullopt;
  }
  if (llvm::any_of(op.getDilations().getValues<int64_t>(),
                   [](int64_t d) { return d != 1; })) {
    why = "a dilated pooling";
    return std::nullopt;
  }
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !isMinusInfinity(fill.getInputs()[0])) {
    why = "a pooling into something other than -inf";
    return std::nullopt;
  }
  MaxPool pool;
  pool.input = padded;
  std::array<int64_t, 2> pads{0, 0};
  if (auto pad = padded.getDefiningOp<tensor::PadOp>()) {
    Value constant = pad.getConstantPaddingValue();
    ArrayRef<int64_t> low = pad.getStaticLow();
    if (!constant || !isMinusInfinity(constant) || low.size() != 4 ||
        low[0] != 0 || low[1] != 0 || pad.getStaticHigh()[0] != 0 ||
        pad.getStaticHigh()[1] != 0 || ShapedType::isDynamic(low[2]) ||
        ShapedType::isDynamic(low[3])) {
      why = "an input padded with something other than -inf on its rows and "
            "columns";
      return std::nullopt;
    }
    pool.input = pad.getSource();
    pads = {low[2], low[3]};
  }
  auto input = cast<RankedTensorType>(pool.input.getType());
  if (!input.hasStaticShape())
    return std::nullopt;
  MaxPoolShape &s = pool.shape;
  s.planes = input.getDimSize(0) * input.getDimSize(1);
  s.height = input.getDimSize(2);
  s.width = input.getDimSize(3);
  s.outHeight = result.getDimSize(2);
  s.outWidth = result.getDimSize(3);
  s.window = {window.getDimSize(0), window.getDimSize(1)};
  SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
  s.strides = {strides[0], strides[1]};
  s.pads = pads;
  s.type = *type;
  // A window wholly in the padding would give -inf, which the NPU's
  // pooling, skipping the padding, has no element for.
  int64_t in[2] = {s.height, s.width}, out[2] = {s.outHeight, s.outWidth};
  for (int d = 0; d < 2; ++d)
    if (pads[d] >= s.window[d] ||
        (out[d] - 1) * s.strides[d] - pads[d] >= in[d]) {
      why = "a window that lies wholly in the padding";
      return std::nullopt;
    }
  why.clear();
  return pool;
}

Value mlc::npu::buildNPUMaxPool(OpBuilder &b, linalg::PoolingNchwMaxOp op,
                                const MaxPool &pool, StringRef npu,
                                const MaxPoolTiles &tiles) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  Location loc = op.getLoc();
  Value init = tensor::EmptyOp::create(b, loc, result.getShape(),
                                       result.getElementType());
  const MaxPoolShape &s = pool.shape;
  return MaxPoolOp::create(
             b, loc, TypeRange{result}, pool.input, init, b.getStringAttr(npu),
             b.getDenseI64ArrayAttr(s.window),
             b.getDenseI64ArrayAttr(s.strides), b.getDenseI64ArrayAttr(s.pads),
             b.getI64IntegerAttr(tiles.planes),
             b.getI64IntegerAttr(tiles.buffers))
      .getResult()[0];
}
