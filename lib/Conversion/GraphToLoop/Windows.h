//===- Windows.h - Where the windows of Conv and pooling fall ---*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The geometry of sliding-window ops (Conv, MaxPool, AveragePool) along
// their spatial dims, from the input's sizes as mixed static/dynamic
// values: one computation for every shape. Where a size is static it folds
// to a constant (auto_pad and ceil_mode resolved as shape inference does);
// where it is known at run time, the pads and output sizes are computed
// when the model runs, under one run-time check that names the node.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_CONVERSION_GRAPHTOLOOP_WINDOWS_H
#define MLC_LIB_CONVERSION_GRAPHTOLOOP_WINDOWS_H

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace mlc::detail {

/// Where the windows of one op fall.
struct WindowPlan {
  /// Per dim of the input: the padding before and after it (auto_pad
  /// resolved, and for ceil_mode the end padding the last window reaches
  /// into; a static size of the result that is checked at run time pads the
  /// input to hold its windows, so that a run whose check fails stays in
  /// bounds).
  llvm::SmallVector<mlir::OpFoldResult> padLow, padHigh;
  /// The result's sizes: batch, channels, then one per spatial dim. Where
  /// the padded input holds no window (a run-time check fails), every
  /// computed size is 0: the result is empty.
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  /// Whether some spatial pad is not a static 0 (windows may hold padding).
  bool isPadded() const;
};

/// Plans the windows of `op` (an ONNX `onnxOp` node, for messages) over the
/// spatial dims of `input` (N, C, spatial...) for a result of type `result`
/// with `channels` channels. Attributes as ONNX gives them (absent strides
/// and dilations are 1, absent pads 0). Fails, building nothing, when the
/// attributes do not fit the rank or are out of range, or when a static dim
/// holds no window. A dim known only at run time gets the same sizes
/// computed when the model runs, checked by one `cf.assert` per op (which
/// also checks the result's static dims).
mlir::FailureOr<WindowPlan>
planWindows(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
            llvm::StringRef onnxOp, mlir::Value input, int64_t channels,
            mlir::RankedTensorType result, llvm::ArrayRef<int64_t> kernel,
            std::optional<llvm::ArrayRef<int64_t>> strides,
            std::optional<llvm::ArrayRef<int64_t>> dilations,
            std::optional<llvm::ArrayRef<int64_t>> pads,
            mlc::graph::AutoPad autoPad, bool ceilMode);

/// `input` padded as `plan` says with the element `fill`; `input` itself
/// when every pad is a static 0.
mlir::Value padWindows(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, const WindowPlan &plan,
                       mlir::Value fill);

/// A tensor of `type` (its dynamic dims of `sizes`) filled with the
/// element `value`.
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         mlir::Value value);

/// The same, filled with the float `value` (a constant built after the
/// empty tensor).
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         double value);

/// Dim 1 of `value` split into (`parts`, size / `parts`): a grouped
/// operand's view [N, G, C/G, ...].
mlir::Value splitChannels(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, int64_t parts);

/// The spatial attribute `a` of a 1-D op for its 2-D view over a height of
/// 1 (`fill` on the height; pads [begin, end] -> [0, begin, 0, end]), kept
/// in `storage`; a malformed one as it is, for planWindows to refuse.
std::optional<llvm::ArrayRef<int64_t>>
addHeight(std::optional<llvm::ArrayRef<int64_t>> a, int64_t fill, bool isPads,
          llvm::SmallVector<int64_t> &storage);

/// `value` [N, C, W] as [N, C, 1, W].
mlir::Value insertHeight(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value value);

} // namespace mlc::detail

#endif // MLC_LIB_CONVERSION_GRAPHTOLOOP_WINDOWS_H
