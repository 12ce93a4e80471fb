//===- GeneratorOps.cpp - Generator, indexing and resize ONNX ops ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ConstantOfShape, Range, OneHot, Size, GatherElements, ScatterElements,
// Trilu, Tile, CumSum, TopK, DepthToSpace, SpaceToDepth, Resize/Upsample.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
LogicalResult convertConstantOfShape(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  ElementsAttr value;
  if (const onnx::AttributeProto *attr = n.getAttr("value")) {
    auto tensor = importTensor(attr->t(), n.builder.getContext(), n.modelDir,
                               n.maxTensorBytes);
    if (!tensor)
      return n.fail("value " + llvm::toString(tensor.takeError()));
    value = *tensor;
  }
  return n.emit<ConstantOfShapeOp>(n.getInput(0), value);
}

LogicalResult convertRange(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<RangeOp>(n.getInput(0), n.getInput(1), n.getInput(2));
}

LogicalResult convertOneHot(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<OneHotOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                          n.builder.getI64IntegerAttr(n.getInt("axis", -1)));
}

/// Size is the product of Shape.
LogicalResult convertSize(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  FailureOr<ShapeOp> shape = n.create<ShapeOp>(
      n.getInput(0), n.builder.getI64IntegerAttr(0), IntegerAttr());
  if (failed(shape))
    return failure();
  return n.emit<ReduceProdOp>(shape->getResult(), DenseI64ArrayAttr(),
                              n.builder.getBoolAttr(false),
                              n.builder.getBoolAttr(false), Value());
}

LogicalResult convertGatherElements(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<GatherElementsOp>(
      n.getInput(0), n.getInput(1),
      n.builder.getI64IntegerAttr(n.getInt("axis", 0)));
}

LogicalResult convertScatterElements(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<ScatterElementsOp>(
      n.getInput(0), n.getInput(1), n.getInput(2),
      n.builder.getI64IntegerAttr(n.getInt("axis", 0)),
      n.builder.getStringAttr(n.getString("reduction").value_or("none")));
}

LogicalResult convertTrilu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 2)))
    return failure();
  return n.emit<TriluOp>(n.getInput(0), n.getInput(1),
                         n.builder.getBoolAttr(n.getInt("upper", 1) != 0));
}

LogicalResult convertTile(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<TileOp>(n.getInput(0), n.getInput(1));
}

LogicalResult convertCumSum(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<CumSumOp>(n.getInput(0), n.getInput(1),
                          n.builder.getBoolAttr(n.getInt("exclusive", 0) != 0),
                          n.builder.getBoolAttr(n.getInt("reverse", 0) != 0));
}

LogicalResult convertReverseSequence(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<ReverseSequenceOp>(
      n.getInput(0), n.getInput(1),
      n.builder.getI64IntegerAttr(n.getInt("batch_axis", 1)),
      n.builder.getI64IntegerAttr(n.getInt("time_axis", 0)));
}

LogicalResult convertTopK(NodeImporter &n) {
  Value k;
  if (n.opset < 10) {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    k = n.getI64Constant({n.getInt("k", 0)});
  } else {
    if (failed(n.expectInputs(2, 2)))
      return failure();
    k = n.getInput(1);
  }
  FailureOr<TopKOp> op = n.create<TopKOp>(
      n.getInput(0), k, n.builder.getI64IntegerAttr(n.getInt("axis", -1)),
      n.builder.getBoolAttr(n.getInt("largest", 1) != 0),
      n.builder.getBoolAttr(n.getInt("sorted", 1) != 0));
  if (failed(op))
    return failure();
  n.results.push_back(op->getValues());
  n.results.push_back(op->getIndices());
  return success();
}

LogicalResult convertDepthToSpace(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<DepthToSpaceOp>(
      n.getInput(0), n.builder.getI64IntegerAttr(n.getInt("blocksize", 0)),
      n.builder.getStringAttr(n.getString("mode").value_or("DCR")));
}

LogicalResult convertSpaceToDepth(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<SpaceToDepthOp>(
      n.getInput(0), n.builder.getI64IntegerAttr(n.getInt("blocksize", 0)));
}

