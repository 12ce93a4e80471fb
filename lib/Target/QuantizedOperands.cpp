//===- QuantizedOperands.cpp - Contractions of dequantized integers -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "QuantizedOperands.h"

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
/// A DequantizeLinear as GraphToLoop lowers it: a generic marked
/// mlc_loop.dequantize reading (integers, scale[, zero point]).
struct Dequantize {
  linalg::GenericOp op;
  /// The scale is null for a widening (a scale of one, an i32 result).
  Value integers, scale, zeroPoint;
  /// The scale's and the zero point's indexing maps.
  AffineMap scaleMap, zeroPointMap;
};

/// A generic marked mlc_loop.dequantize: a DequantizeLinear reading
/// (integers, scale[, zero point]), or a widening reading (integers[, zero
/// point]).
std::optional<Dequantize> getDequantize(Value v) {
  auto op = v.getDefiningOp<linalg::GenericOp>();
  if (!op ||
      !op->hasAttr(loop::LoopDialect::DequantizeAttrHelper::getNameStr()) ||
      op.getNumDpsInputs() < 1 || op.getNumDpsInputs() > 3 ||
      op.getNumResults() != 1)
    return std::nullopt;
  Dequantize d{op, op.getDpsInputs()[0], Value(), Value(), AffineMap(),
               AffineMap()};
  for (unsigned i = 1; i < op.getNumDpsInputs(); ++i) {
    Value input = op.getDpsInputs()[i];
    if (isa<FloatType>(getElementTypeOrSelf(input.getType())) && !d.scale) {
      d.scale = input;
      d.scaleMap = op.getIndexingMapsArray()[i];
    } else if (!d.zeroPoint) {
      d.zeroPoint = input;
      d.zeroPointMap = op.getIndexingMapsArray()[i];
    }
  }
  return d;
}

/// One value shared by every element of a constant, or nothing.
template <typename T> std::optional<T> getUniform(ArrayRef<T> values) {
  if (values.empty() ||
      llvm::any_of(values, [&](T v) { return v != values.front(); }))
    return std::nullopt;
  return values.front();
}

} // namespace

std::optional<Activations> mlc::target::getActivations(Value v,
                                                       std::string &why,
                                                       bool runTimeZeroPoint) {
  std::optional<Dequantize> a = getDequantize(v);
  if (!a) {
    why = "its activations are not dequantized integers";
    return std::nullopt;
  }
  auto type = cast<RankedTensorType>(a->integers.getType());
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  if (!integer || integer.getWidth() != 8 || !type.hasStaticShape()) {
    why = "activations that are not 8-bit integers";
    return std::nullopt;
  }
  std::optional<SmallVector<float>> scales =
      a->scale ? getFloats(a->scale)
               : std::optional<SmallVector<float>>(SmallVector<float>{1});
  std::optional<SmallVector<int64_t>> zeros =
      a->zeroPoint
          ? getIntegers(a->zeroPoint)
          : std::optional<SmallVector<int64_t>>(SmallVector<int64_t>{0});
  std::optional<float> scale =
      scales ? getUniform<float>(*scales) : std::nullopt;
  std::optional<int64_t> zero =
      zeros ? getUniform<int64_t>(*zeros) : std::nullopt;
  // A widening (ConvInteger, MatMulInteger) by one zero point known at run
  // time only: DynamicQuantizeLinear's.
  if (runTimeZeroPoint && !a->scale && a->zeroPoint && !zeros) {
    auto zpType = dyn_cast<RankedTensorType>(a->zeroPoint.getType());
    if (zpType && zpType.hasStaticShape() && zpType.getNumElements() == 1 &&
        zpType.getElementType() == type.getElementType()) {
      return Activations{a->integers, integer.isUnsigned(), 1, 0, true,
                         a->zeroPoint};
    }
  }
  if (!scale || !zero) {
    why = "activations quantized with other than one constant scale and "
          "zero point";
    return std::nullopt;
  }
  return Activations{a->integers, integer.isUnsigned(), *scale, *zero,
                     !a->scale, Value()};
}

