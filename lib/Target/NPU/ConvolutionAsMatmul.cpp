//===- ConvolutionAsMatmul.cpp - A convolution as an NPU matmul -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Pixels are the matmul's rows (M = OH * OW, many: the weight-stationary
// array streams them), the filter is its constant right-hand side. The
// im2col gather and the transpose back are linalg.generic ops that the CPU
// strategy schedules like any other copy.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionAsMatmul.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

std::optional<ConvolutionAsMatmul>
mlc::npu::getConvolutionAsMatmul(linalg::Conv2DNchwFchwOp conv,
                                 std::string &why) {
  auto input = cast<ShapedType>(conv.getInputs()[0].getType());
  auto filter = cast<ShapedType>(conv.getInputs()[1].getType());
  auto output = cast<ShapedType>(conv.getOutputs()[0].getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape() || !conv.hasPureTensorSemantics()) {
    why = "not a statically shaped convolution on tensors";
    return std::nullopt;
  }
  if (output.getDimSize(0) != 1) {
    why = "a convolution of a batch of " +
          std::to_string(output.getDimSize(0)) + " (the NPU takes batch 1)";
    return std::nullopt;
  }
  if (!input.getElementType().isF32() || !output.getElementType().isF32()) {
    why = "not an f32 convolution";
    return std::nullopt;
  }
  ConvolutionAsMatmul plan;
  int64_t f = filter.getDimSize(0);
  int64_t k =
      filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
  plan.filters = f;
  plan.depth = k;
  plan.pixels = output.getDimSize(2) * output.getDimSize(3);
  // A constant filter is transposed when compiling; another one by a
  // transpose the CPU runs.
  std::optional<SmallVector<float>> weights = getFloats(conv.getInputs()[1]);
  if (!weights)
    return plan;
  plan.transposedFilter.resize(size_t(k * f));
  for (int64_t row = 0; row < f; ++row)
    for (int64_t col = 0; col < k; ++col)
      plan.transposedFilter[size_t(col * f + row)] =
          (*weights)[size_t(row * k + col)];
  return plan;
}

Value mlc::npu::buildBF16Gather(OpBuilder &b, Location loc, Value source,
                                AffineMap sourceMap, ArrayRef<int64_t> shape) {
  Type bf16 = b.getBF16Type();
  Value init = tensor::EmptyOp::create(b, loc, shape, bf16);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{source}, ValueRange{init},
             ArrayRef<AffineMap>{sourceMap,
                                 b.getMultiDimIdentityMap(shape.size())},
             SmallVector<utils::IteratorType>(shape.size(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::TruncFOp::create(nb, nloc, bf16, args[0])
                       .getResult());
             })
      .getResult(0);
}

Value mlc::npu::buildBF16Copy(OpBuilder &b, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return buildBF16Gather(b, value.getLoc(), value,
                         b.getMultiDimIdentityMap(type.getRank()),
                         type.getShape());
}

Value mlc::npu::buildConvolutionAsNPUMatmul(OpBuilder &b,
                                            linalg::Conv2DNchwFchwOp conv,
                                            const ConvolutionAsMatmul &plan,
                                            Value filter, StringRef npu,
                                            const MatmulTiles &tiles,
                                            bool roundResult) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  if (!filter) {
    // filter^T[(c, kh, kw), f] = bf16(filter[f, c, kh, kw]), as
    // [c, kh, kw, f] collapsed.
    auto type = cast<RankedTensorType>(conv.getInputs()[1].getType());
    int64_t f = type.getDimSize(0), c = type.getDimSize(1),
            kh = type.getDimSize(2), kw = type.getDimSize(3);
    AffineExpr i0, i1, i2, i3;
    bindDims(ctx, i0, i1, i2, i3);
    Value transposed = buildBF16Gather(
        b, loc, conv.getInputs()[1],
        AffineMap::get(4, 0, {i3, i0, i1, i2}, ctx), {c, kh, kw, f});
    filter = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({plan.depth, plan.filters}, bf16),
        transposed, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  }
  // The im2col matrix rounded to bf16 as the gather copies it (half the
  // bytes for the NPU to load, nothing for it to convert).
  Value matrix = buildIm2col(b, conv, conv.getInputs()[0], bf16);
  // The product, pixel-major, overwriting an empty init (bf16 when the
  // sums leave rounded).
  Type element = roundResult ? bf16 : f32;
  auto productType =
      RankedTensorType::get({plan.pixels, plan.filters}, element);
  Value empty =
      tensor::EmptyOp::create(b, loc, productType.getShape(), element);
  Value product = npu::MatmulOp::create(b, loc, TypeRange{productType}, matrix,
                                        filter, empty, Value(), npu, tiles.rows,
                                        tiles.cols, tiles.buffers, tiles.depth,
                                        /*accumulate=*/false)
                      .getResult()[0];
  return buildTransposeBack(b, conv, product, Value());
}
