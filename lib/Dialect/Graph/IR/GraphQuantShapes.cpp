//===- GraphQuantShapes.cpp - Shape functions of quantization ops ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// A scale or zero point is a scalar (per tensor) or 1-D of the size of
/// `input`'s dim `axis` (per axis).
LogicalResult checkQuantParam(OptLoc loc, StringRef opName, StringRef what,
                              Value param, Value input, int64_t axis) {
  if (!param)
    return success();
  auto p = getTensorShape(param);
  auto x = getTensorShape(input);
  if (!p || getNumElements(*p) == std::optional<int64_t>(1))
    return success();
  if (p->size() != 1)
    return shapeError(loc, opName, what, " must be a scalar or 1-D, got ",
                      formatShape(*p));
  if (!x)
    return success();
  auto a = normalizeAxis(axis, x->size());
  if (!a)
    return shapeError(loc, opName, a.takeError());
  int64_t dim = (*x)[*a];
  if (!ShapedType::isDynamic(dim) && !ShapedType::isDynamic((*p)[0]) &&
      dim != (*p)[0])
    return shapeError(loc, opName, what, " has ", (*p)[0], " entries but axis ",
                      axis, " has size ", dim);
  return success();
}
} // namespace

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                                 Adaptor adaptor,
                                                 Types &types) {
  StringRef name = getOperationName();
  int64_t axis = adaptor.getAxis();
  if (failed(checkQuantParam(loc, name, "scale", adaptor.getScale(),
                             adaptor.getInput(), axis)) ||
      failed(checkQuantParam(loc, name, "zero_point", adaptor.getZeroPoint(),
                             adaptor.getInput(), axis)))
    return failure();
  Type element = adaptor.getZeroPoint()
                     ? getElementType(adaptor.getZeroPoint())
                     : IntegerType::get(ctx, 8, IntegerType::Unsigned);
  auto type = cast<TensorType>(adaptor.getInput().getType());
  types.push_back(type.clone(element));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                   Adaptor adaptor,
                                                   Types &types) {
  StringRef name = getOperationName();
  int64_t axis = adaptor.getAxis();
  if (adaptor.getZeroPoint() && getElementType(adaptor.getZeroPoint()) !=
                                    getElementType(adaptor.getInput()))
    return shapeError(loc, name, "zero_point and input differ in type");
  if (failed(checkQuantParam(loc, name, "scale", adaptor.getScale(),
                             adaptor.getInput(), axis)) ||
      failed(checkQuantParam(loc, name, "zero_point", adaptor.getZeroPoint(),
                             adaptor.getInput(), axis)))
    return failure();
  auto type = cast<TensorType>(adaptor.getInput().getType());
  types.push_back(type.clone(getElementType(adaptor.getScale())));
  return success();
}

LogicalResult DynamicQuantizeLinearOp::inferReturnTypes(MLIRContext *ctx,
                                                        OptLoc, Adaptor adaptor,
                                                        Types &types) {
  Type u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  auto type = cast<TensorType>(adaptor.getInput().getType());
  types.push_back(type.clone(u8));
  types.push_back(RankedTensorType::get({}, Float32Type::get(ctx)));
  types.push_back(RankedTensorType::get({}, u8));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                                Adaptor adaptor, Types &types) {
  return inferMatMulShape(loc, getOperationName(), adaptor.getLhs(),
                          adaptor.getRhs(), IntegerType::get(ctx, 32), types);
}

LogicalResult QLinearMatMulOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                Adaptor adaptor, Types &types) {
  return inferMatMulShape(loc, getOperationName(), adaptor.getLhs(),
                          adaptor.getRhs(),
                          getElementType(adaptor.getOutputZeroPoint()), types);
}

LogicalResult ConvIntegerOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                              Adaptor adaptor, Types &types) {
  return inferConvShape(loc, getOperationName(), adaptor.getInput(),
                        adaptor.getWeight(), Value(), adaptor.getStrides(),
                        adaptor.getPads(), adaptor.getDilations(),
                        adaptor.getGroup(), adaptor.getAutoPad(),
                        IntegerType::get(ctx, 32), types);
}

LogicalResult QLinearConvOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                              Adaptor adaptor, Types &types) {
  return inferConvShape(
      loc, getOperationName(), adaptor.getInput(), adaptor.getWeight(),
      adaptor.getBias(), adaptor.getStrides(), adaptor.getPads(),
      adaptor.getDilations(), adaptor.getGroup(), adaptor.getAutoPad(),
      getElementType(adaptor.getOutputZeroPoint()), types);
}