namespace {
/// Weights: constant int8 with a zero point of 0, dequantized with one
/// scale or one per index `axis`; their values in their own layout.
struct Weights {
  SmallVector<int64_t> values;
  SmallVector<float> scales;
  RankedTensorType type;
  /// Widened, not dequantized.
  bool widened = false;
};

std::optional<Weights> getWeights(Value v, unsigned axis, std::string &why,
                                  bool wide) {
  std::optional<Dequantize> w = getDequantize(v);
  why = wide ? "weights that are not constant 8-bit values with constant zero "
               "points"
             : "weights that are not constant int8 values with a zero point "
               "of 0";
  if (!w)
    return std::nullopt;
  auto type = cast<RankedTensorType>(w->integers.getType());
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  std::optional<SmallVector<int64_t>> values = getIntegers(w->integers);
  std::optional<SmallVector<float>> scales =
      w->scale ? getFloats(w->scale)
               : std::optional<SmallVector<float>>(SmallVector<float>{1});
  std::optional<SmallVector<int64_t>> zeros =
      w->zeroPoint
          ? getIntegers(w->zeroPoint)
          : std::optional<SmallVector<int64_t>>(SmallVector<int64_t>{0});
  MLIRContext *ctx = v.getContext();
  if (!integer || integer.getWidth() != 8 ||
      (integer.isUnsigned() && !wide) || !values || !scales || !zeros ||
      axis >= type.getRank() ||
      w->op.getIndexingMapsArray()[0] !=
          AffineMap::getMultiDimIdentityMap(type.getRank(), ctx) ||
      (!wide && llvm::any_of(*zeros, [](int64_t z) { return z != 0; })))
    return std::nullopt;
  int64_t count = type.getDimSize(axis);
  if (llvm::any_of(*zeros, [](int64_t z) { return z != 0; })) {
    // Weights minus their zero points, per tensor or per index `axis`:
    // within [-255, 255], the i16 pairs' range.
    bool perAxis = int64_t(zeros->size()) == count && count > 1 &&
                   w->zeroPointMap.getNumResults() == 1 &&
                   w->zeroPointMap.getResult(0) == getAffineDimExpr(axis, ctx);
    if (zeros->size() != 1 && !perAxis) {
      why = "weights with zero points along another axis than the outputs'";
      return std::nullopt;
    }
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    for (size_t i = 0; i < values->size(); ++i)
      (*values)[i] -= (*zeros)[perAxis ? (int64_t(i) / inner) % count : 0];
  }
  AffineMap scaleMap = w->scaleMap;
  Weights weights{*values, {}, type, !w->scale};
  if (scales->size() == 1) {
    weights.scales.assign(size_t(count), scales->front());
  } else if (int64_t(scales->size()) == count &&
             scaleMap.getNumResults() == 1 &&
             scaleMap.getResult(0) == getAffineDimExpr(axis, ctx)) {
    weights.scales.assign(scales->begin(), scales->end());
  } else {
    why = "weights with a scale along another axis than the outputs'";
    return std::nullopt;
  }
  why.clear();
  return weights;
}

/// A matmul's weights [K, N]: dequantized as [K, N], or as [N, K] under a
/// linalg.transpose (a Gemm's transB).
std::optional<Weights> getMatmulWeights(Value v, std::string &why,
                                        bool wide) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return getWeights(v, 1, why, wide);
  if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0}) {
    why = "weights transposed other than [1, 0]";
    return std::nullopt;
  }
  std::optional<Weights> w = getWeights(transpose.getInput(), 0, why, wide);
  if (!w)
    return std::nullopt;
  int64_t n = w->type.getDimSize(0), k = w->type.getDimSize(1);
  SmallVector<int64_t> values(w->values.size());
  for (int64_t row = 0; row < n; ++row)
    for (int64_t col = 0; col < k; ++col)
      values[size_t(col * n + row)] = w->values[size_t(row * k + col)];
  w->values = std::move(values);
  w->type = RankedTensorType::get({k, n}, w->type.getElementType());
  return w;
}

} // namespace

Value mlc::target::castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

std::optional<SmallVector<float>> mlc::target::getFloats(Value value) {
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

bool mlc::target::isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

std::optional<SmallVector<int64_t>> mlc::target::getIntegers(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = dyn_cast<IntegerType>(attr.getElementType());
  if (!type || type.getWidth() > 64)
    return std::nullopt;
  SmallVector<int64_t> values;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(type.isUnsigned() ? int64_t(v.getZExtValue())
                                         : v.getSExtValue());
    return values;
  }
  if (type.getWidth() == 8)
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
      if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
        ArrayRef<char> bytes = blob->getData();
        if (int64_t(bytes.size()) != attr.getNumElements())
          return std::nullopt;
        for (char c : bytes)
          values.push_back(type.isUnsigned() ? int64_t(uint8_t(c))
                                             : int64_t(int8_t(c)));
        return values;
      }
  return std::nullopt;
}

