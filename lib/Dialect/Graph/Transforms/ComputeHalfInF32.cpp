//===- ComputeHalfInF32.cpp - Float16 and bfloat16 graphs in f32 ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Retypes a function's half-precision values to f32 in place: results and
// region arguments change their element type, half constants are
// converted, Casts that become f32 -> f32 fold away, and the function's
// half arguments and results keep their types through Casts at its ends.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/APFloat.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHCOMPUTEHALFINF32
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;
using namespace mlc::graph;

namespace {
/// Constants of at most this many elements stay `dense` (printed inline);
/// larger ones, the weights, become `dense_resource` blobs.
constexpr int64_t kMaxInlineElements = 64;

bool isHalf(Type type) { return isa<Float16Type, BFloat16Type>(type); }

/// `type` with f32 for a half element type; null when it is not a tensor of
/// halves.
Type widened(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor || !isHalf(tensor.getElementType()))
    return {};
  return tensor.clone(Float32Type::get(type.getContext()));
}

/// Whether `type` holds a half anywhere but as a tensor's element type (a
/// sequence of f16 tensors), which the retyping does not reach.
bool hidesHalf(Type type) {
  if (isa<TensorType>(type))
    return false;
  bool found = false;
  type.walk([&](Type inner) { found |= isHalf(inner); });
  return found;
}

/// `attr`'s elements as f32, or null when they cannot be read.
ElementsAttr widenElements(ElementsAttr attr, StringRef name) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !isHalf(type.getElementType()) || !type.hasStaticShape())
    return {};
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  auto f32Type = RankedTensorType::get(type.getShape(),
                                       Float32Type::get(type.getContext()));
  int64_t count = type.getNumElements();
  ArrayRef<char> raw;
  bool splat = false;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw = dense.getRawData();
    splat = dense.isSplat();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return {};
    raw = blob->getData();
  } else {
    return {};
  }
  if (raw.size() != size_t(splat ? 2 : count * 2))
    return {};
  auto valueAt = [&](int64_t i) {
    uint16_t bits;
    std::memcpy(&bits, raw.data() + (splat ? 0 : 2 * i), 2);
    return llvm::APFloat(semantics, llvm::APInt(16, bits)).convertToFloat();
  };
  if (splat)
    return DenseElementsAttr::get(f32Type, valueAt(0));
  if (count <= kMaxInlineElements) {
    SmallVector<float> values;
    for (int64_t i = 0; i < count; ++i)
      values.push_back(valueAt(i));
    return DenseElementsAttr::get(f32Type, ArrayRef<float>(values));
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      count * sizeof(float), alignof(uint64_t), /*dataIsMutable=*/true);
  auto *out = reinterpret_cast<float *>(blob.getMutableData().data());
  for (int64_t i = 0; i < count; ++i)
    out[i] = valueAt(i);
  return DenseResourceElementsAttr::get(f32Type, (name + "_f32").str(),
                                        std::move(blob));
}

/// Whether every op of `func` that touches a half value is one the retyping
/// keeps correct: its results' types are all that carry the element type,
/// or it is a constant whose value is converted.
LogicalResult checkRetypable(func::FuncOp func) {
  WalkResult walk = func.walk([&](Operation *op) {
    if (op == func.getOperation())
      return WalkResult::advance();
    bool touchesHalf = false;
    auto check = [&](Type type) {
      if (hidesHalf(type))
        return false;
      touchesHalf |= bool(widened(type));
      return true;
    };
    for (Type type : op->getOperandTypes())
      if (!check(type))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (!check(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!check(arg.getType()))
            return WalkResult::interrupt();
    if (!touchesHalf || isa<ConstantOp, ConstantOfShapeOp>(op))
      return WalkResult::advance();
    // An attribute that names a type or holds typed elements (a random
    // generator's dtype) would disagree with the retyped result.
    for (NamedAttribute attr : op->getAttrs())
      if (isa<TypeAttr, ElementsAttr>(attr.getValue()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct GraphComputeHalfInF32
    : mlc::graph::impl::GraphComputeHalfInF32Base<GraphComputeHalfInF32> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || failed(checkRetypable(func)))
      return;
    bool any = false;
    func.walk([&](Operation *op) {
      for (Type type : op->getOperandTypes())
        any |= bool(widened(type));
      for (Type type : op->getResultTypes())
        any |= bool(widened(type));
    });
    if (!any)
      return;

    // Constants first: their attributes must agree with the new types.
    WalkResult converted = func.walk([&](Operation *op) -> WalkResult {
      auto retypeValue = [&](StringRef attrName, ElementsAttr value,
                             StringRef name) {
        ElementsAttr wide = widenElements(value, name);
        if (!wide)
          return false;
        op->setAttr(attrName, wide);
        return true;
      };
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        if (!widened(constant.getType()))
          return WalkResult::advance();
        std::string name = "constant";
        if (auto resource =
                dyn_cast<DenseResourceElementsAttr>(constant.getValue()))
          name = resource.getRawHandle().getKey().str();
        if (!retypeValue("value", constant.getValue(), name))
          return WalkResult::interrupt();
      } else if (auto fill = dyn_cast<ConstantOfShapeOp>(op)) {
        if (widened(fill.getType()) && fill.getValueAttr() &&
            !retypeValue("value", fill.getValueAttr(), "fill"))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (converted.wasInterrupted()) {
      func.emitWarning() << "float16/bfloat16 values are computed as they "
                            "are: a constant of the function could not be "
                            "read";
      return;
    }

    // Results and region arguments in place.
    func.walk([&](Operation *op) {
      if (op == func.getOperation())
        return;
      for (OpResult result : op->getResults())
        if (Type wide = widened(result.getType()))
          result.setType(wide);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (Type wide = widened(arg.getType()))
              arg.setType(wide);
    });

    // The function keeps its signature: half arguments are widened as it
    // starts, half results rounded as it returns.
    IRRewriter rewriter(func.getContext());
    Block &entry = func.getBody().front();
    rewriter.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      Type wide = widened(arg.getType());
      if (!wide || arg.use_empty())
        continue;
      auto cast = CastOp::create(rewriter, arg.getLoc(), wide, arg);
      rewriter.replaceAllUsesExcept(arg, cast.getResult(), cast);
    }
    func.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      for (auto [operand, type] :
           llvm::zip(ret->getOpOperands(), func.getResultTypes()))
        if (operand.get().getType() != type)
          operand.set(CastOp::create(rewriter, ret.getLoc(), type,
                                     operand.get()));
    });

    // Casts between f32 and a half type are now f32 -> f32.
    func.walk([&](CastOp cast) {
      if (cast.getInput().getType() == cast.getType()) {
        cast.getResult().replaceAllUsesWith(cast.getInput());
        cast.erase();
      }
    });
  }
};
} // namespace
