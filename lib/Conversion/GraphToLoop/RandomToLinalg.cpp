//===- RandomToLinalg.cpp - ONNX random-number ops ------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// RandomUniform / RandomNormal (and the *Like forms, and Bernoulli built on
// them by the importer) as a counter-based generator: element i of the
// result is a pure function of (seed, i), the SplitMix64 finalizer of
// seed + i * golden-ratio constant. No state, so the generic is parallel
// and a run is repeatable; a `seed` attribute picks the stream (without one
// a fixed stream is used, which ONNX allows: the seed is then unspecified).
// Uniform: the top 24 bits as a float in [0, 1), scaled to [low, high).
// Normal: Box-Muller on two such draws.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cstring>

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// SplitMix64's finalizer on an i64 value.
Value mix(OpBuilder &b, Location loc, Value z) {
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  auto shiftXor = [&](Value v, uint64_t s) {
    return arith::XOrIOp::create(b, loc, v,
                                 arith::ShRUIOp::create(b, loc, v, c(s)));
  };
  z = arith::MulIOp::create(b, loc, shiftXor(z, 30), c(0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, shiftXor(z, 27), c(0x94D049BB133111EBull));
  return shiftXor(z, 31);
}

/// A float in [0, 1) (or (0, 1] with `open0`) from the top 24 bits of the
/// hash of `counter`.
Value uniform(OpBuilder &b, Location loc, Value key, Value counter,
              bool open0) {
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value z = arith::AddIOp::create(
      b, loc, key,
      arith::MulIOp::create(b, loc, counter, c(0x9E3779B97F4A7C15ull)));
  Value bits = arith::ShRUIOp::create(b, loc, mix(b, loc, z), c(40));
  if (open0)
    bits = arith::AddIOp::create(b, loc, bits, c(1));
  Type f32 = b.getF32Type();
  Value f = arith::UIToFPOp::create(b, loc, f32, bits);
  return arith::MulFOp::create(
      b, loc, f,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f / 16777216.0f)));
}

struct RandomLowering : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a static float result");
    bool normal = op.getDistribution() == "normal";
    double mean = op.getMean().convertToDouble();
    double scale = op.getScale().convertToDouble();
    uint64_t key = 0x6D6C632D72616E64ull; // the default stream
    if (auto seed = op.getSeedAttr()) {
      float s = seed.getValue().convertToFloat();
      uint32_t bits;
      std::memcpy(&bits, &s, sizeof(bits));
      key ^= static_cast<uint64_t>(bits) * 0xD1B54A32D192ED03ull;
    }
    int64_t rank = result.getRank();
    ArrayRef<int64_t> shape = result.getShape();
    Location loc = op.getLoc();
    Type element = result.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, element);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ValueRange{}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          // The row-major element number.
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            linear = arith::MulIOp::create(
                b, l, linear, arith::ConstantIndexOp::create(b, l, shape[d]));
            linear = arith::AddIOp::create(b, l, linear,
                                           linalg::IndexOp::create(b, l, d));
          }
          Value counter =
              arith::IndexCastUIOp::create(b, l, b.getI64Type(), linear);
          Value k = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(key));
          Type f32 = b.getF32Type();
          auto cst = [&](double v) {
            return arith::ConstantOp::create(b, l, f32, b.getF32FloatAttr(v));
          };
          Value v;
          if (normal) {
            Value two = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(2));
            Value c0 = arith::MulIOp::create(b, l, counter, two);
            Value c1 = arith::AddIOp::create(
                b, l, c0, arith::ConstantOp::create(b, l, b.getI64IntegerAttr(1)));
            Value u1 = uniform(b, l, k, c0, /*open0=*/true);
            Value u2 = uniform(b, l, k, c1, /*open0=*/false);
            Value radius = math::SqrtOp::create(
                b, l,
                arith::MulFOp::create(b, l, cst(-2.0),
                                      math::LogOp::create(b, l, u1)));
            Value angle = arith::MulFOp::create(b, l, cst(2.0 * M_PI), u2);
            v = arith::MulFOp::create(b, l, radius,
                                      math::CosOp::create(b, l, angle));
            v = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, v, cst(scale)), cst(mean));
          } else {
            // low = mean, high = scale.
            Value u = uniform(b, l, k, counter, /*open0=*/false);
            v = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, u, cst(scale - mean)),
                cst(mean));
          }
          if (element.getIntOrFloatBitWidth() > 32)
            v = arith::ExtFOp::create(b, l, element, v);
          else if (element != f32)
            v = arith::TruncFOp::create(b, l, element, v);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphRandomToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomLowering>(patterns.getContext());
}
