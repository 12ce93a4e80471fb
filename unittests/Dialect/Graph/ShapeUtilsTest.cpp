//===- ShapeUtilsTest.cpp - Tests of the ONNX shape arithmetic ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"

#include <gtest/gtest.h>

using namespace mlc::graph;
using llvm::SmallVector;

namespace {
constexpr int64_t kDyn = mlir::ShapedType::kDynamic;

/// Unwraps an Expected, failing the test with its message on error.
template <typename T> T take(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

/// The message of a failed Expected ("" when it succeeded).
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

TEST(BroadcastShapes, Numpy) {
  EXPECT_EQ(take(broadcastShapes({3, 1}, {4})), (SmallVector<int64_t>{3, 4}));
  EXPECT_EQ(take(broadcastShapes({}, {2, 3})), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(take(broadcastShapes({2, 1, 5}, {7, 1})),
            (SmallVector<int64_t>{2, 7, 5}));
  EXPECT_EQ(take(broadcastShapes({0}, {1})), (SmallVector<int64_t>{0}));
}

TEST(BroadcastShapes, Dynamic) {
  // ? against 1 stays ?, ? against N > 1 must be N.
  EXPECT_EQ(take(broadcastShapes({kDyn, 1}, {1, 4})),
            (SmallVector<int64_t>{kDyn, 4}));
  EXPECT_EQ(take(broadcastShapes({kDyn}, {5})), (SmallVector<int64_t>{5}));
  EXPECT_EQ(take(broadcastShapes({kDyn}, {kDyn})),
            (SmallVector<int64_t>{kDyn}));
}

TEST(BroadcastShapes, Mismatch) {
  EXPECT_EQ(errorOf(broadcastShapes({3, 4}, {5})),
            "shapes 3x4 and 5 do not broadcast (dim 1: 4 vs 5)");
}

TEST(NormalizeAxes, RangeAndDuplicates) {
  EXPECT_EQ(take(normalizeAxis(-1, 3)), 2);
  EXPECT_EQ(errorOf(normalizeAxis(3, 3)), "axis 3 is out of range for rank 3");
  EXPECT_EQ(errorOf(normalizeAxis(-4, 3)),
            "axis -4 is out of range for rank 3");
  EXPECT_EQ(take(normalizeAxes({0, -1}, 4)), (SmallVector<int64_t>{0, 3}));
  EXPECT_EQ(errorOf(normalizeAxes({1, -2}, 3)), "axis -2 is repeated");
  // Rank 0 has no valid axis at all.
  EXPECT_FALSE(errorOf(normalizeAxis(0, 0)).empty());
}

TEST(WindowDim, ExplicitPadsStridesDilations) {
  // ResNet stem: 224, k7, s2, p3 -> 112.
  WindowDim stem{224, 7, 2, 1, 3, 3};
  EXPECT_EQ(take(computeWindowDim(stem, WindowPadding::Explicit, false)).output,
            112);
  // Dilation 2 makes k3 act like k5.
  WindowDim dilated{9, 3, 1, 2, 0, 0};
  EXPECT_EQ(
      take(computeWindowDim(dilated, WindowPadding::Explicit, false)).output,
      5);
}

TEST(WindowDim, CeilMode) {
  WindowDim pool{9, 2, 2, 1, 0, 0};
  EXPECT_EQ(take(computeWindowDim(pool, WindowPadding::Explicit, false)).output,
            4);
  EXPECT_EQ(take(computeWindowDim(pool, WindowPadding::Explicit, true)).output,
            5);
  // The last window may not start in the end padding only.
  WindowDim padded{4, 2, 2, 1, 0, 1};
  EXPECT_EQ(
      take(computeWindowDim(padded, WindowPadding::Explicit, true)).output, 2);
}

TEST(WindowDim, SamePadding) {
  WindowDim dim{7, 3, 2, 1, 0, 0};
  WindowResult upper =
      take(computeWindowDim(dim, WindowPadding::SameUpper, false));
  EXPECT_EQ(upper.output, 4);
  EXPECT_EQ(upper.padBegin, 1);
  EXPECT_EQ(upper.padEnd, 1);
  WindowDim even{8, 2, 1, 1, 0, 0};
  WindowResult lower =
      take(computeWindowDim(even, WindowPadding::SameLower, false));
  EXPECT_EQ(lower.output, 8);
  EXPECT_EQ(lower.padBegin, 1);
  EXPECT_EQ(lower.padEnd, 0);
  WindowResult upperEven =
      take(computeWindowDim(even, WindowPadding::SameUpper, false));
  EXPECT_EQ(upperEven.padBegin, 0);
  EXPECT_EQ(upperEven.padEnd, 1);
}

TEST(WindowDim, Errors) {
  EXPECT_EQ(errorOf(computeWindowDim({8, 3, 0, 1, 0, 0},
                                     WindowPadding::Explicit, false)),
            "kernel size, stride and dilation must be positive (got 3, 0, 1)");
  EXPECT_EQ(errorOf(computeWindowDim({2, 3, 1, 1, 0, 0},
                                     WindowPadding::Explicit, false)),
            "window of size 3 does not fit the padded input of size 2");
  EXPECT_FALSE(errorOf(computeWindowDim({8, 3, 1, 1, -1, 0},
                                        WindowPadding::Explicit, false))
                   .empty());
  EXPECT_EQ(take(computeWindowDim({kDyn, 3, 1, 1, 1, 1},
                                  WindowPadding::Explicit, false))
                .output,
            kDyn);
}

TEST(ResolveReshape, ZeroAndMinusOne) {
  EXPECT_EQ(take(resolveReshape({2, 3, 4}, {0, -1}, false)),
            (SmallVector<int64_t>{2, 12}));
  EXPECT_EQ(take(resolveReshape({kDyn, 128, 768}, {0, 0, 12, 64}, false)),
            (SmallVector<int64_t>{kDyn, 128, 12, 64}));
  // With allowzero a 0 is a real zero-sized dim.
  EXPECT_EQ(take(resolveReshape({0, 3}, {0, 3}, true)),
            (SmallVector<int64_t>{0, 3}));
  EXPECT_EQ(errorOf(resolveReshape({2, 3}, {4, 2}, false)),
            "cannot reshape 2x3 (6 elements) to 4x2 (8 elements)");
  EXPECT_EQ(errorOf(resolveReshape({2, 3}, {-1, -1}, false)),
            "shape -1x-1 has more than one -1");
  EXPECT_EQ(errorOf(resolveReshape({2, 3}, {5, -1}, false)),
            "cannot reshape 2x3 to 5x-1");
  EXPECT_EQ(errorOf(resolveReshape({2}, {0, 0}, false)),
            "shape entry 1 is 0 but the input has rank 1");
}

TEST(NumElements, Overflow) {
  EXPECT_EQ(getNumElements({2, 3, 4}), std::optional<int64_t>(24));
  EXPECT_EQ(getNumElements({}), std::optional<int64_t>(1));
  EXPECT_EQ(getNumElements({kDyn, 3}), std::nullopt);
  EXPECT_EQ(getNumElements({int64_t(1) << 40, int64_t(1) << 40}), std::nullopt);
  EXPECT_EQ(formatShape({2, kDyn, 4}), "2x?x4");
  EXPECT_EQ(formatShape({}), "scalar");
}
} // namespace

TEST(JoinShapes, EqualDimsKeptOthersDynamic) {
  auto joined = joinShapes({2, 3, kDyn}, {2, 5, kDyn});
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(*joined, (SmallVector<int64_t>{2, kDyn, kDyn}));
  EXPECT_FALSE(joinShapes({2, 3}, {2, 3, 1}).has_value());
}
