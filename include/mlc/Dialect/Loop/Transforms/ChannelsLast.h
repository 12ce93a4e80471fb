//===- ChannelsLast.h - Convolutions on [pixels, channels] ------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// On small maps a convolution's rows of pixels fill a fraction of a vector
// (7 of 16 lanes on a 7x7 map with AVX-512), so some convolutions there are
// computed channels-last: on `[pixels, channels]` (the matmul form of
// mlc-loop-convolutions-as-matmuls) or `[1, h, w, c]` (depthwise
// convolutions, mlc-loop-channels-last-depthwise), with the channels in the
// vector lanes. These helpers move a convolution's init, input and
// activation between the model's NCHW and that layout: transposes that
// meet (the channels-last result of one convolution read channels-last by
// the next) cancel, and an activation runs before the transpose back so
// that it stays an epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_CHANNELSLAST_H
#define MLC_DIALECT_LOOP_TRANSFORMS_CHANNELSLAST_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// `value` permuted by `perm` (result dim i is input dim perm[i]) through a
/// `linalg.transpose` into a new empty tensor.
mlir::Value createTranspose(mlir::RewriterBase &rewriter, mlir::Location loc,
                            mlir::Value value, llvm::ArrayRef<int64_t> perm);

/// `nchw` (`[1, c, h, w]`) as `[h*w, c]`: the matrix it is a transpose of
/// when it is one (`expand_shape(transpose(m))`), else a transpose.
mlir::Value toPixelsByChannels(mlir::RewriterBase &rewriter, mlir::Location loc,
                               mlir::Value nchw);

/// A convolution's starting value `init` (`[1, c, h, w]`) as
/// `[h*w, c]`: a fill again, the bias broadcast along the rows instead, or
/// the init transposed.
mlir::Value startAsPixelsByChannels(mlir::RewriterBase &rewriter,
                                    mlir::Location loc, mlir::Value init);

/// Replaces `op` (whose result is `[1, c, h, w]`) by `result`, the same
/// values as `[h*w, c]` or `[1, h, w, c]`, transposed back. An activation
/// that is `op`'s only user runs on `result` before the transpose
/// (elementwise ops commute with it) and is replaced too.
void replaceFromPixelsByChannels(mlir::RewriterBase &rewriter,
                                 mlir::Operation *op, mlir::Value result);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_CHANNELSLAST_H
