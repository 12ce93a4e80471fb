//===- NNOps.cpp - Neural-network ONNX ops --------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMul, Gemm, Conv, pooling, normalization and softmax.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
LogicalResult convertMatMul(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<MatMulOp>(n.getInput(0), n.getInput(1));
}

LogicalResult convertGemm(NodeImporter &n) {
  if (failed(n.expectInputs(n.opset < 11 ? 3 : 2, 3)))
    return failure();
  Builder &b = n.builder;
  return n.emit<GemmOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                        b.getF32FloatAttr(n.getFloat("alpha", 1.0f)),
                        b.getF32FloatAttr(n.getFloat("beta", 1.0f)),
                        b.getBoolAttr(n.getInt("transA", 0) != 0),
                        b.getBoolAttr(n.getInt("transB", 0) != 0));
}

LogicalResult convertConv(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  FailureOr<AutoPadAttr> autoPad = n.getAutoPad();
  if (failed(autoPad))
    return failure();
  if (auto kernel = n.getInts("kernel_shape")) {
    auto w = dyn_cast<RankedTensorType>(n.getInput(1).getType());
    if (w && w.getRank() == static_cast<int64_t>(kernel->size()) + 2)
      for (auto [i, k] : llvm::enumerate(*kernel))
        if (!w.isDynamicDim(i + 2) && w.getDimSize(i + 2) != k)
          return n.fail("kernel_shape disagrees with the weight's shape");
  }
  return n.emit<ConvOp>(
      n.getInput(0), n.getInput(1), n.getInput(2), n.getI64Array("strides"),
      n.getPads(*autoPad), n.getI64Array("dilations"),
      n.builder.getI64IntegerAttr(n.getInt("group", 1)), *autoPad);
}

template <typename OpTy> LogicalResult convertPool(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  FailureOr<AutoPadAttr> autoPad = n.getAutoPad();
  if (failed(autoPad))
    return failure();
  DenseI64ArrayAttr kernel = n.getI64Array("kernel_shape");
  if (!kernel)
    return n.fail("kernel_shape is required");
  Builder &b = n.builder;
  BoolAttr ceil = b.getBoolAttr(n.getInt("ceil_mode", 0) != 0);
  if constexpr (std::is_same_v<OpTy, MaxPoolOp>) {
    if (failed(n.emit<MaxPoolOp>(n.getInput(0), kernel,
                                 n.getI64Array("strides"), n.getPads(*autoPad),
                                 n.getI64Array("dilations"), ceil, *autoPad)))
      return failure();
    if (n.node.output_size() < 2 || n.node.output(1).empty())
      return success();
    int64_t storageOrder = n.getInt("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1)
      return n.fail("storage_order must be 0 or 1");
    return n.emit<MaxPoolIndicesOp>(
        n.getInput(0), kernel, n.getI64Array("strides"), n.getPads(*autoPad),
        n.getI64Array("dilations"), ceil, *autoPad,
        b.getI64IntegerAttr(storageOrder));
  } else {
    return n.emit<AveragePoolOp>(
        n.getInput(0), kernel, n.getI64Array("strides"), n.getPads(*autoPad),
        n.getI64Array("dilations"), ceil, *autoPad,
        b.getBoolAttr(n.getInt("count_include_pad", 0) != 0));
  }
}

template <typename OpTy> LogicalResult convertGlobalPool(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<OpTy>(n.getInput(0));
}

/// BatchNormalization with training_mode = 1 (opset 14+): normalizes with
/// the batch's own statistics over every dim but the channel (the
/// inference op given them as mean and variance) and returns the updated
/// running statistics, input * momentum + batch * (1 - momentum).
LogicalResult convertTrainingBatchNorm(NodeImporter &n) {
  Value x = n.getInput(0);
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 2)
    return n.fail("training mode needs an input of known rank >= 2");
  Builder &b = n.builder;
  SmallVector<int64_t> axes = {0};
  for (int64_t d = 2; d < type.getRank(); ++d)
    axes.push_back(d);
  auto mean = [&](Value v, bool keep) {
    return n.create<ReduceMeanOp>(v, b.getDenseI64ArrayAttr(axes),
                                  b.getBoolAttr(keep), b.getBoolAttr(false),
                                  Value());
  };
  FailureOr<ReduceMeanOp> batchMean = mean(x, false);
  FailureOr<ReduceMeanOp> keptMean = mean(x, true);
  if (failed(batchMean) || failed(keptMean))
    return failure();
  FailureOr<SubOp> centered = n.create<SubOp>(x, keptMean->getResult());
  if (failed(centered))
    return failure();
  FailureOr<MulOp> squared =
      n.create<MulOp>(centered->getResult(), centered->getResult());
  if (failed(squared))
    return failure();
  FailureOr<ReduceMeanOp> batchVar = mean(squared->getResult(), false);
  if (failed(batchVar))
    return failure();
  if (failed(
          n.emit<BatchNormOp>(x, n.getInput(1), n.getInput(2),
                              batchMean->getResult(), batchVar->getResult(),
                              b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f)))))
    return failure();
  Type element = type.getElementType();
  float momentum = n.getFloat("momentum", 0.9f);
  Value keep = n.getScalarConstant(element, momentum);
  Value take = n.getScalarConstant(element, 1.0f - momentum);
  for (auto [running, batch] :
       {std::pair(n.getInput(3), batchMean->getResult()),
        std::pair(n.getInput(4), batchVar->getResult())}) {
    FailureOr<MulOp> old = n.create<MulOp>(running, keep);
    FailureOr<MulOp> fresh = n.create<MulOp>(batch, take);
    if (failed(old) || failed(fresh))
      return failure();
    if (failed(n.emit<AddOp>(old->getResult(), fresh->getResult())))
      return failure();
  }
  return success();
}

