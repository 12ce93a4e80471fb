//===- SequenceOps.cpp - Recurrent ONNX ops, Einsum and friends -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// RNN, GRU, LSTM, Einsum, GatherND, ScatterND (and the old Scatter), NonZero,
// LRN and the random generators.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// The attributes every recurrent op shares.
struct RecurrentAttrs {
  IntegerAttr hiddenSize;
  StringAttr direction;
  ArrayAttr activations, alpha, beta;
  FloatAttr clip;
  IntegerAttr layout;
};

FailureOr<RecurrentAttrs> getRecurrentAttrs(NodeImporter &n) {
  Builder &b = n.builder;
  if (!n.getAttr("hidden_size")) {
    (void)n.fail("hidden_size is required");
    return failure();
  }
  RecurrentAttrs a;
  a.hiddenSize = b.getI64IntegerAttr(n.getInt("hidden_size", 0));
  a.direction = b.getStringAttr(n.getString("direction").value_or("forward"));
  if (const onnx::AttributeProto *acts = n.getAttr("activations")) {
    SmallVector<StringRef> names(acts->strings().begin(),
                                 acts->strings().end());
    a.activations = b.getStrArrayAttr(names);
  }
  auto floats = [&](llvm::StringRef name) -> ArrayAttr {
    const onnx::AttributeProto *attr = n.getAttr(name);
    if (!attr)
      return {};
    SmallVector<float> v(attr->floats().begin(), attr->floats().end());
    return b.getF32ArrayAttr(v);
  };
  a.alpha = floats("activation_alpha");
  a.beta = floats("activation_beta");
  if (const onnx::AttributeProto *clip = n.getAttr("clip"))
    a.clip = b.getF32FloatAttr(clip->f());
  a.layout = b.getI64IntegerAttr(n.getInt("layout", 0));
  return a;
}

/// Records every result; the node may ask for fewer outputs than exist.
template <typename OpTy>
LogicalResult pushAll(NodeImporter &n, FailureOr<OpTy> op) {
  if (failed(op))
    return failure();
  llvm::append_range(n.results, op->getOperation()->getResults());
  return success();
}

LogicalResult convertRNN(NodeImporter &n) {
  if (failed(n.expectInputs(3, 6)))
    return failure();
  auto a = getRecurrentAttrs(n);
  if (failed(a))
    return failure();
  return pushAll(n, n.create<RNNOp>(n.getInput(0), n.getInput(1), n.getInput(2),
                                    n.getInput(3), n.getInput(4), n.getInput(5),
                                    a->hiddenSize, a->direction, a->activations,
                                    a->alpha, a->beta, a->clip, a->layout));
}

LogicalResult convertGRU(NodeImporter &n) {
  if (failed(n.expectInputs(3, 6)))
    return failure();
  auto a = getRecurrentAttrs(n);
  if (failed(a))
    return failure();
  return pushAll(
      n, n.create<GRUOp>(
             n.getInput(0), n.getInput(1), n.getInput(2), n.getInput(3),
             n.getInput(4), n.getInput(5), a->hiddenSize, a->direction,
             a->activations, a->alpha, a->beta, a->clip, a->layout,
             n.builder.getBoolAttr(n.getInt("linear_before_reset", 0) != 0)));
}

LogicalResult convertLSTM(NodeImporter &n) {
  if (failed(n.expectInputs(3, 8)))
    return failure();
  auto a = getRecurrentAttrs(n);
  if (failed(a))
    return failure();
  return pushAll(n,
                 n.create<LSTMOp>(
                     n.getInput(0), n.getInput(1), n.getInput(2), n.getInput(3),
                     n.getInput(4), n.getInput(5), n.getInput(6), n.getInput(7),
                     a->hiddenSize, a->direction, a->activations, a->alpha,
                     a->beta, a->clip, a->layout,
                     n.builder.getBoolAttr(n.getInt("input_forget", 0) != 0)));
}

