//===- ValueBounds.h - Value-bounds queries with a bounded search -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Upstream's value-bounds queries (ValueBoundsConstraintSet::compare,
// areEqual, computeConstantBound) walk the whole backward slice of the
// values they compare. On a model of a hundred layers whose sizes are known
// at run time, each size is a chain through every layer before it, with a
// select per window (whether the input holds one): one query took minutes.
// These queries stop after 16 values, which is as deep as the
// facts the passes need go (two sizes read from the same tensor, a tile's
// bound from its affine.min); what lies beyond is an opaque symbol.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_UTILS_VALUEBOUNDS_H
#define MLC_DIALECT_LOOP_UTILS_VALUEBOUNDS_H

#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include <memory>

namespace mlc::loop {

/// How many values a query looks at before it treats the rest as unknown.
constexpr int64_t kMaxBoundedValues = 16;

/// The stop condition of a search of at most `maxValues` values.
inline mlir::ValueBoundsConstraintSet::StopConditionFn
stopAfter(int64_t maxValues = kMaxBoundedValues) {
  auto seen = std::make_shared<int64_t>(0);
  return [seen, maxValues](mlir::Value, std::optional<int64_t>,
                           mlir::ValueBoundsConstraintSet &) {
    return ++*seen > maxValues;
  };
}

/// A constraint set whose search stops after kMaxBoundedValues values.
class BoundedConstraintSet : public mlir::ValueBoundsConstraintSet {
public:
  explicit BoundedConstraintSet(mlir::MLIRContext *ctx)
      : ValueBoundsConstraintSet(ctx, stopAfter()) {}

  /// Whether `lhs cmp rhs` is proven.
  static bool prove(const Variable &lhs, ComparisonOperator cmp,
                    const Variable &rhs) {
    BoundedConstraintSet set(lhs.getContext());
    return set.populateAndCompare(lhs, cmp, rhs);
  }
};

/// Whether `a` and `b` are provably the same value.
inline bool provablyEqual(const mlir::ValueBoundsConstraintSet::Variable &a,
                          const mlir::ValueBoundsConstraintSet::Variable &b) {
  return BoundedConstraintSet::prove(a, mlir::ValueBoundsConstraintSet::EQ, b);
}

/// The constant upper bound (closed) of `var`, from a bounded search.
inline mlir::FailureOr<int64_t>
getConstantUpperBound(const mlir::ValueBoundsConstraintSet::Variable &var) {
  return mlir::ValueBoundsConstraintSet::computeConstantBound(
      mlir::presburger::BoundType::UB, var, stopAfter(), /*closedUB=*/true);
}

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_UTILS_VALUEBOUNDS_H