LogicalResult convertBatchNorm(NodeImporter &n) {
  if (failed(n.expectInputs(5, 5)))
    return failure();
  if (n.getInt("training_mode", 0) != 0)
    return convertTrainingBatchNorm(n);
  return n.emit<BatchNormOp>(
      n.getInput(0), n.getInput(1), n.getInput(2), n.getInput(3), n.getInput(4),
      n.builder.getF32FloatAttr(n.getFloat("epsilon", 1e-5f)));
}

LogicalResult convertInstanceNorm(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<InstanceNormOp>(
      n.getInput(0), n.getInput(1), n.getInput(2),
      n.builder.getF32FloatAttr(n.getFloat("epsilon", 1e-5f)));
}

/// MeanVarianceNormalization, spelled as ONNX's function body does:
/// (x - mean(x)) / (sqrt(mean(x^2) - mean(x)^2) + 1e-9) over `axes`.
LogicalResult convertMVN(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Value x = n.getInput(0);
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    return n.fail("the input needs a known rank");
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = {0, 2, 3};
  if (const onnx::AttributeProto *attr = n.getAttr("axes"))
    axes.assign(attr->ints().begin(), attr->ints().end());
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return n.fail("axis " + llvm::Twine(a) + " is out of range for rank " +
                    llvm::Twine(rank));
    if (a < 0)
      a += rank;
  }
  Builder &b = n.builder;
  auto mean = [&](Value v) {
    return n.create<ReduceMeanOp>(v, b.getDenseI64ArrayAttr(axes),
                                  b.getBoolAttr(true), b.getBoolAttr(false),
                                  Value());
  };
  FailureOr<ReduceMeanOp> mu = mean(x);
  FailureOr<MulOp> squared = n.create<MulOp>(x, x);
  if (failed(mu) || failed(squared))
    return failure();
  FailureOr<ReduceMeanOp> meanOfSquares = mean(squared->getResult());
  FailureOr<MulOp> squaredMean =
      n.create<MulOp>(mu->getResult(), mu->getResult());
  if (failed(meanOfSquares) || failed(squaredMean))
    return failure();
  FailureOr<SubOp> variance =
      n.create<SubOp>(meanOfSquares->getResult(), squaredMean->getResult());
  if (failed(variance))
    return failure();
  FailureOr<SqrtOp> stddev = n.create<SqrtOp>(variance->getResult());
  FailureOr<SubOp> centered = n.create<SubOp>(x, mu->getResult());
  if (failed(stddev) || failed(centered))
    return failure();
  FailureOr<AddOp> denominator = n.create<AddOp>(
      stddev->getResult(), n.getScalarConstant(type.getElementType(), 1e-9));
  if (failed(denominator))
    return failure();
  return n.emit<DivOp>(centered->getResult(), denominator->getResult());
}

