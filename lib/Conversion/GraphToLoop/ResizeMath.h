//===- ResizeMath.h - Where Resize's outputs read from ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX Resize's formulas for one axis, written once over a numeric type and
// following the ONNX reference implementation: the input coordinate of an
// output index under each coordinate transformation mode, the nearest
// input index under each rounding mode, and the taps (first input index and
// weights) of linear and cubic interpolation with exclude_outside. They are
// evaluated on doubles at compile time (ConstantMath: the taps of an axis
// whose sizes, scale and roi are constants become constant tables) and
// emitted as f64 arithmetic in a generic's body (ValueMath) when any of
// those is known at run time only.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_CONVERSION_GRAPHTOLOOP_RESIZEMATH_H
#define MLC_LIB_CONVERSION_GRAPHTOLOOP_RESIZEMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>

namespace mlc::detail {

enum class ResizeMode { Nearest, Linear, Cubic };

/// Arithmetic on doubles, at compile time.
struct ConstantMath {
  using Num = double;
  using Bool = bool;
  Num c(double v) { return v; }
  Num add(Num x, Num y) { return x + y; }
  Num sub(Num x, Num y) { return x - y; }
  Num mul(Num x, Num y) { return x * y; }
  Num div(Num x, Num y) { return x / y; }
  Num floor(Num x) { return std::floor(x); }
  Num ceil(Num x) { return std::ceil(x); }
  /// Half away from zero (std::round, math.round).
  Num round(Num x) { return std::round(x); }
  Num abs(Num x) { return std::fabs(x); }
  Bool lt(Num x, Num y) { return x < y; }
  Bool le(Num x, Num y) { return x <= y; }
  Bool gt(Num x, Num y) { return x > y; }
  Bool eq(Num x, Num y) { return x == y; }
  Bool any(Bool x, Bool y) { return x || y; }
  Num select(Bool c, Num x, Num y) { return c ? x : y; }
};

/// The same arithmetic emitted as f64 operations.
struct ValueMath {
  using Num = mlir::Value;
  using Bool = mlir::Value;
  mlir::OpBuilder &b;
  mlir::Location loc;
  Num c(double v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Num add(Num x, Num y) { return mlir::arith::AddFOp::create(b, loc, x, y); }
  Num sub(Num x, Num y) { return mlir::arith::SubFOp::create(b, loc, x, y); }
  Num mul(Num x, Num y) { return mlir::arith::MulFOp::create(b, loc, x, y); }
  Num div(Num x, Num y) { return mlir::arith::DivFOp::create(b, loc, x, y); }
  Num floor(Num x) { return mlir::math::FloorOp::create(b, loc, x); }
  Num ceil(Num x) { return mlir::math::CeilOp::create(b, loc, x); }
  Num round(Num x) { return mlir::math::RoundOp::create(b, loc, x); }
  Num abs(Num x) { return mlir::math::AbsFOp::create(b, loc, x); }
  Bool cmp(mlir::arith::CmpFPredicate p, Num x, Num y) {
    return mlir::arith::CmpFOp::create(b, loc, p, x, y);
  }
  Bool lt(Num x, Num y) { return cmp(mlir::arith::CmpFPredicate::OLT, x, y); }
  Bool le(Num x, Num y) { return cmp(mlir::arith::CmpFPredicate::OLE, x, y); }
  Bool gt(Num x, Num y) { return cmp(mlir::arith::CmpFPredicate::OGT, x, y); }
  Bool eq(Num x, Num y) { return cmp(mlir::arith::CmpFPredicate::OEQ, x, y); }
  Bool any(Bool x, Bool y) { return mlir::arith::OrIOp::create(b, loc, x, y); }
  Num select(Bool c, Num x, Num y) {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }
};

/// Whether `transform` is a coordinate transformation mode ONNX defines.
inline bool isKnownTransform(llvm::StringRef transform) {
  return llvm::is_contained(
      {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
       "align_corners", "asymmetric", "tf_half_pixel_for_nn",
       "tf_crop_and_resize"},
      transform);
}

/// The input coordinate of output index `x` on an axis of `in` input and
/// `out` output positions (`transform` known: isKnownTransform). The
/// resized length is scale * in, not the floored output size (they differ
/// when scales are given), as in ONNX's reference.
template <typename M>
typename M::Num sourceCoordinate(M &m, llvm::StringRef transform,
                                 typename M::Num x, typename M::Num scale,
                                 typename M::Num in, typename M::Num out,
                                 typename M::Num roiStart,
                                 typename M::Num roiEnd) {
  auto halfPixel = [&] {
    return m.sub(m.div(m.add(x, m.c(0.5)), scale), m.c(0.5));
  };
  if (transform == "half_pixel")
    return halfPixel();
  if (transform == "half_pixel_symmetric") {
    auto adjustment = m.div(out, m.mul(scale, in));
    auto offset = m.mul(m.mul(in, m.c(0.5)), m.sub(m.c(1), adjustment));
    return m.sub(m.add(offset, m.div(m.add(x, m.c(0.5)), scale)), m.c(0.5));
  }
  if (transform == "pytorch_half_pixel")
    return m.select(m.gt(out, m.c(1)), halfPixel(), m.c(0));
  if (transform == "align_corners") {
    auto length = m.mul(scale, in);
    return m.select(m.any(m.eq(out, m.c(1)), m.eq(length, m.c(1))), m.c(0),
                    m.div(m.mul(x, m.sub(in, m.c(1))), m.sub(length, m.c(1))));
  }
  if (transform == "asymmetric")
    return m.div(x, scale);
  if (transform == "tf_half_pixel_for_nn")
    return m.div(m.add(x, m.c(0.5)), scale);
  // tf_crop_and_resize
  auto last = m.sub(in, m.c(1));
  auto inside =
      m.add(m.mul(roiStart, last),
            m.div(m.mul(m.mul(x, m.sub(roiEnd, roiStart)), last),
                  m.sub(out, m.c(1))));
  return m.select(m.gt(out, m.c(1)), inside,
                  m.mul(m.mul(m.c(0.5), m.add(roiStart, roiEnd)), last));
}

/// Whether source coordinate `s` lies outside an input of `in` positions
/// (where tf_crop_and_resize reads its extrapolation value).
template <typename M>
typename M::Bool isOutside(M &m, typename M::Num s, typename M::Num in) {
  return m.any(m.lt(s, m.c(0)), m.gt(s, m.sub(in, m.c(1))));
}

/// The cubic convolution kernel with coefficient `a` at distance `x`. (The
/// formulas keep the reference's order of operations, so that the tables
/// built at compile time round as it does.)
template <typename M>
typename M::Num cubicWeight(M &m, typename M::Num x, double a) {
  x = m.abs(x);
  auto inner = m.add(
      m.mul(m.mul(m.sub(m.mul(m.c(a + 2), x), m.c(a + 3)), x), x), m.c(1));
  auto outer = m.sub(
      m.mul(m.add(m.mul(m.sub(m.mul(m.c(a), x), m.c(5 * a)), x), m.c(8 * a)),
            x),
      m.c(4 * a));
  return m.select(m.le(x, m.c(1)), inner,
                  m.select(m.lt(x, m.c(2)), outer, m.c(0)));
}

/// Where one output position reads: its first input index (unclamped, a
/// whole number) and the weights of the taps from there (one tap of weight
/// 1 for nearest).
template <typename M> struct ResizeTaps {
  typename M::Num first;
  llvm::SmallVector<typename M::Num, 4> weights;
};

/// The taps of source coordinate `s` on an axis of `in` positions:
/// `rounding` picks nearest's index; linear reads floor(s) and the next,
/// cubic the two on each side, with `exclude` (exclude_outside) giving the
/// taps outside the input weight 0 and renormalizing the rest.
template <typename M>
ResizeTaps<M> resizeTaps(M &m, ResizeMode mode, llvm::StringRef rounding,
                         double cubicA, bool exclude, typename M::Num s,
                         typename M::Num in) {
  ResizeTaps<M> taps;
  auto base = m.floor(s);
  auto t = m.sub(s, base);
  if (mode == ResizeMode::Nearest) {
    auto half = m.eq(t, m.c(0.5));
    taps.first = rounding == "floor" ? base
                 : rounding == "ceil" ? m.ceil(s)
                 : rounding == "round_prefer_ceil"
                     ? m.select(half, m.add(base, m.c(1)), m.round(s))
                     : m.select(half, base, m.round(s));
    taps.weights.push_back(m.c(1));
    return taps;
  }
  if (mode == ResizeMode::Linear) {
    taps.first = base;
    taps.weights = {m.sub(m.c(1), t), t};
    return taps;
  }
  taps.first = m.sub(base, m.c(1));
  taps.weights = {cubicWeight(m, m.add(t, m.c(1)), cubicA),
                  cubicWeight(m, t, cubicA),
                  cubicWeight(m, m.sub(m.c(1), t), cubicA),
                  cubicWeight(m, m.sub(m.c(2), t), cubicA)};
  if (!exclude)
    return taps;
  auto sum = m.c(0);
  for (auto [k, w] : llvm::enumerate(taps.weights)) {
    auto at = m.add(taps.first, m.c(k));
    w = m.select(m.any(m.lt(at, m.c(0)), m.gt(at, m.sub(in, m.c(1)))), m.c(0),
                 w);
    sum = m.add(sum, w);
  }
  for (auto &w : taps.weights)
    w = m.select(m.eq(sum, m.c(0)), m.c(0), m.div(w, sum));
  return taps;
}

} // namespace mlc::detail

#endif // MLC_LIB_CONVERSION_GRAPHTOLOOP_RESIZEMATH_H
