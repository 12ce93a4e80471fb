//===- GraphToLoop.h - Graph ops to linalg on tensors -----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_CONVERSION_GRAPHTOLOOP_GRAPHTOLOOP_H
#define MLC_CONVERSION_GRAPHTOLOOP_GRAPHTOLOOP_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlc {

/// Elementwise graph ops (unary, binary with broadcasting, comparisons,
/// logic, where, clip) to `linalg.generic`.
void populateGraphElementwiseToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// Constants, Gemm and Softmax.
void populateGraphStructuredToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// MatMul for static sizes and sizes known at run time (checked to agree).
void populateGraphMatMulToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Shape, Reshape, Flatten, Squeeze, Unsqueeze, Transpose and Concat, for
/// static sizes and sizes known at run time.
void populateGraphLayoutToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Convolution (1-D, 2-D, 3-D; plain, depthwise, grouped), pooling and
/// global average pooling, for static sizes and sizes known at run time.
void populateGraphConvPoolToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Batch normalization and LRN.
void populateGraphNormalizationToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// Reductions, layer norm, N-D matmul, gather, constant slices and cast.
void populateGraphReductionsToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Everything `mlc-convert-graph-to-loop` applies.
/// Trilu, GatherElements and Expand.
void populateGraphIndexingToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// ConvTranspose (any spatial rank, groups, strides, dilations, pads).
void populateGraphConvTransposeToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// QuantizeLinear and DequantizeLinear.
void populateGraphQuantToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// GatherND and ScatterND (in-order updates, optional reduction).
void populateGraphGatherScatterNDToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// RNN, GRU and LSTM: the input projection as one contraction, the steps
/// as an scf.for over a recurrent contraction and a gate generic.
void populateGraphRecurrentToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// RandomUniform/RandomNormal as a stateless counter-based generator.
void populateGraphRandomToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// GridSample (bilinear, nearest, bicubic; every padding mode).
void populateGraphGridSampleToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Resize and Upsample (nearest, linear, cubic; every coordinate
/// transformation mode), with constant scales/sizes/roi or ones read at run
/// time.
void populateGraphResizeToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// STFT and MelWeightMatrix, sized by scalars read at run time
/// (SpectrogramToLinalg.cpp).
void populateGraphSpectrogramToLinalgPatterns(
    mlir::RewritePatternSet &patterns);
/// Unique, sized at run time (UniqueToLinalg.cpp).
void populateGraphUniqueToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Pad (constant, edge, reflect, wrap; negative pads crop) and Tile.
void populateGraphPadTileToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// DFT (as its definition, one contraction generic) and Det (Gaussian
/// elimination with partial pivoting).
void populateGraphSignalToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// RoiAlign (avg and max, both coordinate modes, fixed or adaptive
/// sampling grids).
void populateGraphRoiAlignToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Range, ConstantOfShape and NonZero on run-time values: results sized
/// when the model runs, with run-time checks of the sizes.
void populateGraphDataDependentToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// TopK (k read at run time, checked): k passes over each slice.
void populateGraphTopKToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// NonMaxSuppression (ONNX Runtime's greedy selection; the number of boxes
/// selected is decided at run time).
void populateGraphNonMaxSuppressionToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// Einsum as one contraction generic.
void populateGraphEinsumToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv: integer
/// accumulation in i32, requantization in f32.
void populateGraphQuantComputeToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// Graph ops rewritten into other graph ops (log_softmax, hardmax,
/// global_max_pool, instance_norm).
void populateGraphDecompositionPatterns(mlir::RewritePatternSet &patterns);

/// ONNX If with a run-time condition -> `scf.if` (only the branch taken
/// runs).
void populateGraphIfToSCFPatterns(mlir::RewritePatternSet &patterns);

/// Scan, and Loop with a constant trip count and a condition that stays
/// true, as scf.for over tensors.
void populateGraphLoopsToSCFPatterns(mlir::RewritePatternSet &patterns);

void populateGraphToLoopConversionPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlc

#endif // MLC_CONVERSION_GRAPHTOLOOP_GRAPHTOLOOP_H
