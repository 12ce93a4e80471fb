//===- ShapeUtils.h - Shape arithmetic for ONNX semantics -------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Pure functions on shapes (dims are int64_t, `mlir::ShapedType::kDynamic`
// for unknown) shared by the graph dialect's shape functions, the importer
// and the lowerings. They report failure with a message instead of
// asserting, because every input can come from a model file.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_UTILS_SHAPEUTILS_H
#define MLC_DIALECT_GRAPH_UTILS_SHAPEUTILS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlc::graph {

/// Numpy broadcast of two shapes. A dynamic dim against 1 stays dynamic; a
/// dynamic dim against a static N > 1 becomes N. Fails when two static dims
/// differ and neither is 1.
llvm::Expected<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Maps `axis` in [-rank, rank) to [0, rank); fails outside that range.
llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Normalizes every axis, failing on duplicates or values out of range.
llvm::Expected<llvm::SmallVector<int64_t>>
normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// Padding rule of convolution and pooling windows.
enum class WindowPadding { Explicit, SameUpper, SameLower, Valid };

/// One spatial dim of a sliding window (Conv, MaxPool, AveragePool).
struct WindowDim {
  int64_t input = 0;  ///< input size, may be dynamic
  int64_t kernel = 1; ///< kernel size (before dilation)
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t padBegin = 0; ///< used when padding is Explicit
  int64_t padEnd = 0;   ///< used when padding is Explicit
};

/// Output size of one window dim, and the pads actually applied (for the
/// SAME modes). Dynamic input gives a dynamic output. Fails on non-positive
/// kernel/stride/dilation, negative pads, or a window larger than the
/// padded input.
struct WindowResult {
  int64_t output = 0;
  int64_t padBegin = 0;
  int64_t padEnd = 0;
};
llvm::Expected<WindowResult>
computeWindowDim(const WindowDim &dim, WindowPadding padding, bool ceilMode);

/// Resolves ONNX Reshape's target shape (`0` copies the input dim unless
/// `allowZero`, one `-1` is inferred) against `input`. A target entry of
/// ShapedType::kDynamic is known only at run time, and so is its dim. Fails
/// when the element counts cannot match.
llvm::Expected<llvm::SmallVector<int64_t>>
resolveReshape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> target,
               bool allowZero);

/// Number of elements, or std::nullopt when a dim is dynamic or the product
/// overflows int64_t.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// The most static shape that both `a` and `b` refine: their equal dims,
/// dynamic where they differ (the type of a value that is one or the other,
/// as If results are). Nothing when the ranks differ.
std::optional<llvm::SmallVector<int64_t>> joinShapes(llvm::ArrayRef<int64_t> a,
                                                     llvm::ArrayRef<int64_t> b);

/// Formats a shape as `2x?x4` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace mlc::graph

#endif // MLC_DIALECT_GRAPH_UTILS_SHAPEUTILS_H
