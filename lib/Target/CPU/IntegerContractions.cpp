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
// weights packed in panels of pairs. The register level
// (VectorizeRegisterTiles.cpp) computes each k2 step of a row as one
// multiply-add of pairs per vector of columns: x86's vpmaddwd multiplies
// sixteen i16 pairs and adds each pair into an i32 lane, twice the
// multiply-adds of an f32 FMA per instruction, on operands half the size.
//
//===----------------------------------------------------------------------===//

#include "../QuantizedOperands.h"
#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUINTEGERCONTRACTIONS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
/// The activations as i16 with their zero point subtracted: exact, since
/// both are 8-bit.
Value buildWidened(OpBuilder &b, Location loc, const QuantizedOperands &q) {
  Type i8 = b.getIntegerType(8), i16 = b.getIntegerType(16);
  auto type = cast<RankedTensorType>(q.activations.getType());
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), i16);
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
               if (q.activationZeroPoint)
                 v = arith::SubIOp::create(
                     nb, nloc, v,
                     arith::ConstantOp::create(
                         nb, nloc, i16,
                         nb.getIntegerAttr(i16, q.activationZeroPoint)));
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// The weights [k, n] (row-major int8) as i16 [n / panel, k / 2, panel, 2].
Value buildPackedWeights(OpBuilder &b, Location loc, ArrayRef<int8_t> weights,
                         int64_t k, int64_t n, int64_t panel) {
  SmallVector<int16_t> packed(size_t(k * n));
  size_t next = 0;
  for (int64_t n1 = 0; n1 < n / panel; ++n1)
    for (int64_t k2 = 0; k2 < k / 2; ++k2)
      for (int64_t n0 = 0; n0 < panel; ++n0)
        for (int64_t p = 0; p < 2; ++p)
          packed[next++] = weights[size_t((2 * k2 + p) * n + n1 * panel + n0)];
  auto type = RankedTensorType::get({n / panel, k / 2, panel, 2},
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
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value x = arith::ExtSIOp::create(nb, nloc, i32, args[0]);
            Value y = arith::ExtSIOp::create(nb, nloc, i32, args[1]);
            Value product = arith::MulIOp::create(nb, nloc, x, y);
            Value sum = arith::AddIOp::create(nb, nloc, args[2], product);
            linalg::YieldOp::create(nb, nloc, sum);
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({m, n}, i32), sums,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
}

/// sa * sw[n] for each column, or null for an int32 result.
Value buildScales(OpBuilder &b, Location loc, const QuantizedOperands &q) {
  if (q.integerResult)
    return nullptr;
  SmallVector<float> scales;
  for (float s : q.weightScales)
    scales.push_back(q.activationScale * s);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(scales.size())}, b.getF32Type()),
          ArrayRef<float>(scales)));
}

/// The matmul's result from its sums: times the scales, as f32.
Value buildMatmulResult(OpBuilder &b, Location loc, Value sums, Value scales,
                        int64_t m, int64_t n) {
  if (!scales)
    return sums;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  Value out = tensor::EmptyOp::create(b, loc, {m, n}, f32);
  return linalg::GenericOp::create(
             b, loc, out.getType(), ValueRange{sums, scales}, ValueRange{out},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(2),
                                 AffineMap::get(2, 0, {d1}, ctx),
                                 b.getMultiDimIdentityMap(2)},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = arith::SIToFPOp::create(nb, nloc, f32, args[0]);
               Value scaled = arith::MulFOp::create(nb, nloc, v, args[1]);
               linalg::YieldOp::create(nb, nloc, scaled);
             })
      .getResult(0);
}

/// Whether the pair contraction takes a product of depth `k` and `n`
/// columns in panels of `panel`.
bool fits(int64_t k, int64_t n, int64_t panel) {
  return panel > 0 && k >= 2 && k % 2 == 0 && n % panel == 0;
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
        std::optional<QuantizedMatmul> q = matchQuantizedMatmul(matmul, why);
        if (!q || !fits(q->k, q->n, panel))
          continue;
        Value rows = applyReshapes(b, loc, buildWidened(b, loc, *q), q->reshapes);
        Value weights =
            buildPackedWeights(b, loc, q->weights, q->k, q->n, panel);
        Value sums = buildPairContraction(b, loc, rows, weights, q->m, q->n,
                                          q->k, panel);
        op->getResult(0).replaceAllUsesWith(buildMatmulResult(
            b, loc, sums, buildScales(b, loc, *q), q->m, q->n));
        op->erase();
        continue;
      }
      auto conv = cast<linalg::Conv2DNchwFchwOp>(op);
      std::optional<QuantizedConvolution> q =
          matchQuantizedConvolution(conv, why);
      if (!q || !fits(q->depth, q->filters, panel))
        continue;
      Value widened = buildWidened(b, loc, *q);
      if (tensor::PadOp pad = q->pad) {
        Type i16 = b.getIntegerType(16);
        Value zero =
            arith::ConstantOp::create(b, loc, i16, b.getIntegerAttr(i16, 0));
        widened = tensor::PadOp::create(
            b, loc, RankedTensorType::get(pad.getResultType().getShape(), i16),
            widened, pad.getMixedLowPad(), pad.getMixedHighPad(), zero);
      }
      Value matrix = buildIm2col(b, conv, widened, b.getIntegerType(16));
      Value weights = buildPackedWeights(b, loc, q->weights, q->depth,
                                         q->filters, panel);
      Value sums = buildPairContraction(b, loc, matrix, weights, q->pixels,
                                        q->filters, q->depth, panel);
      op->getResult(0).replaceAllUsesWith(
          buildTransposeBack(b, conv, sums, buildScales(b, loc, *q)));
      op->erase();
    }
  }
};
} // namespace