std::optional<QuantizedMatmul>
mlc::target::matchQuantizedMatmul(linalg::MatmulOp op, std::string &why,
                                  bool wide) {
  Type out = getElementTypeOrSelf(op.getOutputs()[0].getType());
  if (!op.hasPureTensorSemantics() || op.getInputs().size() != 2 ||
      !isZeroFill(op.getOutputs()[0]) || !(out.isF32() || out.isInteger(32))) {
    why = "not an f32 or i32 matmul onto zeros";
    return std::nullopt;
  }
  if (!op.getIndexingMaps().getValue().empty() &&
      op.getIndexingMapsArray() !=
          linalg::MatmulOp::getDefaultIndexingMaps(op.getContext())) {
    why = "a matmul with transposed or broadcast operands";
    return std::nullopt;
  }
  QuantizedMatmul q;
  // The activations, through reshapes.
  Value lhs = op.getInputs()[0];
  while (Operation *def = lhs.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
            def))
      break;
    q.reshapes.insert(q.reshapes.begin(), def);
    lhs = def->getOperand(0);
  }
  std::optional<Activations> a = getActivations(lhs, why, wide);
  if (!a)
    return std::nullopt;
  std::optional<Weights> w = getMatmulWeights(op.getInputs()[1], why, wide);
  if (!w)
    return std::nullopt;
  if (w->type.getRank() != 2) {
    why = "weights that are not a matrix";
    return std::nullopt;
  }
  if (a->widened != w->widened || a->widened != out.isInteger(32)) {
    why = "operands widened and dequantized at once";
    return std::nullopt;
  }
  q.integerResult = a->widened;
  q.activations = a->integers;
  q.activationsUnsigned = a->isUnsigned;
  q.activationScale = a->scale;
  q.activationZeroPoint = a->zeroPoint;
  q.activationZeroPointValue = a->zeroPointValue;
  q.k = w->type.getDimSize(0);
  q.n = w->type.getDimSize(1);
  q.m = cast<ShapedType>(op.getInputs()[0].getType()).getDimSize(0);
  q.weightScales = w->scales;
  for (int64_t v : w->values)
    q.weights.push_back(int16_t(v));
  return q;
}

std::optional<QuantizedConvolution>
mlc::target::matchQuantizedConvolution(linalg::Conv2DNchwFchwOp conv,
                                       std::string &why, bool wide) {
  auto input = cast<ShapedType>(conv.getInputs()[0].getType());
  auto output = cast<ShapedType>(conv.getOutputs()[0].getType());
  if (!conv.hasPureTensorSemantics() || !input.hasStaticShape() ||
      !output.hasStaticShape() || output.getDimSize(0) != 1 ||
      !(output.getElementType().isF32() ||
        output.getElementType().isInteger(32))) {
    why = "not a static batch-1 f32 or i32 convolution";
    return std::nullopt;
  }
  QuantizedConvolution q;
  Value x = conv.getInputs()[0];
  if (auto pad = x.getDefiningOp<tensor::PadOp>()) {
    Value padding = pad.getConstantPaddingValue();
    if (!padding ||
        !(matchPattern(padding, m_AnyZeroFloat()) ||
          matchPattern(padding, m_Zero())) ||
        !pad.getResultType().hasStaticShape()) {
      why = "a convolution of a pad that is not zeros";
      return std::nullopt;
    }
    q.pad = pad;
    x = pad.getSource();
  }
  std::optional<Activations> a = getActivations(x, why, wide);
  if (!a)
    return std::nullopt;
  std::optional<Weights> w = getWeights(conv.getInputs()[1], 0, why, wide);
  if (!w)
    return std::nullopt;
  if (a->widened != w->widened ||
      a->widened != output.getElementType().isInteger(32)) {
    why = "operands widened and dequantized at once";
    return std::nullopt;
  }
  q.integerResult = a->widened;
  int64_t f = w->type.getDimSize(0);
  int64_t k = w->type.getNumElements() / f;
  q.activations = a->integers;
  q.activationsUnsigned = a->isUnsigned;
  q.activationScale = a->scale;
  q.activationZeroPoint = a->zeroPoint;
  q.activationZeroPointValue = a->zeroPointValue;
  q.filters = f;
  q.depth = k;
  q.pixels = output.getDimSize(2) * output.getDimSize(3);
  q.weightScales = w->scales;
  q.weights.resize(size_t(k * f));
  for (int64_t row = 0; row < f; ++row)
    for (int64_t col = 0; col < k; ++col)
      q.weights[size_t(col * f + row)] =
          int16_t(w->values[size_t(row * k + col)]);
  return q;
}

