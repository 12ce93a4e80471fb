//===- QuantizedMatmul.cpp - QDQ matmuls as int8 NPU matmuls --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "QuantizedMatmul.h"
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
  Value integers, scale, zeroPoint;
};

std::optional<Dequantize> getDequantize(Value v) {
  auto op = v.getDefiningOp<linalg::GenericOp>();
  if (!op || !op->hasAttr(loop::LoopDialect::DequantizeAttrHelper::getNameStr()) ||
      op.getNumDpsInputs() < 2 || op.getNumDpsInputs() > 3 ||
      op.getNumResults() != 1)
    return std::nullopt;
  Dequantize d{op, op.getDpsInputs()[0], op.getDpsInputs()[1], Value()};
  if (op.getNumDpsInputs() == 3)
    d.zeroPoint = op.getDpsInputs()[2];
  return d;
}

/// The integers of a constant integer tensor, as int64 (unsigned types
/// zero-extended), or nothing.
std::optional<SmallVector<int64_t>> getIntegers(Value value) {
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

/// One value shared by every element of a constant, or nothing.
template <typename T>
std::optional<T> getUniform(ArrayRef<T> values) {
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
} // namespace

std::optional<QuantizedMatmul>
mlc::npu::matchQuantizedMatmul(linalg::MatmulOp op, std::string &why) {
  if (!op.hasPureTensorSemantics() || op.getInputs().size() != 2 ||
      !isZeroFill(op.getOutputs()[0]) ||
      !getElementTypeOrSelf(op.getOutputs()[0].getType()).isF32()) {
    why = "not a float matmul onto zeros";
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
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      break;
    q.reshapes.insert(q.reshapes.begin(), def);
    lhs = def->getOperand(0);
  }
  std::optional<Dequantize> a = getDequantize(lhs);
  std::optional<Dequantize> w = getDequantize(op.getInputs()[1]);
  if (!a || !w) {
    why = "its operands are not both dequantized integers";
    return std::nullopt;
  }
  auto aType = cast<RankedTensorType>(a->integers.getType());
  auto aInt = dyn_cast<IntegerType>(aType.getElementType());
  if (!aInt || aInt.getWidth() != 8 || !aType.hasStaticShape()) {
    why = "activations that are not 8-bit integers";
    return std::nullopt;
  }
  std::optional<SmallVector<float>> aScale = getFloats(a->scale);
  std::optional<SmallVector<int64_t>> aZero =
      a->zeroPoint ? getIntegers(a->zeroPoint)
                   : std::optional<SmallVector<int64_t>>(
                         SmallVector<int64_t>{0});
  std::optional<float> scale =
      aScale ? getUniform<float>(*aScale) : std::nullopt;
  std::optional<int64_t> zero =
      aZero ? getUniform<int64_t>(*aZero) : std::nullopt;
  if (!scale || !zero) {
    why = "activations quantized with other than one constant scale and "
          "zero point";
    return std::nullopt;
  }
  q.activations = a->integers;
  q.activationsUnsigned = aInt.isUnsigned();
  q.activationScale = *scale;
  q.activationZeroPoint = *zero;

  // The weights: constant int8 [K, N], zero point 0, scale per tensor or
  // per column.
  auto wType = cast<RankedTensorType>(w->integers.getType());
  auto wInt = dyn_cast<IntegerType>(wType.getElementType());
  std::optional<SmallVector<int64_t>> weights = getIntegers(w->integers);
  std::optional<SmallVector<float>> wScales = getFloats(w->scale);
  std::optional<SmallVector<int64_t>> wZero =
      w->zeroPoint ? getIntegers(w->zeroPoint)
                   : std::optional<SmallVector<int64_t>>(
                         SmallVector<int64_t>{0});
  if (!wInt || wInt.getWidth() != 8 || wInt.isUnsigned() || !weights ||
      !wScales || !wZero || wType.getRank() != 2 ||
      w->op.getIndexingMapsArray()[0] !=
          AffineMap::getMultiDimIdentityMap(2, op.getContext()) ||
      llvm::any_of(*wZero, [](int64_t z) { return z != 0; })) {
    why = "weights that are not constant int8 values with a zero point of 0";
    return std::nullopt;
  }
  q.k = wType.getDimSize(0);
  q.n = wType.getDimSize(1);
  q.m = cast<ShapedType>(op.getInputs()[0].getType()).getDimSize(0);
  AffineMap scaleMap = w->op.getIndexingMapsArray()[1];
  if (wScales->size() == 1) {
    q.weightScales.assign(size_t(q.n), wScales->front());
  } else if (int64_t(wScales->size()) == q.n && scaleMap.getNumResults() == 1 &&
             scaleMap.getResult(0) == getAffineDimExpr(1, op.getContext())) {
    q.weightScales.assign(wScales->begin(), wScales->end());
  } else {
    why = "weights with a scale per row";
    return std::nullopt;
  }
  for (int64_t v : *weights)
    q.weights.push_back(int8_t(v));
  return q;
}

MatmulShape mlc::npu::getShape(const QuantizedMatmul &q) {
  int64_t shifted = q.activationZeroPoint - (q.activationsUnsigned ? 128 : 0);
  return MatmulShape{q.m,
                     q.n,
                     q.k,
                     ElementType::Int8,
                     ElementType::Int8,
                     ElementType::Int32,
                     /*accumulate=*/shifted != 0};
}

Value mlc::npu::buildQuantizedNPUMatmul(OpBuilder &b, linalg::MatmulOp op,
                                        const QuantizedMatmul &q,
                                        StringRef npu,
                                        const MatmulTiles &tiles) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type(), f32 = b.getF32Type();

  // The activations as int8: uint8 values shifted by -128 (their top bit
  // flipped), then reshaped as the float ones were.
  auto aType = cast<RankedTensorType>(q.activations.getType());
  int64_t rank = aType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, aType.getShape(), i8);
  Value shifted =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{q.activations}, ValueRange{init},
          SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v = castTo(nb, nloc, args[0], i8);
            if (q.activationsUnsigned)
              v = arith::XOrIOp::create(
                  nb, nloc, v,
                  arith::ConstantOp::create(nb, nloc, i8,
                                            nb.getIntegerAttr(i8, -128)));
            linalg::YieldOp::create(nb, nloc, v);
          })
          .getResult(0);
  for (Operation *reshape : q.reshapes) {
    auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
    auto to = RankedTensorType::get(type.getShape(), i8);
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
      shifted = tensor::CollapseShapeOp::create(
          b, loc, to, shifted, collapse.getReassociationIndices());
    else
      shifted = tensor::ExpandShapeOp::create(
          b, loc, to, shifted,
          cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
  }

  auto weightsType = RankedTensorType::get({q.k, q.n}, i8);
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(weightsType, ArrayRef<int8_t>(q.weights)));

  // The zero point's share: -z' * colsum(weights), on every row.
  MatmulShape shape = getShape(q);
  auto accType = RankedTensorType::get({q.m, q.n}, i32);
  Value acc = tensor::EmptyOp::create(b, loc, accType.getShape(), i32);
  if (shape.accumulate) {
    int64_t zero = q.activationZeroPoint - (q.activationsUnsigned ? 128 : 0);
    SmallVector<int32_t> share(size_t(q.n), 0);
    for (int64_t k = 0; k < q.k; ++k)
      for (int64_t n = 0; n < q.n; ++n)
        share[size_t(n)] -= int32_t(zero * q.weights[size_t(k * q.n + n)]);
    Value row = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({q.n}, i32),
                               ArrayRef<int32_t>(share)));
    AffineExpr m, n;
    bindDims(ctx, m, n);
    acc = linalg::GenericOp::create(
              b, loc, accType, ValueRange{row}, ValueRange{acc},
              ArrayRef<AffineMap>{AffineMap::get(2, 0, {n}, ctx),
                                  b.getMultiDimIdentityMap(2)},
              SmallVector<utils::IteratorType>(2,
                                               utils::IteratorType::parallel),
              [](OpBuilder &nb, Location nloc, ValueRange args) {
                linalg::YieldOp::create(nb, nloc, args[0]);
              })
              .getResult(0);
  }
  Value product =
      npu::MatmulOp::create(b, loc, TypeRange{accType}, shifted, weights, acc,
                            npu, tiles.rows, tiles.cols, tiles.buffers,
                            shape.accumulate)
          .getResult()[0];

  // Back to f32: the exact sums times sa * sw[n].
  SmallVector<float> scales;
  for (float s : q.weightScales)
    scales.push_back(q.activationScale * s);
  Value scaleRow = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({q.n}, f32),
                             ArrayRef<float>(scales)));
  AffineExpr m, n;
  bindDims(ctx, m, n);
  Value out = tensor::EmptyOp::create(b, loc, {q.m, q.n}, f32);
  return linalg::GenericOp::create(
             b, loc, out.getType(), ValueRange{product, scaleRow},
             ValueRange{out},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(2),
                                 AffineMap::get(2, 0, {n}, ctx),
                                 b.getMultiDimIdentityMap(2)},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = arith::SIToFPOp::create(nb, nloc, f32, args[0]);
               linalg::YieldOp::create(
                   nb, nloc, arith::MulFOp::create(nb, nloc, v, args[1])
                                 .getResult());
             })
      .getResult(0);
}
