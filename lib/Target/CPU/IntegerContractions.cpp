//===- IntegerContractions.cpp - Quantized contractions in integers -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The CPU's integer path for quantized models: a matmul or convolution of
// dequantized integers (QuantizedOperands.h) becomes an exact contraction
// of i16 pairs with i32 sums,
//
//   sums[m, n1, n0] += a[m, k2, p] * w[n1, k2, n0, p]   (p = 0, 1)
//
// where `a` holds the activations minus their zero point and `w` the
// weights packed in panels of pairs; a convolution's filter pairs are the
// rows instead, times its im2col matrix with channels in pairs,
//
//   sums[f, pixel] += w[f, k2, p] * col[k2, pixel, p],
//
// except on small maps (hasPixelRows). The register level
// (VectorizeRegisterTiles.cpp) computes each k2 step of a row as one
// multiply-add of pairs per vector of columns: x86's vpmaddwd multiplies
// sixteen i16 pairs and adds each pair into an i32 lane, twice the
// multiply-adds of an f32 FMA per instruction, on operands half the size.
//
//===----------------------------------------------------------------------===//

#include "../QuantizedOperands.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/CPU/TargetInfo.h"
#include "mlc/Dialect/Loop/Transforms/Im2col.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

namespace mlc::target {
#define GEN_PASS_DEF_CPUINTEGERCONTRACTIONS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
/// The activations as i16 with their zero point subtracted: exact, since
/// both are 8-bit. A zero point known at run time only (DynamicQuantize-
/// Linear's) is read once, as a scalar, before the loops.
Value buildWidened(OpBuilder &b, Location loc, const QuantizedOperands &q) {
  Type i8 = b.getIntegerType(8), i16 = b.getIntegerType(16);
  auto type = cast<RankedTensorType>(q.activations.getType());
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), i16);
  Value runTimeZero;
  if (Value zp = q.activationZeroPointValue) {
    auto zpType = cast<RankedTensorType>(zp.getType());
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value at = tensor::ExtractOp::create(
        b, loc, zp, SmallVector<Value>(zpType.getRank(), c0));
    at = castTo(b, loc, at, i8);
    runTimeZero = q.activationsUnsigned
                      ? Value(arith::ExtUIOp::create(b, loc, i16, at))
                      : Value(arith::ExtSIOp::create(b, loc, i16, at));
  }
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{q.activations},
             ValueRange{init},
             SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = castTo(nb, nloc, args[0], i8);
               v = q.activationsUnsigned
                       ? Value(arith::ExtUIOp::create(nb, nloc, i16, v))
                       : Value(arith::ExtSIOp::create(nb, nloc, i16, v));
               if (runTimeZero)
                 v = arith::SubIOp::create(nb, nloc, v, runTimeZero);
               else if (q.activationZeroPoint)
                 v = arith::SubIOp::create(
                     nb, nloc, v,
                     arith::ConstantOp::create(
                         nb, nloc, i16,
                         nb.getIntegerAttr(i16, q.activationZeroPoint)));
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// The body of a contraction of i16 pairs: sum + i32(x) * i32(y).
void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Type i32 = b.getI32Type();
  Value x = arith::ExtSIOp::create(b, loc, i32, args[0]);
  Value y = arith::ExtSIOp::create(b, loc, i32, args[1]);
  Value product = arith::MulIOp::create(b, loc, x, y);
  Value sum = arith::AddIOp::create(b, loc, args[2], product);
  linalg::YieldOp::create(b, loc, sum);
}

/// The weights [k, n] (row-major, minus their zero points) as i16
/// [padded / panel, k / 2, panel, 2], columns from n to `padded` zero.
Value buildPackedWeights(OpBuilder &b, Location loc, ArrayRef<int16_t> weights,
                         int64_t k, int64_t n, int64_t padded, int64_t panel) {
  SmallVector<int16_t> packed(size_t(k * padded));
  size_t next = 0;
  for (int64_t n1 = 0; n1 < padded / panel; ++n1)
    for (int64_t k2 = 0; k2 < k / 2; ++k2)
      for (int64_t n0 = 0; n0 < panel; ++n0)
        for (int64_t p = 0; p < 2; ++p) {
          int64_t col = n1 * panel + n0;
          packed[next++] =
              col < n ? weights[size_t((2 * k2 + p) * n + col)] : 0;
        }
  auto type = RankedTensorType::get({padded / panel, k / 2, panel, 2},
                                    b.getIntegerType(16));
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<int16_t>(packed)));
}