Value mlc::target::buildIm2col(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
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

Value mlc::target::buildTransposeBack(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                                   Value product, Value scales,
                                   Value offsets) {
  MLIRContext *ctx = b.getContext();
  auto outputType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t f = outputType.getDimSize(1), oh = outputType.getDimSize(2),
          ow = outputType.getDimSize(3);
  // out[0, f, oh, ow] = product[oh, ow, f].
  Value pixels = tensor::ExpandShapeOp::create(
      b, conv.getLoc(),
      RankedTensorType::get({oh, ow, f},
                            getElementTypeOrSelf(product.getType())),
      product, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  AffineExpr n, fe, y, x;
  bindDims(ctx, n, fe, y, x);
  return buildConvolutionResult(b, conv, pixels,
                                AffineMap::get(4, 0, {y, x, fe}, ctx), scales,
                                offsets);
}

Value mlc::target::buildProductScales(OpBuilder &b, Location loc,
                                      float activationScale,
                                      ArrayRef<float> weightScales) {
  SmallVector<float> scales;
  for (float s : weightScales)
    scales.push_back(activationScale * s);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(scales.size())}, b.getF32Type()),
          ArrayRef<float>(scales)));
}

Value mlc::target::buildSumsResult(OpBuilder &b, Location loc, Value sums,
                                   AffineMap sumsMap,
                                   RankedTensorType resultType,
                                   unsigned channelDim, Value offsets,
                                   Value scales, Value addend) {
  unsigned rank = unsigned(resultType.getRank());
  Type element = resultType.getElementType();
  AffineMap channel = AffineMap::get(rank, 0, b.getAffineDimExpr(channelDim));
  SmallVector<Value> inputs{sums};
  SmallVector<AffineMap> maps{sumsMap};
  for (Value row : {offsets, scales})
    if (row) {
      inputs.push_back(row);
      maps.push_back(channel);
    }
  if (addend) {
    inputs.push_back(addend);
    maps.push_back(b.getMultiDimIdentityMap(rank));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), element);
  return linalg::GenericOp::create(
             b, loc, resultType, inputs, ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value value = args[0];
               unsigned next = 1;
               if (offsets)
                 value = arith::AddIOp::create(nb, nloc, value, args[next++]);
               if (isa<IntegerType>(value.getType()) &&
                   value.getType() != element)
                 value = arith::SIToFPOp::create(nb, nloc, element, value);
               else if (value.getType() != element)
                 value = arith::ExtFOp::create(nb, nloc, element, value);
               if (scales)
                 value = arith::MulFOp::create(nb, nloc, value, args[next++]);
               if (addend)
                 value = isa<FloatType>(element)
                             ? Value(arith::AddFOp::create(nb, nloc, value,
                                                           args[next]))
                             : Value(arith::AddIOp::create(nb, nloc, value,
                                                           args[next]));
               linalg::YieldOp::create(nb, nloc, value);
             })
      .getResult(0);
}

Value mlc::target::buildConvolutionResult(OpBuilder &b,
                                          linalg::Conv2DNchwFchwOp conv,
                                          Value product, AffineMap productMap,
                                          Value scales, Value offsets) {
  auto outputType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Value init = conv.getOutputs()[0];
  return buildSumsResult(b, conv.getLoc(), product, productMap, outputType,
                         /*channelDim=*/1, offsets, scales,
                         isZeroFill(init) ? Value() : init);
}

Value mlc::target::applyReshapes(OpBuilder &b, Location loc, Value value,
                                 ArrayRef<Operation *> reshapes) {
  Type element = getElementTypeOrSelf(value.getType());
  for (Operation *reshape : reshapes) {
    auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
    auto to = RankedTensorType::get(type.getShape(), element);
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
      value = tensor::CollapseShapeOp::create(
          b, loc, to, value, collapse.getReassociationIndices());
    else if (auto general = dyn_cast<tensor::ReshapeOp>(reshape))
      value = tensor::ReshapeOp::create(b, loc, to, value, general.getShape());
    else
      value = tensor::ExpandShapeOp::create(
          b, loc, to, value,
          cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
  }
  return value;
}
