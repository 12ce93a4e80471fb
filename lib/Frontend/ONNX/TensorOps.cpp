//===- TensorOps.cpp - Data-movement ONNX ops -----------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Constant, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Slice,
// Gather, Pad, Expand and Shape, in every attribute-vs-input form from
// opset 7 on.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
LogicalResult convertConstant(NodeImporter &n) {
  if (failed(n.expectInputs(0, 0)))
    return failure();
  if (n.node.attribute_size() != 1)
    return n.fail("expects exactly one value attribute");
  const onnx::AttributeProto &attr = n.node.attribute(0);
  Builder &b = n.builder;
  ElementsAttr value;
  llvm::StringRef name = attr.name();
  if (name == "value") {
    auto tensor = importTensor(attr.t(), b.getContext(), n.modelDir,
                               n.maxTensorBytes);
    if (!tensor)
      return n.fail("value " + llvm::toString(tensor.takeError()));
    value = *tensor;
  } else if (name == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   attr.f());
  } else if (name == "value_floats") {
    llvm::SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()),
        llvm::ArrayRef<float>(v));
  } else if (name == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   static_cast<int64_t>(attr.i()));
  } else if (name == "value_ints") {
    llvm::SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()),
        llvm::ArrayRef<int64_t>(v));
  } else {
    return n.fail("attribute '" + name + "' is not supported");
  }
  return n.emit<ConstantOp>(value);
}

/// EyeLike: ones on diagonal k of a 2-D shape, zeros elsewhere. The result
/// depends only on the (static) input shape, so it is a constant.
LogicalResult convertEyeLike(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  auto type = dyn_cast<RankedTensorType>(n.getInput(0).getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape())
    return n.fail("the input must be 2-D with a static shape");
  Type element = type.getElementType();
  if (const onnx::AttributeProto *dtype = n.getAttr("dtype")) {
    element = getElementType(n.builder.getContext(), dtype->i());
    if (!element)
      return n.fail("unsupported dtype " + getDataTypeName(dtype->i()));
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t k = n.getInt("k", 0);
  auto result = RankedTensorType::get({rows, cols}, element);
  SmallVector<Attribute> values;
  values.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double v = j - i == k ? 1.0 : 0.0;
      if (isa<FloatType>(element))
        values.push_back(n.builder.getFloatAttr(element, v));
      else if (element.isInteger(1))
        values.push_back(n.builder.getBoolAttr(v != 0));
      else if (isa<IntegerType>(element))
        values.push_back(n.builder.getIntegerAttr(
            element,
            APInt(element.getIntOrFloatBitWidth(), static_cast<uint64_t>(v))));
      else
        return n.fail("unsupported dtype");
    }
  return n.emit<ConstantOp>(DenseElementsAttr::get(result, values));
}

LogicalResult convertReshape(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<ReshapeOp>(
      n.getInput(0), n.getInput(1),
      n.builder.getBoolAttr(n.getInt("allowzero", 0) != 0));
}

LogicalResult convertFlatten(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<FlattenOp>(n.getInput(0),
                           n.builder.getI64IntegerAttr(n.getInt("axis", 1)));
}

/// Squeeze/Unsqueeze axes: an attribute before opset 13, input 1 after,
/// which is either a constant (`axes`) or computed (`dynamic`).
LogicalResult getAxes(NodeImporter &n,
                      std::optional<llvm::SmallVector<int64_t>> &axes,
                      Value &dynamic) {
  if (n.opset < 13) {
    axes = n.getInts("axes");
    return success();
  }
  if (!n.hasInput(1))
    return success();
  axes = n.getConstantInts(n.getInput(1));
  if (axes)
    return success();
  dynamic = n.getInput(1);
  return n.checkRunTimeAxes(dynamic);
}

LogicalResult convertSqueeze(NodeImporter &n) {
  if (failed(n.expectInputs(1, n.opset < 13 ? 1 : 2)))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> axes;
  Value dynamic;
  if (failed(getAxes(n, axes, dynamic)))
    return failure();
  return n.emit<SqueezeOp>(n.getInput(0),
                           axes ? n.builder.getDenseI64ArrayAttr(*axes)
                                : DenseI64ArrayAttr(),
                           dynamic);
}