LogicalResult convertEinsum(NodeImporter &n) {
  if (failed(n.expectInputs(1, SIZE_MAX)))
    return failure();
  std::optional<std::string> equation = n.getString("equation");
  if (!equation)
    return n.fail("equation is required");
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.getNumInputs(); ++i)
    inputs.push_back(n.getInput(i));
  return n.emit<EinsumOp>(ValueRange(inputs),
                          n.builder.getStringAttr(*equation));
}

LogicalResult convertGatherND(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return n.emit<GatherNDOp>(
      n.getInput(0), n.getInput(1),
      n.builder.getI64IntegerAttr(n.getInt("batch_dims", 0)));
}

LogicalResult convertScatterND(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<ScatterNDOp>(
      n.getInput(0), n.getInput(1), n.getInput(2),
      n.builder.getStringAttr(n.getString("reduction").value_or("none")));
}

/// Scatter (opsets 9-10) is ScatterElements without reductions.
LogicalResult convertScatter(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<ScatterElementsOp>(
      n.getInput(0), n.getInput(1), n.getInput(2),
      n.builder.getI64IntegerAttr(n.getInt("axis", 0)),
      n.builder.getStringAttr("none"));
}

LogicalResult convertNonZero(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<NonZeroOp>(n.getInput(0));
}

LogicalResult convertLRN(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Builder &b = n.builder;
  return n.emit<LRNOp>(n.getInput(0), b.getI64IntegerAttr(n.getInt("size", 0)),
                       b.getF32FloatAttr(n.getFloat("alpha", 0.0001f)),
                       b.getF32FloatAttr(n.getFloat("beta", 0.75f)),
                       b.getF32FloatAttr(n.getFloat("bias", 1.0f)));
}

/// RandomNormal, RandomUniform and their *Like forms.
LogicalResult convertRandom(NodeImporter &n) {
  llvm::StringRef op = n.node.op_type();
  bool like = op.ends_with("Like");
  bool normal = op.starts_with("RandomNormal");
  if (failed(n.expectInputs(like ? 1 : 0, like ? 1 : 0)))
    return failure();
  Builder &b = n.builder;
  Type dtype = b.getF32Type();
  if (const onnx::AttributeProto *d = n.getAttr("dtype"))
    dtype = getElementType(b.getContext(), d->i());
  else if (like)
    dtype = NodeImporter::getElementType(n.getInput(0));
  if (!dtype || !isa<FloatType>(dtype))
    return n.fail("dtype must be a float type");
  DenseI64ArrayAttr shape;
  if (!like) {
    auto dims = n.getInts("shape");
    if (!dims)
      return n.fail("shape is required");
    shape = b.getDenseI64ArrayAttr(*dims);
  }
  const onnx::AttributeProto *seed = n.getAttr("seed");
  return n.emit<RandomOp>(
      like ? n.getInput(0) : Value(),
      b.getStringAttr(normal ? "normal" : "uniform"), TypeAttr::get(dtype),
      shape, b.getF32FloatAttr(n.getFloat(normal ? "mean" : "low", 0.0f)),
      b.getF32FloatAttr(n.getFloat(normal ? "scale" : "high", 1.0f)),
      seed ? b.getF32FloatAttr(seed->f()) : FloatAttr());
}
LogicalResult convertGridSample(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  Builder &b = n.builder;
  return n.emit<GridSampleOp>(
      n.getInput(0), n.getInput(1),
      b.getStringAttr(n.getString("mode").value_or("bilinear")),
      b.getStringAttr(n.getString("padding_mode").value_or("zeros")),
      b.getBoolAttr(n.getInt("align_corners", 0) != 0));
}

LogicalResult convertDFT(NodeImporter &n) {
  if (failed(n.expectInputs(1, 2)))
    return failure();
  if (n.hasInput(1)) {
    // dft_length: only the signal's own length (no padding or cropping).
    auto length = n.getConstantInts(n.getInput(1));
    auto type = dyn_cast<RankedTensorType>(n.getInput(0).getType());
    int64_t axis = n.getInt("axis", 1);
    if (!length || length->size() != 1 || !type ||
        axis < -type.getRank() || axis >= type.getRank() ||
        (*length)[0] !=
            type.getDimSize(axis < 0 ? axis + type.getRank() : axis))
      return n.fail("dft_length other than the signal length is not "
                    "supported");
  }
  Builder &b = n.builder;
  return n.emit<DFTOp>(n.getInput(0),
                       b.getI64IntegerAttr(n.getInt("axis", 1)),
                       b.getBoolAttr(n.getInt("inverse", 0) != 0),
                       b.getBoolAttr(n.getInt("onesided", 0) != 0));
}