/// The i32 sums [m, n] of `rows` ([m, k] i16) times the packed weights:
/// a contraction over (m, n1, n0, k2, p) that reads the rows as pairs.
Value buildPairContraction(OpBuilder &b, Location loc, Value rows,
                           Value weights, int64_t m, int64_t n, int64_t k,
                           int64_t panel) {
  MLIRContext *ctx = b.getContext();
  Type i16 = b.getIntegerType(16), i32 = b.getI32Type();
  Value pairs = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({m, k / 2, 2}, i16), rows,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value zero = arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value empty = tensor::EmptyOp::create(b, loc, {m, n / panel, panel}, i32);
  Value init =
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
          .getResult(0);
  AffineExpr mm, n1, n0, k2, p;
  bindDims(ctx, mm, n1, n0, k2, p);
  SmallVector<AffineMap> maps{AffineMap::get(5, 0, {mm, k2, p}, ctx),
                              AffineMap::get(5, 0, {n1, k2, n0, p}, ctx),
                              AffineMap::get(5, 0, {mm, n1, n0}, ctx)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators{
      IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
      IteratorType::reduction, IteratorType::reduction};
  Value sums =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{pairs, weights}, ValueRange{init},
          maps, iterators,
          multiplyAccumulate)
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({m, n}, i32), sums,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
}

/// sa * sw[n] for each column, or null for an int32 result.
Value buildScales(OpBuilder &b, Location loc, const QuantizedOperands &q) {
  if (q.integerResult)
    return nullptr;
  return buildProductScales(b, loc, q.activationScale, q.weightScales);
}

/// The matmul's result from its sums: times the scales, as f32.
Value buildMatmulResult(OpBuilder &b, Location loc, Value sums, Value scales,
                        int64_t m, int64_t n) {
  if (!scales)
    return sums;
  return buildSumsResult(b, loc, sums, b.getMultiDimIdentityMap(2),
                         RankedTensorType::get({m, n}, b.getF32Type()),
                         /*channelDim=*/1, /*offsets=*/nullptr, scales,
                         /*addend=*/nullptr);
}

/// Whether sums over `depth` products of a widened 8-bit activation (at
/// most 255 away from its zero point) and a weight (at most 128 from zero
/// for int8 weights, 255 for uint8 ones or with a zero point) always fit in
/// i32: up to a depth of 65793, or 33025. Deeper ones stay in floats, where
/// the i32 sums could wrap.
bool sumsFit(int64_t depth, ArrayRef<int16_t> weights) {
  int64_t largest = 128;
  for (int16_t w : weights)
    largest = std::max<int64_t>(largest, std::abs(int64_t(w)));
  return depth <= std::numeric_limits<int32_t>::max() / (255 * largest);
}

