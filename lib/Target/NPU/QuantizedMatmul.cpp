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
using mlc::target::applyReshapes;
using mlc::target::buildProductScales;
using mlc::target::buildSumsResult;

int64_t mlc::npu::getShiftedZero(bool isUnsigned, int64_t zero) {
  return zero - (isUnsigned ? 128 : 0);
}

Value mlc::npu::shiftToInt8(OpBuilder &b, Location loc, Value integers,
                            bool isUnsigned) {
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

namespace {
/// The zero point's share of each column's sums, -zero * colsum(weights[k,
/// n]), as an int32 constant [n] (the weights row-major [k, n]); null when
/// `zero` is 0.
Value buildZeroPointShare(OpBuilder &b, Location loc, int64_t n, int64_t k,
                          ArrayRef<int16_t> weights, int64_t zero) {
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
  // The NPU's operands match without wide weights: int8 values.
  SmallVector<int8_t> narrow(q.weights.begin(), q.weights.end());
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({k, n}, i8),
                             ArrayRef<int8_t>(narrow)));
  Value empty = tensor::EmptyOp::create(b, loc, {m, n}, i32);
  return npu::MatmulOp::create(b, loc, TypeRange{empty.getType()}, lhs,
                               weights, empty, Value(), npu, tiles.rows,
                               tiles.cols, tiles.buffers, tiles.depth,
                               /*accumulate=*/false)
      .getResult()[0];
}

/// A matmul's activations as int8, reshaped as the float ones were.
Value buildIntegerRows(OpBuilder &b, Location loc, const QuantizedMatmul &q) {
  Value shifted = shiftToInt8(b, loc, q.activations, q.activationsUnsigned);
  return applyReshapes(b, loc, shifted, q.reshapes);
}

/// The int8 product [m, n] of `lhs` ([m, k] int8) and `q`'s weights,
/// requantized on the NPU as `shape` says, from each column's bias and
/// scale.
Value buildRequantizedProduct(OpBuilder &b, Location loc, Value lhs,
                              const QuantizedOperands &q, int64_t m, int64_t n,
                              int64_t k, const RequantizedProduct &p,
                              StringRef npu, const MatmulTiles &tiles) {
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  // The NPU's operands match without wide weights: int8 values.
  SmallVector<int8_t> narrow(q.weights.begin(), q.weights.end());
  Value weights = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({k, n}, i8),
                             ArrayRef<int8_t>(narrow)));
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

} // namespace

Value mlc::npu::buildQuantizedResult(OpBuilder &b, Location loc, Value product,
                                     AffineMap map,
                                     RankedTensorType resultType) {
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
  Value shifted = buildIntegerRows(b, loc, q);
  Value product =
      buildIntegerProduct(b, loc, shifted, q, q.m, q.n, q.k, npu, tiles);
  Value share = buildZeroPointShare(
      b, loc, q.n, q.k, q.weights,
      getShiftedZero(q.activationsUnsigned, q.activationZeroPoint));
  // MatMulInteger's int32 result is the sums themselves (with the zero
  // point's share); a dequantized product's is them times sa * sw[n].
  Value scales =
      q.integerResult
          ? Value()
          : buildProductScales(b, loc, q.activationScale, q.weightScales);
  if (!share && !scales)
    return product;
  Type element = scales ? Type(b.getF32Type()) : Type(b.getI32Type());
  return buildSumsResult(b, loc, product, b.getMultiDimIdentityMap(2),
                         RankedTensorType::get({q.m, q.n}, element),
                         /*channelDim=*/1, share, scales, /*addend=*/nullptr);
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
      q.integerResult
          ? Value()
          : buildProductScales(b, loc, q.activationScale, q.weightScales),
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