LogicalResult convertRoiAlign(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  Builder &b = n.builder;
  // Opset 10 had no coordinate_transformation_mode: its behaviour is
  // output_half_pixel; from 16 the default is half_pixel.
  std::string transform =
      n.getString("coordinate_transformation_mode")
          .value_or(n.opset < 16 ? "output_half_pixel" : "half_pixel");
  return n.emit<RoiAlignOp>(
      n.getInput(0), n.getInput(1), n.getInput(2), b.getStringAttr(transform),
      b.getStringAttr(n.getString("mode").value_or("avg")),
      b.getI64IntegerAttr(n.getInt("output_height", 1)),
      b.getI64IntegerAttr(n.getInt("output_width", 1)),
      b.getI64IntegerAttr(n.getInt("sampling_ratio", 0)),
      b.getF32FloatAttr(n.getFloat("spatial_scale", 1.0f)));
}

LogicalResult convertDet(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<DetOp>(n.getInput(0));
}

/// Bernoulli(p): 1 where a uniform draw in [0, 1) is below p, else 0, in
/// `dtype` (default: p's type).
LogicalResult convertBernoulli(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  Builder &b = n.builder;
  Value p = n.getInput(0);
  Type pType = NodeImporter::getElementType(p);
  if (!isa<FloatType>(pType))
    return n.fail("the probabilities must be floats");
  Type dtype = pType;
  if (const onnx::AttributeProto *d = n.getAttr("dtype")) {
    dtype = getElementType(b.getContext(), d->i());
    if (!dtype)
      return n.fail("unsupported dtype " + getDataTypeName(d->i()));
  }
  const onnx::AttributeProto *seed = n.getAttr("seed");
  FailureOr<RandomOp> draw = n.create<RandomOp>(
      p, b.getStringAttr("uniform"), TypeAttr::get(pType),
      DenseI64ArrayAttr(), b.getF32FloatAttr(0.0f), b.getF32FloatAttr(1.0f),
      seed ? b.getF32FloatAttr(seed->f()) : FloatAttr());
  if (failed(draw))
    return failure();
  FailureOr<LessOp> hit = n.create<LessOp>(draw->getResult(), p);
  if (failed(hit))
    return failure();
  auto type = cast<TensorType>(p.getType());
  Type result = type.hasRank()
                    ? Type(RankedTensorType::get(type.getShape(), dtype))
                    : Type(UnrankedTensorType::get(dtype));
  n.results.push_back(
      CastOp::create(n.builder, n.loc, result, hit->getResult()));
  return success();
}
} // namespace

void mlc::onnx_import::addSequenceConverters(ConverterTable &t) {
  t.add("RNN", 7, convertRNN);
  t.add("GRU", 7, convertGRU);
  t.add("LSTM", 7, convertLSTM);
  t.add("Einsum", 12, convertEinsum);
  t.add("GatherND", 11, convertGatherND);
  t.add("ScatterND", 11, convertScatterND);
  t.add("Scatter", 9, convertScatter);
  t.add("NonZero", 9, convertNonZero);
  t.add("LRN", 1, convertLRN);
  for (llvm::StringRef op : {"RandomNormal", "RandomUniform",
                             "RandomNormalLike", "RandomUniformLike"})
    t.add(op, 1, convertRandom);
  t.add("Bernoulli", 15, convertBernoulli);
  t.add("GridSample", 16, convertGridSample);
  t.add("DFT", 17, convertDFT);
  t.add("Det", 11, convertDet);
  t.add("RoiAlign", 10, convertRoiAlign);
}
