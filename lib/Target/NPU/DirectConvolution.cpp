//===- DirectConvolution.cpp - Convolutions as shifted NPU matmuls --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DirectConvolution.h"

#include "ConvolutionAsMatmul.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlc-runtime/NPU/Simulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;
using mlc::target::buildConvolutionResult;

MatmulShape DirectConvolution::getShape() const {
  MatmulShape shape;
  shape.m = outH * paddedW;
  shape.k = kernelH * kernelW * channels;
  shape.n = filters;
  shape.lhs = shape.rhs = ElementType::BF16;
  shape.out = ElementType::F32;
  shape.roundResult = true;
  for (int64_t i = 0; i < kernelH; ++i)
    for (int64_t j = 0; j < kernelW; ++j)
      shape.rowShifts.push_back(i * paddedW + j);
  return shape;
}

std::optional<DirectConvolution>
mlc::npu::getDirectConvolution(linalg::Conv2DNchwFchwOp conv,
                               std::string &why) {
  auto input = cast<ShapedType>(conv.getInputs()[0].getType());
  auto filter = cast<ShapedType>(conv.getInputs()[1].getType());
  auto output = cast<ShapedType>(conv.getOutputs()[0].getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape() || !conv.hasPureTensorSemantics() ||
      output.getDimSize(0) != 1 || !input.getElementType().isF32() ||
      !output.getElementType().isF32()) {
    why = "not a static f32 convolution of batch 1";
    return std::nullopt;
  }
  auto ones = [](DenseIntElementsAttr a) {
    return llvm::all_of(a.getValues<int64_t>(),
                        [](int64_t v) { return v == 1; });
  };
  if (!ones(conv.getStrides()) || !ones(conv.getDilations())) {
    why = "strides or dilations other than 1";
    return std::nullopt;
  }
  DirectConvolution plan;
  plan.filters = filter.getDimSize(0);
  plan.channels = filter.getDimSize(1);
  plan.kernelH = filter.getDimSize(2);
  plan.kernelW = filter.getDimSize(3);
  if (plan.kernelH * plan.kernelW < 2) {
    why = "one tap: its im2col matrix is its input";
    return std::nullopt;
  }
  std::optional<SmallVector<float>> weights = getFloats(conv.getInputs()[1]);
  if (!weights) {
    why = "a filter that is not a constant";
    return std::nullopt;
  }
  plan.paddedH = input.getDimSize(2);
  plan.paddedW = input.getDimSize(3);
  plan.outH = output.getDimSize(2);
  plan.outW = output.getDimSize(3);
  int64_t c = plan.channels, f = plan.filters, kh = plan.kernelH,
          kw = plan.kernelW;
  plan.weights.resize(size_t(kh * kw * c * f));
  for (int64_t o = 0; o < f; ++o)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          plan.weights[size_t(((i * kw + j) * c + ch) * f + o)] =
              (*weights)[size_t(((o * c + ch) * kh + i) * kw + j)];
  return plan;
}

Value mlc::npu::buildDirectNPUConvolution(OpBuilder &b,
                                          linalg::Conv2DNchwFchwOp conv,
                                          const DirectConvolution &plan,
                                          StringRef npu,
                                          const MatmulTiles &tiles) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type bf16 = b.getBF16Type();
  int64_t c = plan.channels, hp = plan.paddedH, wp = plan.paddedW;
  // X[y, x, c] = bf16(input[0, c, y, x]), as [Hp * Wp, C] with KW - 1 zero
  // rows after, which the last taps of the last wide row reach.
  AffineExpr y, x, ch;
  bindDims(ctx, y, x, ch);
  Value channelsLast = buildBF16Gather(
      b, loc, conv.getInputs()[0],
      AffineMap::get(3, 0, {getAffineConstantExpr(0, ctx), ch, y, x}, ctx),
      {hp, wp, c});
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({hp * wp, c}, bf16), channelsLast,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  MatmulShape shape = plan.getShape();
  Value zero =
      arith::ConstantOp::create(b, loc, bf16, b.getFloatAttr(bf16, 0.0));
  Value lhs = tensor::PadOp::create(
      b, loc, RankedTensorType::get({shape.getLhsRows(), c}, bf16), rows,
      SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      SmallVector<OpFoldResult>{b.getIndexAttr(shape.getLhsRows() - hp * wp),
                                b.getIndexAttr(0)},
      zero);
  // The taps' filters, rounded when compiling.
  SmallVector<uint16_t> rounded;
  for (float w : plan.weights)
    rounded.push_back(roundToBF16(w));
  auto weightsType = RankedTensorType::get({shape.k, shape.n}, bf16);
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          weightsType,
          ArrayRef<char>(reinterpret_cast<const char *>(rounded.data()),
                         rounded.size() * sizeof(uint16_t))));
  Value empty = tensor::EmptyOp::create(b, loc, {shape.m, shape.n}, bf16);
  auto matmul = npu::MatmulOp::create(b, loc, TypeRange{empty.getType()}, lhs,
                                      weights, empty, Value(), npu, tiles.rows,
                                      tiles.cols, tiles.buffers, tiles.depth,
                                      /*accumulate=*/false);
  matmul.setRowShifts(ArrayRef<int64_t>(shape.rowShifts));
  // out[0, f, y, x] = wide[y, x, f] for x < OW.
  Value wide = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({plan.outH, wp, shape.n}, bf16),
      matmul.getResult()[0], SmallVector<ReassociationIndices>{{0, 1}, {2}});
  Value pixels = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({plan.outH, plan.outW, shape.n}, bf16),
      wide, ValueRange(), ValueRange(), ValueRange(),
      b.getDenseI64ArrayAttr({0, 0, 0}),
      b.getDenseI64ArrayAttr({plan.outH, plan.outW, shape.n}),
      b.getDenseI64ArrayAttr({1, 1, 1}));
  AffineExpr n, fe, oy, ox;
  bindDims(ctx, n, fe, oy, ox);
  return buildConvolutionResult(b, conv, pixels,
                                AffineMap::get(4, 0, {oy, ox, fe}, ctx),
                                Value(), Value());
}
