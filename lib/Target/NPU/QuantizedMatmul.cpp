//===- QuantizedMatmul.cpp - QDQ matmuls as int8 NPU matmuls --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "QuantizedMatmul.h"

#include <cstring>
#include "ConvolutionAsMatmul.h"

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {
/// A DequantizeLinear as GraphToLoop lowers it: a generic marked
/// mlc_loop.dequantize reading (integers, scale[, zero point]).
struct Dequantize {
  linalg::GenericOp op;
  /// The scale is null for a widening (a scale of one, an i32 result).
  Value integers, scale, zeroPoint;
  /// The scale's indexing map.
  AffineMap scaleMap;
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
  Dequantize d{op, op.getDpsInputs()[0], Value(), Value(), AffineMap()};
  for (unsigned i = 1; i < op.getNumDpsInputs(); ++i) {
    Value input = op.getDpsInputs()[i];
    if (isa<FloatType>(getElementTypeOrSelf(input.getType())) && !d.scale) {
      d.scale = input;
      d.scaleMap = op.getIndexingMapsArray()[i];
    } else if (!d.zeroPoint) {
      d.zeroPoint = input;
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

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

/// Activations: 8-bit integers dequantized with one constant scale and
/// zero point.
struct Activations {
  Value integers;
  bool isUnsigned = false;
  float scale = 1;
  int64_t zeroPoint = 0;
  /// Widened, not dequantized: the consumer works on int32.
  bool widened = false;
};

std::optional<Activations> getActivations(Value v, std::string &why) {
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
  if (!scale || !zero) {
    why = "activations quantized with other than one constant scale and "
          "zero point";
    return std::nullopt;
  }
  return Activations{a->integers, integer.isUnsigned(), *scale, *zero,
                     !a->scale};
}

/// The zero point once uint8 values are shifted into int8.
int64_t getShiftedZero(bool isUnsigned, int64_t zero) {
  return zero - (isUnsigned ? 128 : 0);
}

/// The activations as int8: uint8 values shifted by -128 (their top bit
/// flipped).
Value shiftToInt8(OpBuilder &b, Location loc, Value integers, bool isUnsigned) {
  Type i8 = b.getIntegerType(8);
  auto type = cast<RankedTensorType>(integers.getType());
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), i8);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{integers}, ValueRange{init},
             SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = castTo(nb, nloc, args[0], i8);
               if (isUnsigned)
                 v = arith::XOrIOp::create(
                     nb, nloc, v,
                     arith::ConstantOp::create(nb, nloc, i8,
                                               nb.getIntegerAttr(i8, -128)));
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// Weights: constant int8 with a zero point of 0, dequantized with one
/// scale or one per index `axis`; their values in their own layout.
struct Weights {
  SmallVector<int64_t> values;
  SmallVector<float> scales;
  RankedTensorType type;
  /// Widened, not dequantized.
  bool widened = false;
};

std::optional<Weights> getWeights(Value v, unsigned axis, std::string &why) {
  std::optional<Dequantize> w = getDequantize(v);
  why = "weights that are not constant int8 values with a zero point of 0";
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
  if (!integer || integer.getWidth() != 8 || integer.isUnsigned() || !values ||
      !scales || !zeros || axis >= type.getRank() ||
      w->op.getIndexingMapsArray()[0] !=
          AffineMap::getMultiDimIdentityMap(type.getRank(), ctx) ||
      llvm::any_of(*zeros, [](int64_t z) { return z != 0; }))
    return std::nullopt;
  int64_t count = type.getDimSize(axis);
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
std::optional<Weights> getMatmulWeights(Value v, std::string &why) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return getWeights(v, 1, why);
  if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0}) {
    why = "weights transposed other than [1, 0]";
    return std::nullopt;
  }
  std::optional<Weights> w = getWeights(transpose.getInput(), 0, why);
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

/// The zero point's share of each column's sums, -zero * colsum(weights[k,
/// n]), as an int32 constant [n] (the weights row-major [k, n]); null when
/// `zero` is 0.
Value buildZeroPointShare(OpBuilder &b, Location loc, int64_t n, int64_t k,
                          ArrayRef<int8_t> weights, int64_t zero) {
  if (zero == 0)
    return nullptr;
  SmallVector<int32_t> share(size_t(n), 0);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      share[size_t(c)] -= int32_t(zero * weights[size_t(r * n + c)]);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({n}, b.getI32Type()),
                             ArrayRef<int32_t>(share)));
}