LogicalResult convertUnsqueeze(NodeImporter &n) {
  if (failed(n.expectInputs(n.opset < 13 ? 1 : 2, n.opset < 13 ? 1 : 2)))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> axes;
  Value dynamic;
  if (failed(getAxes(n, axes, dynamic)))
    return failure();
  if (!axes && !dynamic)
    return n.fail("axes is required");
  return n.emit<UnsqueezeOp>(n.getInput(0),
                             axes ? n.builder.getDenseI64ArrayAttr(*axes)
                                  : DenseI64ArrayAttr(),
                             dynamic);
}

LogicalResult convertTranspose(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  auto perm = n.getInts("perm");
  return n.emit<TransposeOp>(n.getInput(0),
                             perm ? n.builder.getDenseI64ArrayAttr(*perm)
                                  : DenseI64ArrayAttr());
}

LogicalResult convertConcat(NodeImporter &n) {
  if (failed(n.expectInputs(1, SIZE_MAX)))
    return failure();
  if (!n.getAttr("axis"))
    return n.fail("axis is required");
  llvm::SmallVector<Value> inputs;
  for (size_t i = 0; i < n.getNumInputs(); ++i) {
    if (!n.hasInput(i))
      return n.fail("input " + llvm::Twine(i) + " is absent");
    inputs.push_back(n.getInput(i));
  }
  return n.emit<ConcatOp>(ValueRange(inputs),
                          n.builder.getI64IntegerAttr(n.getInt("axis", 0)));
}

LogicalResult convertSlice(NodeImporter &n) {
  if (n.opset < 10) {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    auto starts = n.getInts("starts"), ends = n.getInts("ends");
    if (!starts || !ends)
      return n.fail("starts and ends are required");
    auto axes = n.getInts("axes");
    return n.emit<SliceOp>(n.getInput(0), n.getI64Constant(*starts),
                           n.getI64Constant(*ends),
                           axes ? n.getI64Constant(*axes) : Value(), Value());
  }
  if (failed(n.expectInputs(3, 5)))
    return failure();
  return n.emit<SliceOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                         n.getInput(3), n.getInput(4));
}

/// Split with sizes computed at run time: output i is the Slice between
/// the sums of the first i and i + 1 sizes (ReduceSum of Slices of
/// `split`, which constant evaluation folds once `split` is known).
LogicalResult splitAtRunTime(NodeImporter &n, Value input, int64_t axis,
                             Value split) {
  auto splitType = dyn_cast<RankedTensorType>(split.getType());
  if (!splitType || splitType.getRank() != 1 ||
      !splitType.getElementType().isInteger(64))
    return n.fail("split must be a 1-D int64 tensor");
  int64_t outputs = n.node.output_size();
  if (!splitType.isDynamicDim(0) && splitType.getDimSize(0) != outputs)
    return n.fail("has " + llvm::Twine(outputs) + " outputs but " +
                  llvm::Twine(splitType.getDimSize(0)) + " split sizes");
  Builder &b = n.builder;
  Value zero = n.getI64Constant({0}), axes = n.getI64Constant({axis});
  Value start = zero;
  for (int64_t i = 1; i <= outputs; ++i) {
    FailureOr<SliceOp> head =
        n.create<SliceOp>(split, zero, n.getI64Constant({i}), Value(), Value());
    if (failed(head))
      return failure();
    FailureOr<ReduceSumOp> end = n.create<ReduceSumOp>(
        head->getResult(), DenseI64ArrayAttr(), b.getBoolAttr(true),
        b.getBoolAttr(false), Value());
    if (failed(end) ||
        failed(n.emit<SliceOp>(input, start, end->getResult(), axes, Value())))
      return failure();
    start = end->getResult();
  }
  return success();
}

