//===- SelectionOps.cpp - ONNX ops sized by values ------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compress, Unique, NonMaxSuppression, StringNormalizer, STFT and
// MelWeightMatrix become their graph ops; MaxUnpool becomes a ScatterElements
// into zeros, and the window functions (Hann, Hamming, Blackman) their cosine
// sums over a Range, as ONNX defines them, so both lower wherever their sizes
// are constants.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

#include <cmath>

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// The ONNX `output_datatype` attribute (default float) as an MLIR type.
FailureOr<Type> getOutputDatatype(NodeImporter &n) {
  int64_t datatype = n.getInt("output_datatype", 1);
  Type type = getElementType(n.builder.getContext(), datatype);
  if (!type || !(isa<FloatType>(type) || type.isSignlessInteger()) ||
      type.isInteger(1)) {
    (void)n.fail("output_datatype " + getDataTypeName(datatype) +
                 " is not a numeric type");
    return failure();
  }
  return type;
}

/// `Op(lhs, rhs)` for a broadcasting binary graph op; null on failure.
template <typename OpTy> Value binary(NodeImporter &n, Value lhs, Value rhs) {
  FailureOr<OpTy> op = n.create<OpTy>(lhs, rhs);
  return failed(op) ? Value() : op->getResult();
}

/// `input` converted to `element`, keeping its shape.
Value castTo(NodeImporter &n, Value input, Type element) {
  auto type = cast<TensorType>(input.getType());
  if (type.getElementType() == element)
    return input;
  return CastOp::create(n.builder, n.loc, type.clone(element), input);
}

/// `input` reshaped to `shape` (a 1-D i64 value).
Value reshape(NodeImporter &n, Value input, Value shape) {
  FailureOr<ReshapeOp> op =
      n.create<ReshapeOp>(input, shape, n.builder.getBoolAttr(false));
  return failed(op) ? Value() : op->getResult();
}

LogicalResult convertCompress(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  if (!NodeImporter::getElementType(n.getInput(1)).isInteger(1))
    return n.fail("condition must be a bool tensor");
  const onnx::AttributeProto *axis = n.getAttr("axis");
  return n.emit<CompressOp>(n.getInput(0), n.getInput(1),
                            axis ? n.builder.getI64IntegerAttr(axis->i())
                                 : IntegerAttr());
}

LogicalResult convertUnique(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  const onnx::AttributeProto *axis = n.getAttr("axis");
  FailureOr<UniqueOp> op = n.create<UniqueOp>(
      n.getInput(0),
      axis ? n.builder.getI64IntegerAttr(axis->i()) : IntegerAttr(),
      n.builder.getBoolAttr(n.getInt("sorted", 1) != 0));
  if (failed(op))
    return failure();
  n.results.append(op->getResults().begin(), op->getResults().end());
  return success();
}

LogicalResult convertNonMaxSuppression(NodeImporter &n) {
  if (failed(n.expectInputs(2, 5)))
    return failure();
  int64_t center = n.getInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return n.fail("center_point_box must be 0 or 1, got " +
                  llvm::Twine(center));
  Value maxOutput = n.getInput(2);
  if (maxOutput && !NodeImporter::getElementType(maxOutput).isInteger(64))
    return n.fail("max_output_boxes_per_class must be int64");
  return n.emit<NonMaxSuppressionOp>(n.getInput(0), n.getInput(1), maxOutput,
                                     n.getInput(3), n.getInput(4),
                                     n.builder.getBoolAttr(center == 1));
}

LogicalResult convertSTFT(NodeImporter &n) {
  if (failed(n.expectInputs(2, 4)))
    return failure();
  if (!n.hasInput(2) && !n.hasInput(3))
    return n.fail("needs a window or a frame_length");
  return n.emit<STFTOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                        n.getInput(3),
                        n.builder.getBoolAttr(n.getInt("onesided", 1) != 0));
}

