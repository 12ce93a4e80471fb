//===- NodeImporter.cpp - What an op converter sees -----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlc::onnx_import;

LogicalResult NodeImporter::expectInputs(size_t min, size_t max) {
  for (size_t i = 0; i < min; ++i)
    if (!hasInput(i))
      return fail("input " + llvm::Twine(i) + " is required but absent");
  if (getNumInputs() > max)
    return fail("has " + llvm::Twine(getNumInputs()) + " inputs, at most " +
                llvm::Twine(max) + " are allowed");
  return success();
}

const onnx::AttributeProto *NodeImporter::getAttr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

namespace {
/// Whether `attr` holds a value of `type`: its declared type when the
/// exporter wrote one, else the field that is set.
bool holds(const onnx::AttributeProto &attr,
           onnx::AttributeProto::AttributeType type, bool fieldSet) {
  if (attr.type() != onnx::AttributeProto::UNDEFINED)
    return attr.type() == type;
  return fieldSet;
}

const char *typeName(const onnx::AttributeProto &attr) {
  if (attr.type() == onnx::AttributeProto::UNDEFINED)
    return "of no declared type";
  return onnx::AttributeProto::AttributeType_Name(attr.type()).c_str();
}
} // namespace

/// Records that the node's attribute `name` is not of type `expected`.
static void noteWrongType(std::string &error, const onnx::AttributeProto &attr,
                          llvm::StringRef expected) {
  if (error.empty())
    error = "attribute '" + attr.name() + "' is " + typeName(attr) +
            ", expected " + expected.str();
}

int64_t NodeImporter::getInt(llvm::StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return defaultValue;
  if (!holds(*attr, onnx::AttributeProto::INT, attr->has_i())) {
    noteWrongType(attributeError, *attr, "INT");
    return defaultValue;
  }
  return attr->i();
}

float NodeImporter::getFloat(llvm::StringRef name, float defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return defaultValue;
  if (!holds(*attr, onnx::AttributeProto::FLOAT, attr->has_f())) {
    noteWrongType(attributeError, *attr, "FLOAT");
    return defaultValue;
  }
  return attr->f();
}

std::optional<llvm::SmallVector<int64_t>>
NodeImporter::getInts(llvm::StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return std::nullopt;
  if (!holds(*attr, onnx::AttributeProto::INTS, attr->ints_size() > 0 ||
                                                    !attr->has_i())) {
    noteWrongType(attributeError, *attr, "INTS");
    return std::nullopt;
  }
  return llvm::SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::optional<std::string> NodeImporter::getString(llvm::StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return std::nullopt;
  if (!holds(*attr, onnx::AttributeProto::STRING, attr->has_s())) {
    noteWrongType(attributeError, *attr, "STRING");
    return std::nullopt;
  }
  return attr->s();
}

DenseI64ArrayAttr NodeImporter::getI64Array(llvm::StringRef name) {
  auto values = getInts(name);
  return values ? builder.getDenseI64ArrayAttr(*values) : DenseI64ArrayAttr();
}

FailureOr<mlc::graph::AutoPadAttr> NodeImporter::getAutoPad() {
  using mlc::graph::AutoPad;
  std::string text = getString("auto_pad").value_or("NOTSET");
  std::optional<AutoPad> mode = llvm::StringSwitch<std::optional<AutoPad>>(text)
                                    .Case("NOTSET", AutoPad::NotSet)
                                    .Case("SAME_UPPER", AutoPad::SameUpper)
                                    .Case("SAME_LOWER", AutoPad::SameLower)
                                    .Case("VALID", AutoPad::Valid)
                                    .Default(std::nullopt);
  if (!mode) {
    (void)fail("unknown auto_pad '" + text + "'");
    return failure();
  }
  return mlc::graph::AutoPadAttr::get(builder.getContext(), *mode);
}

DenseI64ArrayAttr NodeImporter::getPads(mlc::graph::AutoPadAttr autoPad) {
  if (autoPad.getValue() != mlc::graph::AutoPad::NotSet)
    return {};
  return getI64Array("pads");
}

Value NodeImporter::getI64Constant(llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getI64Type());
  return mlc::graph::ConstantOp::create(
      builder, loc, type, DenseIntElementsAttr::get(type, values));
}

