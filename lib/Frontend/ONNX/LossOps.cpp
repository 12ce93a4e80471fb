//===- LossOps.cpp - ONNX loss ops as graph-op compositions ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, spelled with graph
// ops exactly as ONNX's function definitions do:
//   loss[n, d...] = -x[n, t[n, d...], d...] * w[t[n, d...]]
// with entries whose target equals `ignore_index` contributing 0 (and no
// weight), then reduction none | sum | mean (sum of losses over sum of the
// weights that were used).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// The loss of `x` (N, C, d...) against integer targets `t` (N, d...).
FailureOr<Value> buildNegativeLogLikelihood(NodeImporter &n, Value x, Value t,
                                            Value weight) {
  OpBuilder &b = n.builder;
  Type element = NodeImporter::getElementType(x);
  Type indexType = NodeImporter::getElementType(t);
  if (!isa_and_nonnull<FloatType>(element) || !indexType ||
      !indexType.isSignlessInteger()) {
    (void)n.fail("expects float scores and integer targets");
    return failure();
  }
  std::string reduction = n.getString("reduction").value_or("mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    (void)n.fail("unknown reduction '" + reduction + "'");
    return failure();
  }
  auto axis1 = b.getDenseI64ArrayAttr({1});

  // Ignored targets read class 0 and get weight 0.
  Value mask;
  if (n.getAttr("ignore_index")) {
    int64_t ignoreIndex = n.getInt("ignore_index", 0);
    unsigned bits = indexType.getIntOrFloatBitWidth();
    if (bits < 64 && !llvm::isIntN(bits, ignoreIndex)) {
      (void)n.fail("ignore_index " + llvm::Twine(ignoreIndex) +
                   " does not fit the targets' " + llvm::Twine(bits) +
                   "-bit integers");
      return failure();
    }
    Value ignore = n.getScalarConstant(indexType, double(ignoreIndex));
    FailureOr<EqualOp> eq = n.create<EqualOp>(t, ignore);
    if (failed(eq))
      return failure();
    FailureOr<NotOp> keep = n.create<NotOp>(eq->getResult());
    if (failed(keep))
      return failure();
    mask = keep->getResult();
    FailureOr<WhereOp> safe =
        n.create<WhereOp>(mask, t, n.getScalarConstant(indexType, 0));
    if (failed(safe))
      return failure();
    t = safe->getResult();
  }

  FailureOr<UnsqueezeOp> index = n.create<UnsqueezeOp>(t, axis1, Value());
  if (failed(index))
    return failure();
  FailureOr<GatherElementsOp> picked =
      n.create<GatherElementsOp>(x, index->getResult(), b.getI64IntegerAttr(1));
  if (failed(picked))
    return failure();
  FailureOr<SqueezeOp> value =
      n.create<SqueezeOp>(picked->getResult(), axis1, Value());
  if (failed(value))
    return failure();

  // Per-element weights: w[t], masked; none means 1 (or the mask).
  Value w;
  if (weight) {
    FailureOr<GatherOp> wt =
        n.create<GatherOp>(weight, t, b.getI64IntegerAttr(0));
    if (failed(wt))
      return failure();
    w = wt->getResult();
  }
  if (mask) {
    FailureOr<WhereOp> masked =
        n.create<WhereOp>(mask, w ? w : n.getScalarConstant(element, 1.0),
                          n.getScalarConstant(element, 0.0));
    if (failed(masked))
      return failure();
    w = masked->getResult();
  }
  Value weighted = value->getResult();
  if (w) {
    FailureOr<MulOp> mul = n.create<MulOp>(weighted, w);
    if (failed(mul))
      return failure();
    weighted = mul->getResult();
  }
  FailureOr<NegOp> loss = n.create<NegOp>(weighted);
  if (failed(loss))
    return failure();
  if (reduction == "none")
    return loss->getResult();

  auto sumAll = [&](Value v) -> FailureOr<Value> {
    FailureOr<ReduceSumOp> s =
        n.create<ReduceSumOp>(v, DenseI64ArrayAttr(), b.getBoolAttr(false),
                              b.getBoolAttr(false), Value());
    if (failed(s))
      return failure();
    return s->getResult();
  };
  FailureOr<Value> total = sumAll(loss->getResult());
  if (failed(total) || reduction == "sum")
    return total;
  if (!w) {
    FailureOr<ReduceMeanOp> mean = n.create<ReduceMeanOp>(
        loss->getResult(), DenseI64ArrayAttr(), b.getBoolAttr(false),
        b.getBoolAttr(false), Value());
    if (failed(mean))
      return failure();
    return mean->getResult();
  }
  FailureOr<Value> weightSum = sumAll(w);
  if (failed(weightSum))
    return failure();
  FailureOr<DivOp> mean = n.create<DivOp>(*total, *weightSum);
  if (failed(mean))
    return failure();
  return mean->getResult();
}

LogicalResult convertNegativeLogLikelihoodLoss(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  FailureOr<Value> loss = buildNegativeLogLikelihood(
      n, n.getInput(0), n.getInput(1), n.getInput(2));
  if (failed(loss))
    return failure();
  n.results.push_back(*loss);
  return success();
}

LogicalResult convertSoftmaxCrossEntropyLoss(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  FailureOr<LogSoftmaxOp> logProb =
      n.create<LogSoftmaxOp>(n.getInput(0), n.builder.getI64IntegerAttr(1));
  if (failed(logProb))
    return failure();
  FailureOr<Value> loss = buildNegativeLogLikelihood(
      n, logProb->getResult(), n.getInput(1), n.getInput(2));
  if (failed(loss))
    return failure();
  n.results.push_back(*loss);
  // The optional second output is the log-probabilities.
  if (n.node.output_size() > 1)
    n.results.push_back(logProb->getResult());
  return success();
}
} // namespace

void mlc::onnx_import::addLossConverters(ConverterTable &t) {
  t.add("NegativeLogLikelihoodLoss", 12, convertNegativeLogLikelihoodLoss);
  t.add("SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropyLoss);
}