LogicalResult convertMelWeightMatrix(NodeImporter &n) {
  if (failed(n.expectInputs(5, 5)))
    return failure();
  FailureOr<Type> type = getOutputDatatype(n);
  if (failed(type))
    return failure();
  return n.emit<MelWeightMatrixOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                                   n.getInput(3), n.getInput(4),
                                   TypeAttr::get(*type));
}

/// MaxUnpool: `indices` address the flattened shape that `kernel_shape`,
/// `strides` and `pads` give (the input of the MaxPool that made them), so
/// the result is zeros of that shape, flattened, with `input` scattered at
/// `indices`, reshaped back; an `output_shape` then pads it at the end, as
/// ONNX's reference does.
LogicalResult convertMaxUnpool(NodeImporter &n) {
  if (failed(n.expectInputs(2, 3)))
    return failure();
  Value input = n.getInput(0), indices = n.getInput(1);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() < 3 || !type.hasStaticShape())
    return n.fail("input must be of static shape [N, C, spatial...]");
  if (!NodeImporter::getElementType(indices).isInteger(64))
    return n.fail("indices must be int64");
  int64_t rank = type.getRank(), spatial = rank - 2;
  std::optional<llvm::SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (!kernel || static_cast<int64_t>(kernel->size()) != spatial)
    return n.fail("kernel_shape needs " + llvm::Twine(spatial) + " values");
  auto strides =
      n.getInts("strides").value_or(llvm::SmallVector<int64_t>(spatial, 1));
  auto pads =
      n.getInts("pads").value_or(llvm::SmallVector<int64_t>(2 * spatial, 0));
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return n.fail("strides and pads need " + llvm::Twine(spatial) + " and " +
                  llvm::Twine(2 * spatial) + " values");
  llvm::SmallVector<int64_t> dims(type.getShape().take_front(2));
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t d = (type.getDimSize(2 + i) - 1) * strides[i] + (*kernel)[i] -
                pads[i] - pads[spatial + i];
    if (d <= 0)
      return n.fail("the output would have spatial dim " + llvm::Twine(d));
    dims.push_back(d);
  }
  Value shape = n.getI64Constant(dims);
  Builder &b = n.builder;
  auto zero = cast<ElementsAttr>(
      DenseElementsAttr::get(RankedTensorType::get({1}, type.getElementType()),
                             b.getZeroAttr(type.getElementType())));
  FailureOr<ConstantOfShapeOp> zeros = n.create<ConstantOfShapeOp>(shape, zero);
  if (failed(zeros))
    return failure();
  Value flat = n.getI64Constant({-1});
  Value data = reshape(n, zeros->getResult(), flat);
  Value updates = reshape(n, input, flat);
  Value where = reshape(n, indices, flat);
  if (!data || !updates || !where)
    return failure();
  FailureOr<ScatterElementsOp> scattered = n.create<ScatterElementsOp>(
      data, where, updates, b.getI64IntegerAttr(0), b.getStringAttr("none"));
  if (failed(scattered))
    return failure();
  Value result = reshape(n, scattered->getResult(), shape);
  if (result && n.hasInput(2)) {
    // Pads: nothing before, output_shape - shape after.
    Value after = binary<SubOp>(n, n.getInput(2), shape);
    FailureOr<ConcatOp> all =
        after ? n.create<ConcatOp>(
                    ValueRange{
                        n.getI64Constant(llvm::SmallVector<int64_t>(rank, 0)),
                        after},
                    b.getI64IntegerAttr(0))
              : FailureOr<ConcatOp>(failure());
    FailureOr<PadOp> padded =
        succeeded(all) ? n.create<PadOp>(result, all->getResult(), Value(),
                                         PadModeAttr::get(b.getContext(),
                                                          PadMode::Constant))
                       : FailureOr<PadOp>(failure());
    result = succeeded(padded) ? padded->getResult() : Value();
  }
  if (!result)
    return failure();
  n.results.push_back(result);
  return success();
}

