//===- QuantOps.cpp - Quantization ONNX ops -------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
template <typename OpTy> LogicalResult convertQDQ(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  if (n.getAttr("block_size") || n.getAttr("output_dtype"))
    return n.fail("blocked quantization and output_dtype are not supported");
  // Opset 23's precision of the scaling: only the input's own (0) or f32.
  int64_t precision = n.getInt("precision", 0);
  if (precision != 0 && precision != onnx::TensorProto::FLOAT)
    return n.fail("precision other than float is not supported");
  return n.emit<OpTy>(n.getInput(0), n.getInput(1), n.getInput(2),
                      n.builder.getI64IntegerAttr(n.getInt("axis", 1)));
}

LogicalResult convertDynamicQuantizeLinear(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  FailureOr<DynamicQuantizeLinearOp> op =
      n.create<DynamicQuantizeLinearOp>(n.getInput(0));
  if (failed(op))
    return failure();
  llvm::append_range(n.results, op->getResults());
  return success();
}

LogicalResult convertMatMulInteger(NodeImporter &n) {
  if (failed(n.expectInputs(2, 4)))
    return failure();
  return n.emit<MatMulIntegerOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                                 n.getInput(3));
}

/// Conv attributes of ConvInteger and QLinearConv.
struct ConvAttrs {
  DenseI64ArrayAttr strides, pads, dilations;
  IntegerAttr group;
  AutoPadAttr autoPad;
};

FailureOr<ConvAttrs> getConvAttrs(NodeImporter &n) {
  FailureOr<AutoPadAttr> autoPad = n.getAutoPad();
  if (failed(autoPad))
    return failure();
  return ConvAttrs{n.getI64Array("strides"), n.getPads(*autoPad),
                   n.getI64Array("dilations"),
                   n.builder.getI64IntegerAttr(n.getInt("group", 1)), *autoPad};
}

LogicalResult convertConvInteger(NodeImporter &n) {
  if (failed(n.expectInputs(2, 4)))
    return failure();
  FailureOr<ConvAttrs> a = getConvAttrs(n);
  if (failed(a))
    return failure();
  return n.emit<ConvIntegerOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                               n.getInput(3), a->strides, a->pads, a->dilations,
                               a->group, a->autoPad);
}

LogicalResult convertQLinearMatMul(NodeImporter &n) {
  if (failed(n.expectInputs(8, 8)))
    return failure();
  return n.emit<QLinearMatMulOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                                 n.getInput(3), n.getInput(4), n.getInput(5),
                                 n.getInput(6), n.getInput(7));
}

LogicalResult convertQLinearConv(NodeImporter &n) {
  if (failed(n.expectInputs(8, 9)))
    return failure();
  FailureOr<ConvAttrs> a = getConvAttrs(n);
  if (failed(a))
    return failure();
  return n.emit<QLinearConvOp>(
      n.getInput(0), n.getInput(1), n.getInput(2), n.getInput(3), n.getInput(4),
      n.getInput(5), n.getInput(6), n.getInput(7), n.getInput(8), a->strides,
      a->pads, a->dilations, a->group, a->autoPad);
}
} // namespace

void mlc::onnx_import::addQuantConverters(ConverterTable &t) {
  t.add("QuantizeLinear", 10, convertQDQ<QuantizeLinearOp>);
  t.add("DequantizeLinear", 10, convertQDQ<DequantizeLinearOp>);
  t.add("DynamicQuantizeLinear", 11, convertDynamicQuantizeLinear);
  t.add("MatMulInteger", 10, convertMatMulInteger);
  t.add("ConvInteger", 10, convertConvInteger);
  t.add("QLinearMatMul", 10, convertQLinearMatMul);
  t.add("QLinearConv", 10, convertQLinearConv);
}
