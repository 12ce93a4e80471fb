//===- GraphDialect.cpp - mlc_graph dialect -------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Dialect registration, attributes, constant materialization and the type
// helpers that every graph op's generated code calls.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlc::graph;

#include "mlc/Dialect/Graph/IR/GraphDialect.cpp.inc"
#include "mlc/Dialect/Graph/IR/GraphEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mlc/Dialect/Graph/IR/GraphAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "mlc/Dialect/Graph/IR/GraphTypes.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlc/Dialect/Graph/IR/GraphOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlc/Dialect/Graph/IR/GraphAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "mlc/Dialect/Graph/IR/GraphTypes.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

bool mlc::graph::areCompatibleValueTypes(Type a, Type b) {
  if (auto sa = dyn_cast<SequenceType>(a)) {
    auto sb = dyn_cast<SequenceType>(b);
    return sb &&
           areCompatibleValueTypes(sa.getTensorType(), sb.getTensorType());
  }
  if (auto oa = dyn_cast<OptionalType>(a)) {
    auto ob = dyn_cast<OptionalType>(b);
    return ob && areCompatibleValueTypes(oa.getValueType(), ob.getValueType());
  }
  auto ta = dyn_cast<TensorType>(a);
  auto tb = dyn_cast<TensorType>(b);
  return ta && tb && ta.getElementType() == tb.getElementType() &&
         succeeded(verifyCompatibleShape(ta, tb));
}

bool mlc::graph::areRefinableTypes(TypeRange declared, TypeRange inferred) {
  if (declared.size() != inferred.size())
    return false;
  for (auto [d, i] : llvm::zip(declared, inferred))
    if (!areCompatibleValueTypes(d, i))
      return false;
  return true;
}

LogicalResult mlc::graph::inferBroadcastResultType(
    MLIRContext *ctx, std::optional<Location> loc, StringRef opName, Type lhs,
    Type rhs, bool isPredicate, SmallVectorImpl<Type> &results) {
  auto lt = cast<TensorType>(lhs);
  auto rt = cast<TensorType>(rhs);
  if (lt.getElementType() != rt.getElementType())
    return emitOptionalError(
        loc, "'", opName, "' op operand element types differ (",
        lt.getElementType(), " vs ", rt.getElementType(), ")");
  Type element = isPredicate ? IntegerType::get(ctx, 1) : lt.getElementType();
  if (!lt.hasRank() || !rt.hasRank()) {
    results.push_back(UnrankedTensorType::get(element));
    return success();
  }
  auto shape = broadcastShapes(lt.getShape(), rt.getShape());
  if (!shape)
    return emitOptionalError(loc, "'", opName, "' op ",
                             llvm::toString(shape.takeError()));
  results.push_back(RankedTensorType::get(*shape, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

namespace {
/// Checks that `attribute`, named `mlc_graph.<key>`, is one the dialect
/// declares, of its declared type, on an op or on a function's argument or
/// result (`onValue`) as declared.
LogicalResult verifyGraphAttribute(Operation *op, NamedAttribute attribute,
                                   bool onValue) {
  StringRef name = attribute.getName().strref();
  Attribute value = attribute.getValue();
  if (name == GraphDialect::NameAttrHelper::getNameStr()) {
    if (!onValue)
      return op->emitOpError() << "'" << name
                               << "' belongs on a function argument or "
                                  "result, not on an op";
    if (!isa<StringAttr>(value))
      return op->emitOpError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == GraphDialect::DimNamesAttrHelper::getNameStr() && onValue) {
    auto names = dyn_cast<ArrayAttr>(value);
    if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return op->emitOpError() << "'" << name
                               << "' must be an array of strings";
    return success();
  }
  if (name == GraphDialect::BatchedAttrHelper::getNameStr() && onValue) {
    if (!isa<UnitAttr>(value))
      return op->emitOpError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  if (name == GraphDialect::BatchSymbolAttrHelper::getNameStr() && !onValue) {
    if (!isa<StringAttr>(value))
      return op->emitOpError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == GraphDialect::OnnxOpsetAttrHelper::getNameStr() && !onValue) {
    if (!isa<IntegerAttr>(value))
      return op->emitOpError() << "'" << name << "' must be an integer";
    return success();
  }
  if (name == GraphDialect::DimBoundsAttrHelper::getNameStr() && !onValue) {
    auto bounds = dyn_cast<DictionaryAttr>(value);
    if (!bounds || !llvm::all_of(bounds, [](NamedAttribute bound) {
          auto v = dyn_cast<IntegerAttr>(bound.getValue());
          return v && v.getInt() >= 1;
        }))
      return op->emitOpError() << "'" << name
                               << "' must map names to integers >= 1";
    return success();
  }
  if (name == GraphDialect::OnnxProducerAttrHelper::getNameStr() && !onValue) {
    if (!isa<StringAttr>(value))
      return op->emitOpError() << "'" << name << "' must be a string";
    return success();
  }
  return op->emitOpError() << "unknown attribute '" << name
                           << "' of the mlc_graph dialect";
}
} // namespace

LogicalResult GraphDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  return verifyGraphAttribute(op, attribute, /*onValue=*/false);
}

LogicalResult GraphDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                     unsigned,
                                                     NamedAttribute attribute) {
  return verifyGraphAttribute(op, attribute, /*onValue=*/true);
}

LogicalResult
GraphDialect::verifyRegionResultAttribute(Operation *op, unsigned, unsigned,
                                          NamedAttribute attribute) {
  return verifyGraphAttribute(op, attribute, /*onValue=*/true);
}