/// Hann, Hamming and Blackman windows: sum over k of
/// (-1)^k a_k cos(2 pi k i / N), i in [0, size), N = size when periodic,
/// size - 1 otherwise; computed in the output type when it is a float type,
/// else in f32 and converted.
ConvertFn window(llvm::SmallVector<double> coefficients) {
  return [coefficients](NodeImporter &n) -> LogicalResult {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    FailureOr<Type> outType = getOutputDatatype(n);
    if (failed(outType))
      return failure();
    Value size = n.getInput(0);
    Type sizeType = NodeImporter::getElementType(size);
    if (!sizeType.isInteger(32) && !sizeType.isInteger(64))
      return n.fail("size must be an int32 or int64 scalar");
    Type compute = isa<FloatType>(*outType) ? *outType : n.builder.getF32Type();
    Value range = Value();
    FailureOr<RangeOp> indices =
        n.create<RangeOp>(n.getScalarConstant(sizeType, 0), size,
                          n.getScalarConstant(sizeType, 1));
    if (failed(indices))
      return failure();
    range = castTo(n, indices->getResult(), compute);
    Value length = castTo(n, size, compute);
    if (n.getInt("periodic", 1) == 0)
      length = binary<SubOp>(n, length, n.getScalarConstant(compute, 1));
    Value step =
        length
            ? binary<DivOp>(n, n.getScalarConstant(compute, 2 * M_PI), length)
            : Value();
    Value angle = step ? binary<MulOp>(n, range, step) : Value();
    if (!angle)
      return failure();
    Value sum = n.getScalarConstant(compute, coefficients[0]);
    for (size_t k = 1; k < coefficients.size() && sum; ++k) {
      Value scaled =
          binary<MulOp>(n, angle, n.getScalarConstant(compute, double(k)));
      FailureOr<CosOp> cos =
          scaled ? n.create<CosOp>(scaled) : FailureOr<CosOp>(failure());
      if (failed(cos))
        return failure();
      Value term = binary<MulOp>(n, cos->getResult(),
                                 n.getScalarConstant(compute, coefficients[k]));
      sum = term ? (k % 2 ? binary<SubOp>(n, sum, term)
                          : binary<AddOp>(n, sum, term))
                 : Value();
    }
    if (!sum)
      return failure();
    n.results.push_back(castTo(n, sum, *outType));
    return success();
  };
}
LogicalResult convertStringNormalizer(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  auto type = cast<TensorType>(n.getInput(0).getType());
  if (!isa<StringType>(type.getElementType()))
    return n.fail("input must be a string tensor");
  Builder &b = n.builder;
  SmallVector<StringRef> stopwords;
  if (const onnx::AttributeProto *attr = n.getAttr("stopwords"))
    stopwords.assign(attr->strings().begin(), attr->strings().end());
  std::optional<std::string> locale = n.getString("locale");
  return n.emit<StringNormalizerOp>(
      n.getInput(0),
      b.getStringAttr(n.getString("case_change_action").value_or("NONE")),
      b.getBoolAttr(n.getInt("is_case_sensitive", 0) != 0),
      locale ? b.getStringAttr(*locale) : StringAttr(),
      b.getStrArrayAttr(stopwords));
}
} // namespace

void mlc::onnx_import::addSelectionConverters(ConverterTable &t) {
  t.add("StringNormalizer", 10, convertStringNormalizer, Accepts::Strings);
  t.add("Compress", 9, convertCompress);
  t.add("Unique", 11, convertUnique);
  t.add("NonMaxSuppression", 10, convertNonMaxSuppression);
  t.add("STFT", 17, convertSTFT);
  t.add("MelWeightMatrix", 17, convertMelWeightMatrix);
  t.add("MaxUnpool", 9, convertMaxUnpool);
  t.add("HannWindow", 17, window({0.5, 0.5}));
  t.add("HammingWindow", 17, window({25.0 / 46.0, 21.0 / 46.0}));
  t.add("BlackmanWindow", 17, window({0.42, 0.5, 0.08}));
}