Value NodeImporter::getScalarConstant(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(elementType)) {
    llvm::APFloat v(value);
    bool lost;
    v.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, v);
  } else {
    // Callers check that the value fits; an integer that does not is cut
    // to the type's width as a C cast would, never an assertion.
    attr = DenseElementsAttr::get(
        type, llvm::APInt(elementType.getIntOrFloatBitWidth(),
                          static_cast<uint64_t>(static_cast<int64_t>(value)),
                          /*isSigned=*/false, /*implicitTrunc=*/true));
  }
  return mlc::graph::ConstantOp::create(builder, loc, type,
                                        cast<ElementsAttr>(attr));
}

std::optional<llvm::SmallVector<int64_t>>
NodeImporter::getConstantInts(Value v) const {
  DenseIntElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(
      llvm::map_range(attr.getValues<llvm::APInt>(),
                      [](const llvm::APInt &a) { return a.getSExtValue(); }));
}

LogicalResult NodeImporter::checkRunTimeAxes(Value axes) {
  auto type = dyn_cast<TensorType>(axes.getType());
  if (!type || !type.getElementType().isInteger(64) ||
      (type.hasRank() && type.getRank() != 1))
    return fail("axes must be a 1-D int64 tensor");
  return success();
}

FailureOr<DenseI64ArrayAttr> NodeImporter::getTrailingAxes(Value x,
                                                           int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    return fail("the input needs a known rank");
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  return builder.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(axis, rank)));
}

Type NodeImporter::getElementType(Value v) {
  return cast<TensorType>(v.getType()).getElementType();
}

LogicalResult NodeImporter::fail(const llvm::Twine &message) {
  return emitError(loc) << message.str();
}

void ConverterTable::add(llvm::StringRef opType, int64_t sinceVersion,
                         ConvertFn fn, Accepts accepts) {
  auto &list = entries[opType];
  list.push_back({sinceVersion, std::move(fn), accepts});
  llvm::sort(list, [](const Entry &a, const Entry &b) {
    return a.sinceVersion < b.sinceVersion;
  });
}

const ConverterTable::Entry *ConverterTable::lookup(llvm::StringRef opType,
                                                    int64_t opset,
                                                    std::string &why) const {
  auto it = entries.find(opType);
  if (it == entries.end()) {
    why = "no converter for this op";
    return nullptr;
  }
  const Entry *best = nullptr;
  for (const Entry &e : it->second)
    if (e.sinceVersion <= opset)
      best = &e;
  if (!best)
    why = "supported from opset " +
          std::to_string(it->second.front().sinceVersion) + " on";
  return best;
}

std::string mlc::onnx_import::getConverterKey(const onnx::NodeProto &node) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return node.op_type();
  return node.domain() + "." + node.op_type();
}

int64_t mlc::onnx_import::getNodeOpset(const onnx::NodeProto &node,
                                       const Opsets &opsets) {
  return node.domain() == kContribDomain ? opsets.contrib : opsets.onnx;
}

const ConverterTable::Entry *
ConverterTable::lookup(const onnx::NodeProto &node, const Opsets &opsets,
                       std::string &why) const {
  bool contrib = node.domain() == kContribDomain;
  if (!contrib && !node.domain().empty() && node.domain() != "ai.onnx") {
    why = "domain '" + node.domain() + "' is not supported";
    return nullptr;
  }
  const Entry *entry =
      lookup(getConverterKey(node), getNodeOpset(node, opsets), why);
  if (!entry && contrib && !entries.count(getConverterKey(node)))
    why = "no converter for this contrib op";
  return entry;
}

const ConverterTable &mlc::onnx_import::getConverterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    addElementwiseConverters(t);
    addNNConverters(t);
    addReductionConverters(t);
    addTensorConverters(t);
    addGeneratorConverters(t);
    addQuantConverters(t);
    addControlFlowConverters(t);
    addSequenceConverters(t);
    addLossConverters(t);
    addSelectionConverters(t);
    addContainerConverters(t);
    addFeatureConverters(t);
    addTransformerConverters(t);
    addAttentionConverters(t);
    addBlockQuantConverters(t);
    return t;
  }();
  return table;
}
