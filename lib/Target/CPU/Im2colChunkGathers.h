//===- Im2colChunkGathers.h - Per-chunk im2col gathers ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A convolution's im2col matrix (k = (c, kh, kw) rows, p = (oh, ow)
// columns) is nine times its input for a 3x3 filter: ResNet-18's first
// stage gathers 7.2 MB per convolution. Written whole, it goes out to L3 or
// memory and the contraction reads it back; with two threads each thread
// also reads the half another one wrote. When the contraction's thread
// chunks are whole output rows, each chunk instead gathers its own columns
// right before its register tiles read them: a block of at most
// kMaxStackScratchBytes that stays in the thread's L2 and on its stack.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_IM2COLCHUNKGATHERS_H
#define MLC_LIB_TARGET_CPU_IM2COLCHUNKGATHERS_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Im2col.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

using loop::createIm2colGather;
using loop::getIm2colGather;
using loop::kIm2colAttr;

/// Rows of the im2col matrix of `gather` per cache block of its
/// contraction's reduction: the most channels' worth (KH * KW rows each)
/// that divide the channels into at least two blocks, at most about
/// `kTile` rows. 0 when the reduction is at most `2 * kTile` deep (it stays
/// whole) or no such block exists. Blocks of whole channels can be gathered
/// on their own (gatherInChunk).
int64_t chooseIm2colKBlock(mlir::linalg::GenericOp gather, int64_t kTile);

/// Rows of the im2col matrix of `gather` per reduction block when one
/// output row of all of them is over kMaxStackScratchBytes (a 3x3
/// convolution of 32 channels on 1024-pixel rows gathers 1.2 MB a row): the
/// most channels' worth that divide the channels and fit one row's block
/// in the stack's share. 0 when a whole row fits, no block does, or the
/// matrix is a batch's (gathered whole by a thread loop over the images).
int64_t chooseIm2colRowFitBlock(mlir::linalg::GenericOp gather);

/// Columns per thread chunk for the contraction reading `gather`'s matrix
/// with register tiles `nTile` wide (`lanes` per vector): a whole number of
/// output rows, so that each chunk can gather its own columns, with at most
/// kMaxStackScratchBytes per chunk (of `kBlock` matrix rows when nonzero,
/// the reduction's cache block, gathered block by block; else all of
/// them), at least two chunks, and little work lost to narrower register
/// tiles at the chunks' ends or to an odd chunk count. 0 when no such size
/// loses at most `maxLost` of the work.
int64_t chooseRowChunk(mlir::linalg::GenericOp gather, int64_t nTile,
                       int64_t lanes, double maxLost, int64_t kBlock = 0);

/// Where `tile` (a contraction inside a thread or cache loop) reads a slice
/// of whole output rows and whole channels of an im2col matrix (or of the
/// gather of an enclosing chunk), gathers just that slice there instead;
/// the larger gather goes away when nothing else reads it. Blocks over
/// kMaxStackScratchBytes (of `kBlock` rows per column when nonzero: a chunk
/// whose reduction blocks are gathered again) are left alone. Returns
/// whether anything changed.
bool gatherInChunk(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp tile,
                   int64_t kBlock = 0);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_IM2COLCHUNKGATHERS_H
