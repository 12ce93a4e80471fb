//===- ReductionOps.cpp - Reduction ONNX ops ------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reduce* (axes as an attribute before opset 13 for ReduceSum and 18 for
// the others, as an input after) and ArgMax/ArgMin.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// `axesAsInputSince`: the opset from which axes is the optional input 1.
template <typename OpTy> ConvertFn reduce(int64_t axesAsInputSince) {
  return [axesAsInputSince](NodeImporter &n) -> LogicalResult {
    bool axesInput = n.opset >= axesAsInputSince;
    if (failed(n.expectInputs(1, axesInput ? 2 : 1)))
      return failure();
    std::optional<llvm::SmallVector<int64_t>> axes;
    Value dynamicAxes;
    if (axesInput) {
      if (n.hasInput(1)) {
        axes = n.getConstantInts(n.getInput(1));
        if (!axes && failed(n.checkRunTimeAxes(dynamicAxes = n.getInput(1))))
          return failure();
      }
    } else {
      axes = n.getInts("axes");
    }
    Builder &b = n.builder;
    return n.emit<OpTy>(
        n.getInput(0),
        axes ? b.getDenseI64ArrayAttr(*axes) : DenseI64ArrayAttr(),
        b.getBoolAttr(n.getInt("keepdims", 1) != 0),
        b.getBoolAttr(n.getInt("noop_with_empty_axes", 0) != 0), dynamicAxes);
  };
}

template <typename OpTy> LogicalResult convertArgReduce(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Builder &b = n.builder;
  return n.emit<OpTy>(n.getInput(0), b.getI64IntegerAttr(n.getInt("axis", 0)),
                      b.getBoolAttr(n.getInt("keepdims", 1) != 0),
                      b.getBoolAttr(n.getInt("select_last_index", 0) != 0));
}
} // namespace

void mlc::onnx_import::addReductionConverters(ConverterTable &t) {
  t.add("ReduceSum", 1, reduce<ReduceSumOp>(13));
  t.add("ReduceMean", 1, reduce<ReduceMeanOp>(18));
  t.add("ReduceMax", 1, reduce<ReduceMaxOp>(18));
  t.add("ReduceMin", 1, reduce<ReduceMinOp>(18));
  t.add("ReduceProd", 1, reduce<ReduceProdOp>(18));
  t.add("ReduceL2", 1, reduce<ReduceL2Op>(18));
  t.add("ReduceLogSumExp", 1, reduce<ReduceLogSumExpOp>(18));
  t.add("ReduceLogSum", 1, reduce<ReduceLogSumOp>(18));
  t.add("ReduceL1", 1, reduce<ReduceL1Op>(18));
  t.add("ReduceSumSquare", 1, reduce<ReduceSumSquareOp>(18));
  t.add("ArgMax", 1, convertArgReduce<ArgMaxOp>);
  t.add("ArgMin", 1, convertArgReduce<ArgMinOp>);
}