/// The int32 sums of `lhs` ([m, k] int8) times `q`'s weights ([k, n]) on
/// the NPU in `tiles` (without the zero point's share, which the CPU adds
/// as it scales them back: the NPU loads no init).
Value buildIntegerProduct(OpBuilder &b, Location loc, Value lhs,
                          const QuantizedOperands &q, int64_t m, int64_t n,
                          int64_t k, StringRef npu, const MatmulTiles &tiles) {
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({k, n}, i8),
                             ArrayRef<int8_t>(q.weights)));
  Value empty = tensor::EmptyOp::create(b, loc, {m, n}, i32);
  return npu::MatmulOp::create(b, loc, TypeRange{empty.getType()}, lhs,
                               weights, empty, Value(), npu, tiles.rows,
                               tiles.cols, tiles.buffers, tiles.depth,
                               /*accumulate=*/false)
      .getResult()[0];
}

/// A matmul's activations as int8, reshaped as the float ones were.
Value buildIntegerRows(OpBuilder &b, Location loc, const QuantizedMatmul &q) {
  Type i8 = b.getIntegerType(8);
  Value shifted = shiftToInt8(b, loc, q.activations, q.activationsUnsigned);
  for (Operation *reshape : q.reshapes) {
    auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
    auto to = RankedTensorType::get(type.getShape(), i8);
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
      shifted = tensor::CollapseShapeOp::create(
          b, loc, to, shifted, collapse.getReassociationIndices());
    else if (auto general = dyn_cast<tensor::ReshapeOp>(reshape))
      shifted =
          tensor::ReshapeOp::create(b, loc, to, shifted, general.getShape());
    else
      shifted = tensor::ExpandShapeOp::create(
          b, loc, to, shifted,
          cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
  }
  return shifted;
}

/// The int8 product [m, n] of `lhs` ([m, k] int8) and `q`'s weights,
/// requantized on the NPU as `shape` says, from each column's bias and
/// scale.
Value buildRequantizedProduct(OpBuilder &b, Location loc, Value lhs,
                              const QuantizedOperands &q, int64_t m, int64_t n,
                              int64_t k, const RequantizedProduct &p,
                              StringRef npu, const MatmulTiles &tiles) {
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({k, n}, i8),
                             ArrayRef<int8_t>(q.weights)));
  // Each column's int32 bias and the bits of its f32 scale.
  SmallVector<int32_t> table;
  for (int64_t c = 0; c < n; ++c) {
    int32_t bits;
    std::memcpy(&bits, &p.scales[size_t(c)], sizeof(bits));
    table.append({p.biasRow[size_t(c)], bits});
  }
  Value columns = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({n, 2}, i32),
                             ArrayRef<int32_t>(table)));
  Value empty = tensor::EmptyOp::create(b, loc, {m, n}, i8);
  auto op = npu::MatmulOp::create(
      b, loc, TypeRange{empty.getType()}, lhs, weights, empty, columns, npu,
      tiles.rows, tiles.cols, tiles.buffers, tiles.depth,
      /*accumulate=*/false);
  op.setRelu(p.shape.relu);
  op.setZeroPoint(p.shape.zeroPoint);
  return op.getResult()[0];
}

