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

std::optional<SmallVector<float>> mlc::npu::getFloats(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.getElementType().isF32())
    return std::nullopt;
  SmallVector<float> floats;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    for (float f : dense.getValues<float>())
      floats.push_back(f);
    return floats;
  }
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data)
      return std::nullopt;
    floats.assign(data->begin(), data->end());
    return floats;
  }
  return std::nullopt;
}

bool mlc::npu::isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

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

Value mlc::npu::buildIm2col(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                            Value input, Type elementType) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  auto filterType = cast<ShapedType>(conv.getInputs()[1].getType());
  auto outputType = cast<ShapedType>(conv.getOutputs()[0].getType());
  int64_t c = filterType.getDimSize(1), kh = filterType.getDimSize(2),
          kw = filterType.getDimSize(3);
  int64_t oh = outputType.getDimSize(2), ow = outputType.getDimSize(3);
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  // col[oh, ow, c, kh, kw] = input[0, c, oh * sh + kh * dh, ow * sw + kw * dw]
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  AffineMap read = AffineMap::get(5, 0,
                                  {getAffineConstantExpr(0, ctx), d2,
                                   d0 * strides[0] + d3 * dilations[0],
                                   d1 * strides[1] + d4 * dilations[1]},
                                  ctx);
  auto colType = RankedTensorType::get({oh, ow, c, kh, kw}, elementType);
  Value colInit =
      tensor::EmptyOp::create(b, loc, colType.getShape(), elementType);
  Value col =
      linalg::GenericOp::create(
          b, loc, colType, ValueRange{input}, ValueRange{colInit},
          ArrayRef<AffineMap>{read, b.getMultiDimIdentityMap(5)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v = args[0];
            if (v.getType() != elementType)
              v = arith::TruncFOp::create(nb, nloc, elementType, v);
            linalg::YieldOp::create(nb, nloc, v);
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({oh * ow, c * kh * kw}, elementType), col,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}});
}

Value mlc::npu::buildTransposeBack(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                                   Value product, Value scales,
                                   Value offsets) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  auto outputType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t f = outputType.getDimSize(1), oh = outputType.getDimSize(2),
          ow = outputType.getDimSize(3);
  Type element = outputType.getElementType();
  Type productElement = getElementTypeOrSelf(product.getType());
  // out[0, f, oh, ow] = product[oh, ow, f] (int32 as f32 for an f32
  // result, times scales[f]) (+ init[0, f, oh, ow], a bias, unless it is
  // zero)
  Value pixels = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({oh, ow, f}, productElement), product,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  AffineExpr n, fe, y, x;
  bindDims(ctx, n, fe, y, x);
  SmallVector<Value> inputs{pixels};
  SmallVector<AffineMap> maps{AffineMap::get(4, 0, {y, x, fe}, ctx)};
  if (offsets) {
    inputs.push_back(offsets);
    maps.push_back(AffineMap::get(4, 0, {fe}, ctx));
  }
  if (scales) {
    inputs.push_back(scales);
    maps.push_back(AffineMap::get(4, 0, {fe}, ctx));
  }
  Value init = conv.getOutputs()[0];
  bool add = !isZeroFill(init);
  if (add) {
    inputs.push_back(init);
    maps.push_back(b.getMultiDimIdentityMap(4));
  }
  maps.push_back(b.getMultiDimIdentityMap(4));
  Value outInit =
      tensor::EmptyOp::create(b, loc, outputType.getShape(), element);
  return linalg::GenericOp::create(
             b, loc, outputType, inputs, ValueRange{outInit}, maps,
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value value = args[0];
               unsigned next = 1;
               if (offsets)
                 value = arith::AddIOp::create(nb, nloc, value, args[next++]);
               if (value.getType() != element)
                 value = arith::SIToFPOp::create(nb, nloc, element, value);
               if (scales)
                 value = arith::MulFOp::create(nb, nloc, value, args[next++]);
               if (add)
                 value = isa<FloatType>(element)
                             ? Value(arith::AddFOp::create(nb, nloc, value,
                                                           args[next]))
                             : Value(arith::AddIOp::create(nb, nloc, value,
                                                           args[next]));
               linalg::YieldOp::create(nb, nloc, value);
             })
      .getResult(0);
}

Value mlc::npu::buildBF16Copy(OpBuilder &b, Value value) {
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  Type bf16 = b.getBF16Type();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), bf16);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{value}, ValueRange{init},
             ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::TruncFOp::create(nb, nloc, bf16, args[0])
                       .getResult());
             })
      .getResult(0);
}

Value mlc::npu::buildConvolutionAsNPUMatmul(OpBuilder &b,
                                            linalg::Conv2DNchwFchwOp conv,
                                            const ConvolutionAsMatmul &plan,
                                            Value filter, StringRef npu,
                                            const MatmulTiles &tiles) {
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
    Value init = tensor::EmptyOp::create(b, loc, {c, kh, kw, f}, bf16);
    Value transposed =
        linalg::GenericOp::create(
            b, loc, init.getType(), ValueRange{conv.getInputs()[1]},
            ValueRange{init},
            ArrayRef<AffineMap>{AffineMap::get(4, 0, {i3, i0, i1, i2}, ctx),
                                b.getMultiDimIdentityMap(4)},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nloc,
                  arith::TruncFOp::create(nb, nloc, bf16, args[0]).getResult());
            })
            .getResult(0);
    filter = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({plan.depth, plan.filters}, bf16),
        transposed, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  }
  // The im2col matrix rounded to bf16 as the gather copies it (half the
  // bytes for the NPU to load, nothing for it to convert).
  Value matrix = buildIm2col(b, conv, conv.getInputs()[0], bf16);
  // The product, pixel-major, overwriting an empty init.
  auto productType = RankedTensorType::get({plan.pixels, plan.filters}, f32);
  Value empty = tensor::EmptyOp::create(b, loc, productType.getShape(), f32);
  Value product = npu::MatmulOp::create(b, loc, TypeRange{productType}, matrix,
                                        filter, empty, Value(), npu, tiles.rows,
                                        tiles.cols, tiles.buffers, tiles.depth,
                                        /*accumulate=*/false)
                      .getResult()[0];
  return buildTransposeBack(b, conv, product, Value());
}