/// Resize's opset-18 `axes`: scales or sizes given for some axes only become
/// full-rank constants (scale 1 and the input's own size elsewhere), the
/// form the graph op takes. Needs constant scales or sizes and the input's
/// rank (and its sizes on the other axes, for sizes).
LogicalResult expandResizeAxes(NodeImporter &n, Value &roi, Value &scales,
                               Value &sizes) {
  auto type = dyn_cast<RankedTensorType>(n.getInput(0).getType());
  if (!type)
    return n.fail("the axes attribute needs an input of known rank");
  int64_t rank = type.getRank();
  auto attr = n.getAttr("axes");
  SmallVector<int64_t> axes(attr->ints().begin(), attr->ints().end());
  SmallVector<bool> seen(rank, false);
  for (int64_t &axis : axes) {
    if (axis < -rank || axis >= rank)
      return n.fail("axis " + Twine(axis) + " is out of range for rank " +
                    Twine(rank));
    axis = axis < 0 ? axis + rank : axis;
    if (seen[axis])
      return n.fail("axis " + Twine(axis) + " appears twice in axes");
    seen[axis] = true;
  }
  Builder &b = n.builder;
  if (roi && n.getString("coordinate_transformation_mode").value_or("") ==
                 "tf_crop_and_resize") {
    DenseFPElementsAttr given;
    if (!matchPattern(roi, m_Constant(&given)) ||
        given.getNumElements() != 2 * static_cast<int64_t>(axes.size()))
      return n.fail("the axes attribute needs a constant roi of 2 values "
                    "per axis");
    SmallVector<float> full(rank, 0.0f);
    full.append(rank, 1.0f);
    SmallVector<float> values;
    for (const APFloat &v : given.getValues<APFloat>())
      values.push_back(static_cast<float>(v.convertToDouble()));
    for (auto [i, axis] : llvm::enumerate(axes)) {
      full[axis] = values[i];
      full[rank + axis] = values[axes.size() + i];
    }
    auto roiType = RankedTensorType::get({2 * rank}, b.getF32Type());
    roi = ConstantOp::create(n.builder, n.loc, roiType,
                             cast<ElementsAttr>(DenseElementsAttr::get(
                                 roiType, ArrayRef<float>(full))));
  }
  if (sizes) {
    auto given = n.getConstantInts(sizes);
    if (!given)
      return n.fail("the axes attribute needs constant sizes");
    if (given->size() != axes.size())
      return n.fail("sizes has " + Twine(given->size()) + " values for " +
                    Twine(axes.size()) + " axes");
    SmallVector<int64_t> full(type.getShape());
    for (auto [i, axis] : llvm::enumerate(axes))
      full[axis] = (*given)[i];
    for (int64_t d : full)
      if (ShapedType::isDynamic(d))
        return n.fail("the axes attribute needs the input's sizes on the "
                      "other axes");
    sizes = n.getI64Constant(full);
    return success();
  }
  DenseFPElementsAttr given;
  if (!scales || !matchPattern(scales, m_Constant(&given)))
    return n.fail("the axes attribute needs constant scales");
  if (given.getNumElements() != static_cast<int64_t>(axes.size()))
    return n.fail("scales has " + Twine(given.getNumElements()) +
                  " values for " + Twine(axes.size()) + " axes");
  SmallVector<float> full(rank, 1.0f);
  for (auto [i, value] : llvm::enumerate(given.getValues<APFloat>()))
    full[axes[i]] = static_cast<float>(value.convertToDouble());
  auto fullType = RankedTensorType::get({rank}, b.getF32Type());
  scales = ConstantOp::create(n.builder, n.loc, fullType,
                              cast<ElementsAttr>(DenseElementsAttr::get(
                                  fullType, ArrayRef<float>(full))));
  return success();
}

/// Opset 18's keep_aspect_ratio_policy on constant `sizes` (already one per
/// dim): the resized axes (those of the axes attribute, else all) take one
/// scale, the smallest (not_larger) or largest (not_smaller) of
/// sizes / input, and the output size round_half_up(scale * input), as the
/// ONNX reference computes them. `sizes` becomes those output sizes and
/// `sizesScales` the scale of every axis for the coordinate transformation.
LogicalResult keepAspectRatio(NodeImporter &n, bool notLarger, Value &sizes,
                              DenseF64ArrayAttr &sizesScales) {
  auto type = dyn_cast<RankedTensorType>(n.getInput(0).getType());
  auto given = n.getConstantInts(sizes);
  if (!type || !type.hasStaticShape() || !given ||
      given->size() != static_cast<size_t>(type.getRank()))
    return n.fail("keep_aspect_ratio_policy needs constant sizes and an "
                  "input of static shape");
  int64_t rank = type.getRank();
  SmallVector<bool> resized(rank, true);
  if (auto axes = n.getAttr("axes")) {
    resized.assign(rank, false);
    for (int64_t axis : axes->ints())
      resized[axis < 0 ? axis + rank : axis] = true;
  }
  std::optional<double> scale;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resized[d])
      continue;
    if (type.getDimSize(d) == 0)
      return n.fail("keep_aspect_ratio_policy on an empty axis");
    double s = static_cast<double>((*given)[d]) / type.getDimSize(d);
    if (!scale || (notLarger ? s < *scale : s > *scale))
      scale = s;
  }
  SmallVector<int64_t> out(type.getShape());
  SmallVector<double> scales(rank, 1.0);
  for (int64_t d = 0; d < rank; ++d)
    if (resized[d] && scale) {
      scales[d] = *scale;
      out[d] = static_cast<int64_t>(*scale * type.getDimSize(d) + 0.5);
    }
  sizes = n.getI64Constant(out);
  sizesScales = n.builder.getDenseF64ArrayAttr(scales);
  return success();
}

/// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and the older
/// Upsample (scales as an attribute at opset 7, an input at 9).
LogicalResult convertResize(NodeImporter &n) {
  bool upsample = n.node.op_type() == "Upsample";
  Value roi, scales, sizes;
  if (upsample && n.opset < 9) {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    auto values = n.getAttr("scales");
    if (!values)
      return n.fail("scales is required");
    llvm::SmallVector<float> v(values->floats().begin(),
                               values->floats().end());
    auto type = RankedTensorType::get({static_cast<int64_t>(v.size())},
                                      n.builder.getF32Type());
    scales = ConstantOp::create(n.builder, n.loc, type,
                                cast<ElementsAttr>(DenseElementsAttr::get(
                                    type, llvm::ArrayRef<float>(v))));
  } else if (upsample || n.opset < 11) {
    if (failed(n.expectInputs(2, 2)))
      return failure();
    scales = n.getInput(1);
  } else {
    if (failed(n.expectInputs(1, 4)))
      return failure();
    roi = n.getInput(1);
    scales = n.getInput(2);
    sizes = n.getInput(3);
    // An empty scales tensor next to sizes means "use sizes".
    if (sizes && scales) {
      auto type = dyn_cast<RankedTensorType>(scales.getType());
      if (type && type.getNumElements() == 0)
        scales = Value();
    }
  }
  std::string mode = n.getString("mode").value_or("nearest");
  if (mode == "bilinear" || mode == "trilinear")
    mode = "linear";
  std::string transform =
      n.getString("coordinate_transformation_mode")
          .value_or(n.opset < 11 ? "asymmetric" : "half_pixel");
  bool antialias = n.getInt("antialias", 0) != 0;
  if (antialias && mode == "nearest")
    return n.fail("antialias = 1 needs mode linear or cubic");
  if (n.getAttr("axes") && failed(expandResizeAxes(n, roi, scales, sizes)))
    return failure();
  DenseF64ArrayAttr sizesScales;
  std::string policy =
      n.getString("keep_aspect_ratio_policy").value_or("stretch");
  if (policy != "stretch") {
    if (policy != "not_larger" && policy != "not_smaller")
      return n.fail("unknown keep_aspect_ratio_policy '" + policy + "'");
    if (sizes &&
        failed(keepAspectRatio(n, policy == "not_larger", sizes, sizesScales)))
      return failure();
  }
  Builder &b = n.builder;
  return n.emit<ResizeOp>(
      n.getInput(0), roi, scales, sizes, b.getStringAttr(mode),
      b.getStringAttr(transform),
      b.getStringAttr(
          n.getString("nearest_mode")
              .value_or(n.opset < 11 ? "floor" : "round_prefer_floor")),
      b.getF32FloatAttr(n.getFloat("cubic_coeff_a", -0.75f)),
      b.getBoolAttr(n.getInt("exclude_outside", 0) != 0),
      b.getF32FloatAttr(n.getFloat("extrapolation_value", 0.0f)),
      b.getBoolAttr(antialias), sizesScales);
}
} // namespace

void mlc::onnx_import::addGeneratorConverters(ConverterTable &t) {
  t.add("ConstantOfShape", 9, convertConstantOfShape);
  t.add("Range", 11, convertRange);
  t.add("OneHot", 9, convertOneHot);
  t.add("Size", 1, convertSize);
  t.add("GatherElements", 11, convertGatherElements);
  t.add("ScatterElements", 11, convertScatterElements);
  t.add("Trilu", 14, convertTrilu);
  t.add("Tile", 6, convertTile);
  t.add("CumSum", 11, convertCumSum);
  t.add("ReverseSequence", 10, convertReverseSequence);
  t.add("TopK", 1, convertTopK);
  t.add("DepthToSpace", 1, convertDepthToSpace);
  t.add("SpaceToDepth", 1, convertSpaceToDepth);
  t.add("Resize", 10, convertResize);
  t.add("Upsample", 7, convertResize);
}