/// LayerNormalization. Its optional Mean and InvStdDev outputs are spelled
/// out with reductions: mean(x), 1 / sqrt(mean((x - mean)^2) + epsilon).
LogicalResult convertLayerNorm(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  if (n.getInt("stash_type", 1) != 1)
    return n.fail("stash_type other than float is not supported");
  int64_t axis = n.getInt("axis", -1);
  float epsilon = n.getFloat("epsilon", 1e-5f);
  Builder &b = n.builder;
  Value x = n.getInput(0);
  if (failed(n.emit<LayerNormOp>(x, n.getInput(1), n.getInput(2),
                                 b.getI64IntegerAttr(axis),
                                 b.getF32FloatAttr(epsilon))))
    return failure();
  bool wantsStats = n.node.output_size() > 1;
  if (!wantsStats)
    return success();
  FailureOr<DenseI64ArrayAttr> trailing = n.getTrailingAxes(x, axis);
  if (failed(trailing))
    return failure();
  DenseI64ArrayAttr axes = *trailing;
  auto type = cast<RankedTensorType>(x.getType());
  auto mean = [&](Value v) {
    return n.create<ReduceMeanOp>(v, axes, b.getBoolAttr(true),
                                  b.getBoolAttr(false), Value());
  };
  FailureOr<ReduceMeanOp> mu = mean(x);
  if (failed(mu))
    return failure();
  FailureOr<SubOp> centered = n.create<SubOp>(x, mu->getResult());
  if (failed(centered))
    return failure();
  FailureOr<MulOp> squared =
      n.create<MulOp>(centered->getResult(), centered->getResult());
  if (failed(squared))
    return failure();
  FailureOr<ReduceMeanOp> variance = mean(squared->getResult());
  if (failed(variance))
    return failure();
  Value eps = n.getScalarConstant(type.getElementType(), epsilon);
  FailureOr<AddOp> shifted = n.create<AddOp>(variance->getResult(), eps);
  if (failed(shifted))
    return failure();
  FailureOr<SqrtOp> stddev = n.create<SqrtOp>(shifted->getResult());
  if (failed(stddev))
    return failure();
  n.results.push_back(mu->getResult());
  return n.emit<ReciprocalOp>(stddev->getResult());
}

/// Softmax and LogSoftmax. From opset 13 they work along one axis; before,
/// the input is coerced to 2-D at `axis` (default 1) and normalized along
/// the second dim, which is flatten, softmax on axis 1, reshape back.
template <typename OpTy> LogicalResult convertSoftmax(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Value input = n.getInput(0);
  if (n.opset >= 13)
    return n.emit<OpTy>(input,
                        n.builder.getI64IntegerAttr(n.getInt("axis", -1)));
  int64_t axis = n.getInt("axis", 1);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (type && (axis == type.getRank() - 1 || axis == -1))
    return n.emit<OpTy>(input, n.builder.getI64IntegerAttr(-1));
  FailureOr<FlattenOp> flat =
      n.create<FlattenOp>(input, n.builder.getI64IntegerAttr(axis));
  if (failed(flat))
    return failure();
  FailureOr<OpTy> soft =
      n.create<OpTy>(flat->getResult(), n.builder.getI64IntegerAttr(1));
  if (failed(soft))
    return failure();
  FailureOr<ShapeOp> shape =
      n.create<ShapeOp>(input, n.builder.getI64IntegerAttr(0), IntegerAttr());
  if (failed(shape))
    return failure();
  return n.emit<ReshapeOp>(soft->getResult(), shape->getResult(),
                           n.builder.getBoolAttr(false));
}
LogicalResult convertConvTranspose(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  FailureOr<AutoPadAttr> autoPad = n.getAutoPad();
  if (failed(autoPad))
    return failure();
  return n.emit<ConvTransposeOp>(
      n.getInput(0), n.getInput(1), n.getInput(2), n.getI64Array("strides"),
      n.getPads(*autoPad), n.getI64Array("dilations"),
      n.getI64Array("output_padding"), n.getI64Array("output_shape"),
      n.builder.getI64IntegerAttr(n.getInt("group", 1)), *autoPad);
}
} // namespace

void mlc::onnx_import::addNNConverters(ConverterTable &t) {
  t.add("MatMul", 1, convertMatMul);
  t.add("MeanVarianceNormalization", 9, convertMVN);
  t.add("Gemm", 7, convertGemm);
  t.add("Conv", 1, convertConv);
  t.add("MaxPool", 1, convertPool<MaxPoolOp>);
  t.add("AveragePool", 1, convertPool<AveragePoolOp>);
  t.add("GlobalAveragePool", 1, convertGlobalPool<GlobalAveragePoolOp>);
  t.add("GlobalMaxPool", 1, convertGlobalPool<GlobalMaxPoolOp>);
  t.add("BatchNormalization", 7, convertBatchNorm);
  // Standard from opset 17; ONNX Runtime also defines it, with the same
  // semantics, in the ai.onnx domain from opset 1, and its transformer
  // optimizer writes it into models of older opsets.
  t.add("LayerNormalization", 1, convertLayerNorm);
  t.add("InstanceNormalization", 6, convertInstanceNorm);
  t.add("Softmax", 1, convertSoftmax<SoftmaxOp>);
  t.add("LogSoftmax", 1, convertSoftmax<LogSoftmaxOp>);
  t.add("Hardmax", 1, convertSoftmax<HardmaxOp>);
  t.add("ConvTranspose", 1, convertConvTranspose);
}
