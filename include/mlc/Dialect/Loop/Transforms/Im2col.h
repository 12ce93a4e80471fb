//===- Im2col.h - Convolutions' im2col matrices -----------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A convolution as a contraction reads its input through an im2col matrix:
// row k = (c, kh, kw), column p = (oh, ow) holds the input element that
// filter tap k multiplies for output pixel p.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_IM2COL_H
#define MLC_DIALECT_LOOP_TRANSFORMS_IM2COL_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// Marks the gather of an im2col matrix: a `linalg.generic` with loops
/// (n, c, kh, kw, oh, ow) whose result collapses to (n, c*kh*kw, oh*ow).
constexpr llvm::StringLiteral kIm2colAttr =
    LoopDialect::Im2colAttrHelper::getNameStr();

/// The im2col gather of `conv`'s input: a `linalg.generic` with loops
/// (n, c, kh, kw, oh, ow) writing into `init` (of that shape) element
/// (n, c, kh, kw, oh, ow) of the input window. With unit column strides each
/// output row is a copy of an input row segment, which a target can lower to
/// row copies after bufferization (the CPU's mlc-cpu-lower-copies: left to
/// LLVM as loops it was a fully unrolled scalar copy).
mlir::linalg::GenericOp
createIm2colGather(mlir::RewriterBase &rewriter,
                   mlir::linalg::Conv2DNchwFchwOp conv, mlir::Value init);

/// Whether `conv` is a 1x1 convolution with unit strides on an unpadded
/// input: its im2col matrix is its input, read in place. Sizes known at run
/// time count when they are provably the same value.
bool isPointwiseConvolution(mlir::linalg::Conv2DNchwFchwOp conv);

/// Whether `conv` is an f32 convolution over tensors with static channels
/// and a static filter: its batch and spatial sizes may be known only at
/// run time. What an im2col contraction is made of.
bool hasStaticChannels(mlir::linalg::Conv2DNchwFchwOp conv);

/// The im2col gather whose collapsed result `value` is, or null.
mlir::linalg::GenericOp getIm2colGather(mlir::Value value);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_IM2COL_H