/// The first `n` columns of `sums` [m, padded].
Value sliceColumns(OpBuilder &b, Location loc, Value sums, int64_t n) {
  auto type = cast<RankedTensorType>(sums.getType());
  int64_t m = type.getDimSize(0);
  if (type.getDimSize(1) == n)
    return sums;
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({m, n}, type.getElementType()), sums,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// Whether a convolution's pixels are the rows of its product (its
/// weights packed in panels, a right-hand side streamed once per block of
/// rows, the product transposed back), rather than its columns: on the
/// small maps where the CPU computes f32 convolutions as matmuls too
/// (TargetInfo.h), whose few pixels would make the filter stream past once
/// per vector of columns. ResNet-18's 3x3 512 -> 512 on 7x7, one thread,
/// Zen 3: 2.3 ms with pixel rows, 4.0 ms with pixel columns; on 56x56 the
/// two are within noise and pixel columns save the transposes.
bool hasPixelRows(linalg::Conv2DNchwFchwOp conv,
                  const QuantizedConvolution &q) {
  if (q.depth % 2 != 0)
    return false;
  if (loop::isPointwiseConvolution(conv) && q.pixels <= kMaxPointwisePixels)
    return true;
  return q.pixels <= kMaxPixels && q.depth >= kMinDepth;
}

/// The widened activations of `conv` as its im2col matrix [pixels, depth]
/// (padded with zeros, the zero point's value).
Value buildPixelRows(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                     const QuantizedConvolution &q) {
  Location loc = conv.getLoc();
  Type i16 = b.getIntegerType(16);
  Value widened = buildWidened(b, loc, q);
  if (tensor::PadOp pad = q.pad) {
    Value zero =
        arith::ConstantOp::create(b, loc, i16, b.getIntegerAttr(i16, 0));
    widened = tensor::PadOp::create(
        b, loc, RankedTensorType::get(pad.getResultType().getShape(), i16),
        widened, pad.getMixedLowPad(), pad.getMixedHighPad(), zero);
  }
  return buildIm2col(b, conv, widened, i16);
}

/// A convolution's activations as the right-hand side of pairs
/// `[KH * KW * C2, OH * OW, 2]` (C2 = C / 2 rounded up): col[(kh, kw, c2),
/// (y, x), j] = x[2 c2 + j, y sy + kh dy, x sx + kw dx], widened and
/// padded with zeros (the zero point's value, and a zero channel when C is
/// odd). Pixels are the columns, so the product is NCHW as it stands.
Value buildPairColumns(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                       const QuantizedConvolution &q) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i16 = b.getIntegerType(16);
  auto filterType = cast<ShapedType>(conv.getInputs()[1].getType());
  auto outputType = cast<ShapedType>(conv.getOutputs()[0].getType());
  int64_t c = filterType.getDimSize(1), kh = filterType.getDimSize(2),
          kw = filterType.getDimSize(3);
  int64_t oh = outputType.getDimSize(2), ow = outputType.getDimSize(3);
  int64_t c2 = (c + 1) / 2;
  Value widened = buildWidened(b, loc, q);
  SmallVector<int64_t> low(4, 0), high(4, 0);
  if (tensor::PadOp pad = q.pad) {
    low.assign(pad.getStaticLow().begin(), pad.getStaticLow().end());
    high.assign(pad.getStaticHigh().begin(), pad.getStaticHigh().end());
  }
  high[1] += 2 * c2 - c;
  if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v != 0; })) {
    auto type = cast<RankedTensorType>(widened.getType());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < 4; ++d)
      shape.push_back(type.getDimSize(d) + low[d] + high[d]);
    Value zero =
        arith::ConstantOp::create(b, loc, i16, b.getIntegerAttr(i16, 0));
    auto asAttrs = [&](ArrayRef<int64_t> sizes) {
      return llvm::map_to_vector(sizes, [&](int64_t s) -> OpFoldResult {
        return b.getIndexAttr(s);
      });
    };
    widened = tensor::PadOp::create(b, loc, RankedTensorType::get(shape, i16),
                                    widened, asAttrs(low), asAttrs(high), zero);
  }
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  // Loops (kh, kw, c2, y, x, j).
  AffineExpr dkh, dkw, dc2, dy, dx, dj;
  bindDims(ctx, dkh, dkw, dc2, dy, dx, dj);
  AffineMap read = AffineMap::get(
      6, 0,
      {getAffineConstantExpr(0, ctx), dc2 * 2 + dj,
       dy * strides[0] + dkh * dilations[0],
       dx * strides[1] + dkw * dilations[1]},
      ctx);
  Value init = tensor::EmptyOp::create(b, loc, {kh, kw, c2, oh, ow, 2}, i16);
  Value cols =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{widened}, ValueRange{init},
          ArrayRef<AffineMap>{read, b.getMultiDimIdentityMap(6)},
          SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(nb, nloc, args[0]);
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({kh * kw * c2, oh * ow, 2}, i16), cols,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4}, {5}});
}

/// A convolution's weights as the left-hand side of pairs [F, KH * KW *
/// C2, 2], in the order of buildPairColumns' rows (zeros for the channel
/// that pads an odd C).
Value buildPairFilter(OpBuilder &b, linalg::Conv2DNchwFchwOp conv,
                      const QuantizedConvolution &q) {
  auto filterType = cast<ShapedType>(conv.getInputs()[1].getType());
  int64_t f = filterType.getDimSize(0), c = filterType.getDimSize(1),
          kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  int64_t c2 = (c + 1) / 2;
  SmallVector<int16_t> pairs;
  pairs.reserve(size_t(f * kh * kw * c2 * 2));
  // q.weights is [C * KH * KW, F], rows in (c, kh, kw) order.
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        for (int64_t ci = 0; ci < 2 * c2; ++ci)
          pairs.push_back(
              ci < c ? q.weights[size_t(((ci * kh + y) * kw + x) * f + fi)]
                     : 0);
  auto type = RankedTensorType::get({f, kh * kw * c2, 2}, b.getIntegerType(16));
  return arith::ConstantOp::create(
      b, conv.getLoc(), DenseElementsAttr::get(type, ArrayRef<int16_t>(pairs)));
}

