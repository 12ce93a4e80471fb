//===- Epilogues.h - Elementwise epilogues on contraction tiles -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An activation after a matmul or convolution (ReLU, Clip, SiLU, GELU,
// HardSwish) is a pass of its own over the whole result: the result leaves
// the cache between the contraction and the activation. Here the activation
// runs on each finished tile of the contraction's result instead, in place,
// while the tile is still in cache.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_EPILOGUES_H
#define MLC_DIALECT_LOOP_TRANSFORMS_EPILOGUES_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Tiling.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::loop {

/// Marks an op prepareEpilogue rewrote, until fuseEpilogue moves it.
constexpr llvm::StringLiteral kEpilogueAttr =
    LoopDialect::EpilogueAttrHelper::getNameStr();

/// The elementwise op prepareConsumerEpilogue would take for `producer`,
/// without changing anything, or null.
mlir::linalg::GenericOp findConsumerEpilogue(mlir::Operation *producer);

/// When `producer`'s only use is an elementwise `linalg.generic` that
/// reads it (directly or through a `tensor.expand_shape`, as a convolution's
/// im2col contraction is read) with an identity map and has no other
/// inputs but scalars, rewrites that op to read and write the
/// contraction's result in place (collapsing its iteration space to the
/// contraction's result shape) and returns it; otherwise returns null.
mlir::linalg::GenericOp prepareEpilogue(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp contraction);

/// The epilogue prepareEpilogue made for the op that `tiled` is a part of
/// (`tiled` itself or its `scf.forall` chunk), or null.
mlir::linalg::GenericOp findEpilogue(mlir::Operation *tiled);

/// Moves `epilogue` (from prepareEpilogue, reading `result`, the tiled
/// contraction's final value) into `nest`: it runs on each part of the
/// result that is complete, right after the outermost reduction loop, or
/// on each tile when no loop tiles a reduction dim. Returns the moved op.
mlir::linalg::GenericOp fuseEpilogue(mlir::RewriterBase &rewriter,
                                     mlir::linalg::GenericOp epilogue,
                                     mlir::Value result, const TiledNest &nest);

/// The elementwise op prepareConsumerEpilogue would take for `producer`,
/// without changing anything, or null.
mlir::linalg::GenericOp findConsumerEpilogue(mlir::Operation *producer);

/// When `producer`'s only use is an elementwise `linalg.generic` that
/// prepareEpilogue cannot run in place (it changes the element type, as a
/// quantized contraction's scaling does, or reads per-channel tensors),
/// rewrites that op onto the producer's own iteration space (through
/// the `tensor.expand_shape` a convolution's result is read by, with unit
/// dims dropped first) so that it reads the producer's result directly,
/// and returns it; otherwise returns null. Its other operands may be
/// broadcast tensors (per-channel scales, biases) or constants, which its
/// indexing maps slice with each tile.
mlir::linalg::GenericOp prepareConsumerEpilogue(mlir::RewriterBase &rewriter,
                                                mlir::Operation *producer);

/// Fuses `epilogue` (from prepareConsumerEpilogue) into the loops that
/// tiled its producer: into `forall` (the threads' chunks, null when
/// none), then into the loops of `nest` when none of them is a reduction's,
/// with MLIR's consumer fusion: each loop then carries the epilogue's
/// result beside the contraction's, and the epilogue runs on each finished
/// part of the result while it is in cache; each chunk's part of the
/// producer's result becomes a buffer of its own, so a chunk whose part
/// takes more than `maxChunkBytes` is left alone. Returns whether it moved.
bool fuseConsumerEpilogue(mlir::RewriterBase &rewriter,
                          mlir::linalg::GenericOp epilogue,
                          mlir::scf::ForallOp forall, const TiledNest &nest,
                          std::optional<int64_t> maxChunkBytes);

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_EPILOGUES_H