/// `product` (int8, read through `map`) as `resultType` (uint8 or int8, a
/// QuantizeLinear's): uint8 values shifted back (their top bit flipped).
Value buildQuantizedResult(OpBuilder &b, Location loc, Value product,
                           AffineMap map, RankedTensorType resultType) {
  Type i8 = b.getIntegerType(8);
  bool isUnsigned = resultType.getElementType().isUnsignedInteger();
  int64_t rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{product}, ValueRange{init},
             ArrayRef<AffineMap>{map, b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = args[0];
               if (isUnsigned)
                 v = arith::XOrIOp::create(
                     nb, nloc, v,
                     arith::ConstantOp::create(nb, nloc, i8,
                                               nb.getIntegerAttr(i8, -128)));
               linalg::YieldOp::create(
                   nb, nloc, castTo(nb, nloc, v, resultType.getElementType()));
             })
      .getResult(0);
}

/// sa * sw[n] as an f32 constant [n].
Value buildScales(OpBuilder &b, Location loc, float activationScale,
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
} // namespace

std::optional<SmallVector<int64_t>> mlc::npu::getIntegers(Value value) {
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
mlc::npu::matchQuantizedMatmul(linalg::MatmulOp op, std::string &why) {
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
  std::optional<Activations> a = getActivations(lhs, why);
  if (!a)
    return std::nullopt;
  std::optional<Weights> w = getMatmulWeights(op.getInputs()[1], why);
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
  q.k = w->type.getDimSize(0);
  q.n = w->type.getDimSize(1);
  q.m = cast<ShapedType>(op.getInputs()[0].getType()).getDimSize(0);
  q.weightScales = w->scales;
  for (int64_t v : w->values)
    q.weights.push_back(int8_t(v));
  return q;
}

MatmulShape mlc::npu::getShape(const QuantizedMatmul &q) {
  return MatmulShape{q.m,
                     q.n,
                     q.k,
                     ElementType::Int8,
                     ElementType::Int8,
                     ElementType::Int32,
                     /*accumulate=*/false};
}

Value mlc::npu::buildQuantizedNPUMatmul(OpBuilder &b, linalg::MatmulOp op,
                                        const QuantizedMatmul &q, StringRef npu,
                                        const MatmulTiles &tiles) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  Value shifted = buildIntegerRows(b, loc, q);
  Value product =
      buildIntegerProduct(b, loc, shifted, q, q.m, q.n, q.k, npu, tiles);
  Value share = buildZeroPointShare(
      b, loc, q.n, q.k, q.weights,
      getShiftedZero(q.activationsUnsigned, q.activationZeroPoint));
  // MatMulInteger's int32 result is the sums themselves (with the zero
  // point's share); a dequantized product's is them times sa * sw[n].
  Value scales = q.integerResult
                     ? Value()
                     : buildScales(b, loc, q.activationScale, q.weightScales);
  if (!share && !scales)
    return product;
  AffineExpr m, n;
  bindDims(ctx, m, n);
  SmallVector<Value> inputs{product};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(2)};
  for (Value row : {share, scales})
    if (row) {
      inputs.push_back(row);
      maps.push_back(AffineMap::get(2, 0, {n}, ctx));
    }
  maps.push_back(b.getMultiDimIdentityMap(2));
  Type element = scales ? Type(f32) : Type(b.getI32Type());
  Value out = tensor::EmptyOp::create(b, loc, {q.m, q.n}, element);
  return linalg::GenericOp::create(
             b, loc, out.getType(), inputs, ValueRange{out}, maps,
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = args[0];
               unsigned next = 1;
               if (share)
                 v = arith::AddIOp::create(nb, nloc, v, args[next++]);
               if (scales)
                 v = arith::MulFOp::create(
                     nb, nloc, arith::SIToFPOp::create(nb, nloc, f32, v),
                     args[next]);
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

std::optional<QuantizedConvolution>
mlc::npu::matchQuantizedConvolution(linalg::Conv2DNchwFchwOp conv,
                                    std::string &why) {
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
  std::optional<Activations> a = getActivations(x, why);
  if (!a)
    return std::nullopt;
  std::optional<Weights> w = getWeights(conv.getInputs()[1], 0, why);
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
  q.filters = f;
  q.depth = k;
  q.pixels = output.getDimSize(2) * output.getDimSize(3);
  q.weightScales = w->scales;
  q.weights.resize(size_t(k * f));
  for (int64_t row = 0; row < f; ++row)
    for (int64_t col = 0; col < k; ++col)
      q.weights[size_t(col * f + row)] =
          int8_t(w->values[size_t(row * k + col)]);
  return q;
}

MatmulShape mlc::npu::getShape(const QuantizedConvolution &q) {
  return MatmulShape{
      q.pixels,
      q.filters,
      q.depth,
      ElementType::Int8,
      ElementType::Int8,
      ElementType::Int32,
      /*accumulate=*/false};
}

namespace {
/// The int8 im2col matrix of `conv` for `q`: the activations shifted to
/// int8 and padded with the shifted zero point `zero` (0.0's integer).
Value buildIntegerIm2col(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                         const QuantizedConvolution &q, int64_t zero) {
  Location loc = conv.getLoc();
  Type i8 = b.getIntegerType(8);
  Value shifted = shiftToInt8(b, loc, q.activations, q.activationsUnsigned);
  if (tensor::PadOp pad = q.pad) {
    auto type = RankedTensorType::get(pad.getResultType().getShape(), i8);
    Value value =
        arith::ConstantOp::create(b, loc, i8, b.getIntegerAttr(i8, zero));
    shifted = tensor::PadOp::create(b, loc, type, shifted, pad.getMixedLowPad(),
                                    pad.getMixedHighPad(), value);
  }
  return buildIm2col(b, conv, shifted, i8);
}
} // namespace

Value mlc::npu::buildQuantizedNPUConvolution(OpBuilder &b,
                                             linalg::Conv2DNchwFchwOp conv,
                                             const QuantizedConvolution &q,
                                             StringRef npu,
                                             const MatmulTiles &tiles) {
  Location loc = conv.getLoc();
  int64_t zero = getShiftedZero(q.activationsUnsigned, q.activationZeroPoint);
  Value matrix = buildIntegerIm2col(b, conv, q, zero);
  Value product = buildIntegerProduct(b, loc, matrix, q, q.pixels, q.filters,
                                      q.depth, npu, tiles);
  return buildTransposeBack(
      b, conv, product,
      q.integerResult ? Value()
                      : buildScales(b, loc, q.activationScale, q.weightScales),
      buildZeroPointShare(b, loc, q.filters, q.depth, q.weights, zero));
}

Value mlc::npu::buildRequantizedNPUConvolution(
    OpBuilder &b, linalg::Conv2DNchwFchwOp conv, const QuantizedConvolution &q,
    const RequantizedProduct &p, StringRef npu, const MatmulTiles &tiles) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  int64_t zero = getShiftedZero(q.activationsUnsigned, q.activationZeroPoint);
  Value matrix = buildIntegerIm2col(b, conv, q, zero);
  Value product =
      buildRequantizedProduct(b, loc, matrix, q, q.pixels, q.filters, q.depth,
                              p, npu, tiles);
  // out[0, f, y, x] = product[y, x, f].
  int64_t oh = p.resultType.getDimSize(2), ow = p.resultType.getDimSize(3);
  Value pixels = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({oh, ow, q.filters}, b.getIntegerType(8)),
      product, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  AffineExpr d0, fe, y, x;
  bindDims(ctx, d0, fe, y, x);
  return buildQuantizedResult(b, loc, pixels,
                              AffineMap::get(4, 0, {y, x, fe}, ctx),
                              p.resultType);
}

Value mlc::npu::buildRequantizedNPUMatmul(OpBuilder &b, linalg::MatmulOp op,
                                          const QuantizedMatmul &q,
                                          const RequantizedProduct &p,
                                          StringRef npu,
                                          const MatmulTiles &tiles) {
  Location loc = op.getLoc();
  Value product = buildRequantizedProduct(b, loc, buildIntegerRows(b, loc, q),
                                          q, q.m, q.n, q.k, p, npu, tiles);
  return buildQuantizedResult(b, loc, product, b.getMultiDimIdentityMap(2),
                              p.resultType);
}