/// The i32 sums [F, P] of the filter pairs [F, K2, 2] times the column
/// pairs [K2, P, 2]: a contraction over (f, p, k2, j).
Value buildFilterRowsContraction(OpBuilder &b, Location loc, Value filter,
                                 Value columns) {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  int64_t f = cast<ShapedType>(filter.getType()).getDimSize(0);
  int64_t p = cast<ShapedType>(columns.getType()).getDimSize(1);
  Value zero = arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value empty = tensor::EmptyOp::create(b, loc, {f, p}, i32);
  Value init =
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
          .getResult(0);
  AffineExpr df, dp, dk, dj;
  bindDims(ctx, df, dp, dk, dj);
  using utils::IteratorType;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{filter, columns},
             ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::get(4, 0, {df, dk, dj}, ctx),
                                 AffineMap::get(4, 0, {dk, dp, dj}, ctx),
                                 AffineMap::get(4, 0, {df, dp}, ctx)},
             SmallVector<IteratorType>{IteratorType::parallel,
                                       IteratorType::parallel,
                                       IteratorType::reduction,
                                       IteratorType::reduction},
             multiplyAccumulate)
      .getResult(0);
}

struct CPUIntegerContractionsPass
    : mlc::target::impl::CPUIntegerContractionsBase<
          CPUIntegerContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::Conv2DNchwFchwOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      std::string why;
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        std::optional<QuantizedMatmul> q =
            matchQuantizedMatmul(matmul, why, /*wide=*/true);
        // Pairs need an even depth; columns are padded to whole panels
        // (a 1000-class classifier computes 1008).
        if (!q || panel <= 0 || q->k % 2 != 0 || !sumsFit(q->k, q->weights))
          continue;
        int64_t padded = llvm::divideCeil(q->n, panel) * panel;
        Value rows = applyReshapes(b, loc, buildWidened(b, loc, *q), q->reshapes);
        Value weights = buildPackedWeights(b, loc, q->weights, q->k, q->n,
                                           padded, panel);
        Value sums = buildPairContraction(b, loc, rows, weights, q->m, padded,
                                          q->k, panel);
        sums = sliceColumns(b, loc, sums, q->n);
        op->getResult(0).replaceAllUsesWith(buildMatmulResult(
            b, loc, sums, buildScales(b, loc, *q), q->m, q->n));
        op->erase();
        continue;
      }
      auto conv = cast<linalg::Conv2DNchwFchwOp>(op);
      std::optional<QuantizedConvolution> q =
          matchQuantizedConvolution(conv, why, /*wide=*/true);
      if (!q || panel <= 0 || !sumsFit(q->depth, q->weights))
        continue;
      Value scales = buildScales(b, loc, *q);
      if (hasPixelRows(conv, *q)) {
        int64_t padded = llvm::divideCeil(q->filters, panel) * panel;
        Value sums = buildPairContraction(
            b, loc, buildPixelRows(b, conv, *q),
            buildPackedWeights(b, loc, q->weights, q->depth, q->filters,
                               padded, panel),
            q->pixels, padded, q->depth, panel);
        op->getResult(0).replaceAllUsesWith(buildTransposeBack(
            b, conv, sliceColumns(b, loc, sums, q->filters), scales));
      } else {
        Value sums = buildFilterRowsContraction(
            b, loc, buildPairFilter(b, conv, *q),
            buildPairColumns(b, conv, *q));
        auto outputType =
            cast<RankedTensorType>(conv.getOutputs()[0].getType());
        Value nchw = tensor::ExpandShapeOp::create(
            b, loc,
            RankedTensorType::get(outputType.getShape(), b.getI32Type()),
            sums, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
        op->getResult(0).replaceAllUsesWith(buildConvolutionResult(
            b, conv, nchw, b.getMultiDimIdentityMap(4), scales));
      }
      op->erase();
    }
  }
};
} // namespace
