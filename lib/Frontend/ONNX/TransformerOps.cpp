//===- TransformerOps.cpp - Transformer norms and activations ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The contrib ops ONNX Runtime's transformer optimizer and GenAI's model
// builder fuse out of plain graphs, spelled back with graph ops so that they
// take the same kernels as an unfused export: SimplifiedLayerNormalization
// (RMSNorm), SkipSimplifiedLayerNormalization, SkipLayerNormalization, Gelu,
// BiasGelu, FastGelu, QuickGelu and BiasAdd. Their semantics are ONNX
// Runtime's CPU kernels' (onnxruntime/contrib_ops/cpu/skip_layer_norm.cc,
// layer_norm_impl.cc, bert/bias_gelu.cc, activations.h).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// RMS normalization of `x` over `axes`: returns x / sqrt(mean(x^2) +
/// epsilon) times `scale`, and sets `invRms` to 1 / sqrt(mean(x^2) +
/// epsilon) (reduced dims kept).
Value rmsNormalize(NodeImporter &n, Value x, Value scale,
                   DenseI64ArrayAttr axes, float epsilon, Value &invRms) {
  Builder &b = n.builder;
  Type element = NodeImporter::getElementType(x);
  Value meanSquare =
      n.make<ReduceMeanOp>(n.make<MulOp>(x, x), axes, b.getBoolAttr(true),
                           b.getBoolAttr(false), Value());
  Value rms = n.make<SqrtOp>(
      n.make<AddOp>(meanSquare, n.getScalarConstant(element, epsilon)));
  invRms = n.make<ReciprocalOp>(rms);
  return n.make<MulOp>(n.make<DivOp>(x, rms), scale);
}

/// SimplifiedLayerNormalization (RMSNorm): X, scale; outputs Y and, when
/// asked, inv_std_var.
LogicalResult convertSimplifiedLayerNorm(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  Value x = n.getInput(0);
  FailureOr<DenseI64ArrayAttr> axes =
      n.getTrailingAxes(x, n.getInt("axis", -1));
  if (failed(axes))
    return failure();
  Value invRms;
  Value y = rmsNormalize(n, x, n.getInput(1), *axes,
                         n.getFloat("epsilon", 1e-5f), invRms);
  return n.finish({y, invRms});
}

/// SkipLayerNormalization and SkipSimplifiedLayerNormalization: input +
/// skip (+ bias) normalized over the last dim. Outputs: the normalized sum,
/// mean (LayerNorm only), inv_std_var, and the sum itself.
template <bool Simplified> LogicalResult convertSkipLayerNorm(NodeImporter &n) {
  // input, skip, gamma, then beta (LayerNorm only) and bias.
  size_t biasIndex = Simplified ? 3 : 4;
  if (failed(n.expectInputs(3, biasIndex + 1)))
    return failure();
  Builder &b = n.builder;
  Value x = n.getInput(0), skip = n.getInput(1), gamma = n.getInput(2);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || xType.getRank() < 2 || xType.getRank() > 3)
    return n.fail("input must be 2-D or 3-D");
  Value sum = n.make<AddOp>(x, skip);
  if (Value bias = n.getInput(biasIndex))
    sum = n.make<AddOp>(sum, bias);
  float epsilon = n.getFloat("epsilon", 1e-12f);
  DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr({xType.getRank() - 1});
  auto mean = [&] {
    return n.make<ReduceMeanOp>(sum, axes, b.getBoolAttr(true),
                                b.getBoolAttr(false), Value());
  };
  if (Simplified) {
    // ONNX Runtime's kernel writes outputs 0 and 3 only; the mean of the
    // sum is given for 1, which exporters name without reading it.
    Value invRms;
    Value y = rmsNormalize(n, sum, gamma, axes, epsilon, invRms);
    return n.finish({y, mean(), invRms, sum});
  }
  Value beta = n.getInput(3);
  Value y = n.make<LayerNormOp>(sum, gamma, beta, b.getI64IntegerAttr(-1),
                                b.getF32FloatAttr(epsilon));
  Value mu = mean();
  Value centered = n.make<SubOp>(sum, mu);
  Value variance =
      n.make<ReduceMeanOp>(n.make<MulOp>(centered, centered), axes,
                           b.getBoolAttr(true), b.getBoolAttr(false), Value());
  Value invStd = n.make<ReciprocalOp>(n.make<SqrtOp>(n.make<AddOp>(
      variance,
      n.getScalarConstant(NodeImporter::getElementType(x), epsilon))));
  return n.finish({y, mu, invStd, sum});
}

/// Gelu of X (+ bias): Gelu and BiasGelu in the exact erf form, FastGelu
/// in the tanh approximation.
template <bool Tanh> LogicalResult convertGelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 2)))
    return failure();
  Value x = n.getInput(0);
  if (Value bias = n.getInput(1))
    x = n.make<AddOp>(x, bias);
  return n.finish({n.make<GeluOp>(x, n.builder.getBoolAttr(Tanh))});
}

/// QuickGelu: x * sigmoid(alpha * x).
LogicalResult convertQuickGelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Value x = n.getInput(0);
  Value alpha = n.getScalarConstant(NodeImporter::getElementType(x),
                                    n.getFloat("alpha", 1.702f));
  return n.finish(
      {n.make<MulOp>(x, n.make<SigmoidOp>(n.make<MulOp>(x, alpha)))});
}

/// BiasAdd: X + bias + skip.
LogicalResult convertBiasAdd(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.finish({n.make<AddOp>(n.make<AddOp>(n.getInput(0), n.getInput(1)),
                                 n.getInput(2))});
}
} // namespace

void mlc::onnx_import::addTransformerConverters(ConverterTable &t) {
  // ONNX Runtime defines SimplifiedLayerNormalization in the ai.onnx domain
  // (opset 1 on), which is where GenAI's model builder writes it.
  t.add("SimplifiedLayerNormalization", 1, convertSimplifiedLayerNorm);
  // ai.onnx's own RMS norm (opset 23): the same, with one output.
  t.add("RMSNormalization", 23, convertSimplifiedLayerNorm);
  t.add("com.microsoft.SimplifiedLayerNormalization", 1,
        convertSimplifiedLayerNorm);
  t.add("com.microsoft.SkipSimplifiedLayerNormalization", 1,
        convertSkipLayerNorm<true>);
  t.add("com.microsoft.SkipLayerNormalization", 1, convertSkipLayerNorm<false>);
  t.add("com.microsoft.Gelu", 1, convertGelu<false>);
  t.add("com.microsoft.BiasGelu", 1, convertGelu<false>);
  t.add("com.microsoft.FastGelu", 1, convertGelu<true>);
  t.add("com.microsoft.QuickGelu", 1, convertQuickGelu);
  t.add("com.microsoft.BiasAdd", 1, convertBiasAdd);
}