/// Split becomes one Slice per output. The sizes come from the `split`
/// attribute (before opset 13) or input, or divide the axis evenly, which
/// then must be static.
LogicalResult convertSplit(NodeImporter &n) {
  if (failed(n.expectInputs(1, n.opset < 13 ? 1 : 2)))
    return failure();
  Value input = n.getInput(0);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return n.fail("input of unknown rank is not supported");
  int64_t rank = type.getRank(), axis = n.getInt("axis", 0);
  if (axis < -rank || axis >= rank)
    return n.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  std::optional<llvm::SmallVector<int64_t>> sizes;
  int64_t outputs = n.node.output_size();
  if (n.opset < 13) {
    sizes = n.getInts("split");
  } else if (n.hasInput(1)) {
    sizes = n.getConstantInts(n.getInput(1));
    if (!sizes)
      return splitAtRunTime(n, input, axis, n.getInput(1));
  }
  int64_t dim = type.getDimSize(axis);
  if (!sizes) {
    if (ShapedType::isDynamic(dim))
      return n.fail("an even split of a dynamic dim is not supported");
    int64_t parts = n.getInt("num_outputs", outputs);
    if (parts <= 0)
      return n.fail("num_outputs must be positive");
    int64_t chunk = (dim + parts - 1) / parts;
    sizes.emplace();
    for (int64_t start = 0; start < dim || sizes->empty(); start += chunk)
      sizes->push_back(std::min(chunk, dim - start));
  }
  if (static_cast<int64_t>(sizes->size()) != outputs)
    return n.fail("has " + llvm::Twine(outputs) + " outputs but " +
                  llvm::Twine(sizes->size()) + " split sizes");
  int64_t start = 0;
  for (int64_t size : *sizes) {
    if (size < 0)
      return n.fail("split size " + llvm::Twine(size) + " is negative");
    if (failed(n.emit<SliceOp>(input, n.getI64Constant({start}),
                               n.getI64Constant({start + size}),
                               n.getI64Constant({axis}), Value())))
      return failure();
    start += size;
  }
  if (!ShapedType::isDynamic(dim) && start != dim)
    return n.fail("split sizes add up to " + llvm::Twine(start) +
                  " but the axis has size " + llvm::Twine(dim));
  return success();
}

LogicalResult convertGather(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<GatherOp>(n.getInput(0), n.getInput(1),
                          n.builder.getI64IntegerAttr(n.getInt("axis", 0)));
}

LogicalResult convertPad(NodeImporter &n) {
  std::string modeText = n.getString("mode").value_or("constant");
  PadMode mode;
  if (modeText == "constant")
    mode = PadMode::Constant;
  else if (modeText == "reflect")
    mode = PadMode::Reflect;
  else if (modeText == "edge")
    mode = PadMode::Edge;
  else if (modeText == "wrap" && n.opset >= 19)
    mode = PadMode::Wrap;
  else
    return n.fail("unknown pad mode '" + modeText + "'");
  auto modeAttr = PadModeAttr::get(n.builder.getContext(), mode);
  if (n.opset < 11) {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    auto pads = n.getInts("pads");
    if (!pads)
      return n.fail("pads is required");
    Value value = n.getScalarConstant(
        NodeImporter::getElementType(n.getInput(0)), n.getFloat("value", 0.0f));
    return n.emit<PadOp>(n.getInput(0), n.getI64Constant(*pads), value,
                         modeAttr);
  }
  if (failed(n.expectInputs(2, 4)))
    return failure();
  if (n.hasInput(3))
    return n.fail("the axes input is not supported");
  return n.emit<PadOp>(n.getInput(0), n.getInput(1), n.getInput(2), modeAttr);
}

LogicalResult convertExpand(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<ExpandOp>(n.getInput(0), n.getInput(1));
}

LogicalResult convertShape(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  const onnx::AttributeProto *end = n.getAttr("end");
  return n.emit<ShapeOp>(
      n.getInput(0), n.builder.getI64IntegerAttr(n.getInt("start", 0)),
      end ? n.builder.getI64IntegerAttr(end->i()) : IntegerAttr());
}
} // namespace

void mlc::onnx_import::addTensorConverters(ConverterTable &t) {
  t.add("Constant", 1, convertConstant);
  t.add("EyeLike", 9, convertEyeLike);
  t.add("Reshape", 5, convertReshape);
  t.add("Flatten", 1, convertFlatten);
  t.add("Squeeze", 1, convertSqueeze);
  t.add("Unsqueeze", 1, convertUnsqueeze);
  t.add("Transpose", 1, convertTranspose);
  t.add("Concat", 4, convertConcat);
  t.add("Slice", 1, convertSlice);
  t.add("Split", 2, convertSplit);
  t.add("Gather", 1, convertGather);
  t.add("Pad", 2, convertPad);
  t.add("Expand", 8, convertExpand);
  t.add("Shape", 1, convertShape);
}
