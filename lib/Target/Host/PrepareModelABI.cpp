//===- PrepareModelABI.cpp - Record public functions' C signatures --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

#include "llvm/Support/JSON.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTPREPAREMODELABI
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;
using mlc::abi::DType;

namespace {
std::optional<DType> getDType(Type type) {
  if (type.isF32())
    return DType::Float32;
  if (type.isF64())
    return DType::Float64;
  if (type.isF16())
    return DType::Float16;
  if (type.isBF16())
    return DType::BFloat16;
  if (type.isInteger(1))
    return DType::Bool;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 8:
    return isUnsigned ? DType::UInt8 : DType::Int8;
  case 16:
    return isUnsigned ? DType::UInt16 : DType::Int16;
  case 32:
    return isUnsigned ? DType::UInt32 : DType::Int32;
  case 64:
    return isUnsigned ? DType::UInt64 : DType::Int64;
  default:
    return std::nullopt;
  }
}

/// The symbol names of input `i`'s dims (`mlc_graph.dim_names`; "" where
/// a dim has none).
SmallVector<StringRef> getDimNames(func::FuncOp f, unsigned i) {
  SmallVector<StringRef> names;
  if (auto attr = f.getArgAttrOfType<ArrayAttr>(i, "mlc_graph.dim_names"))
    for (Attribute a : attr)
      names.push_back(isa<StringAttr>(a) ? cast<StringAttr>(a).getValue()
                                         : StringRef());
  return names;
}

/// True when every dynamic dim of input `i` is a named symbol.
bool hasNamedDims(func::FuncOp f, unsigned i, RankedTensorType type) {
  SmallVector<StringRef> names = getDimNames(f, i);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d) &&
        (d >= int64_t(names.size()) || names[d].empty()))
      return false;
  return true;
}

FailureOr<mlc::abi::TensorSignature> describe(func::FuncOp f, StringRef kind,
                                              unsigned index, Type type,
                                              StringAttr name) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? getDType(tensor.getElementType()) : std::nullopt;
  // An output's size may depend on the data (the model allocates it); an
  // input's dims are the caller's to give: pinned, or symbols whose values
  // the caller passes with each run.
  bool shaped = tensor && (tensor.hasStaticShape() || kind == "output" ||
                           hasNamedDims(f, index, tensor));
  if (!shaped || !dtype)
    return f.emitError() << kind << " " << index << " ('"
                         << (name ? name.getValue() : StringRef("?"))
                         << "') has type " << type
                         << "; a compiled model needs statically shaped "
                            "tensors of a numeric or bool type (pin "
                            "symbolic dims with --dim or --shape)";
  // Names go into the model's metadata (JSON) and its C header: text only.
  if (name && !llvm::json::isUTF8(name.getValue()))
    return f.emitError() << kind << " " << index
                         << "'s name is not valid UTF-8 (" << name.size()
                         << " bytes); a compiled model's metadata and header "
                            "need text names";
  mlc::abi::TensorSignature t;
  t.name = name ? name.str() : (kind + "_" + Twine(index)).str();
  t.dtype = *dtype;
  for (int64_t d : tensor.getShape())
    t.shape.push_back(ShapedType::isDynamic(d) ? mlc::abi::kDynamicDim : d);
  return t;
}

struct HostPrepareModelABIPass
    : mlc::host::impl::HostPrepareModelABIBase<HostPrepareModelABIPass> {
  void runOnOperation() override {
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>()) {
      if (f.isExternal() || !f.isPublic())
        continue;
      mlc::abi::ModelSignature signature;
      signature.name = f.getSymName().str();
      FunctionType type = f.getFunctionType();
      for (auto [i, t] : llvm::enumerate(type.getInputs())) {
        FailureOr<mlc::abi::TensorSignature> s = describe(
            f, "input", i, t, f.getArgAttrOfType<StringAttr>(i, "mlc_graph.name"));
        if (failed(s))
          return signalPassFailure();
        signature.inputs.push_back(std::move(*s));
        f.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                     BoolAttr::get(&getContext(), false));
      }
      for (auto [i, t] : llvm::enumerate(type.getResults())) {
        FailureOr<mlc::abi::TensorSignature> s = describe(
            f, "output", i, t, f.getResultAttrOfType<StringAttr>(i, "mlc_graph.name"));
        if (failed(s))
          return signalPassFailure();
        signature.outputs.push_back(std::move(*s));
      }
      // Symbolic input dims the code takes at run time: a symbol per name,
      // whose values the entry point passes in a `dims` argument.
      for (auto [i, t] : llvm::enumerate(signature.inputs)) {
        SmallVector<StringRef> names = getDimNames(f, i);
        for (auto [d, size] : llvm::enumerate(t.shape)) {
          if (size != mlc::abi::kDynamicDim)
            continue;
          auto at = llvm::find(signature.symbols, names[d].str());
          if (at == signature.symbols.end())
            at = signature.symbols.insert(at, names[d].str());
          t.dimSymbols.resize(t.shape.size(), -1);
          t.dimSymbols[d] = int32_t(at - signature.symbols.begin());
          size = 1;
        }
      }
      if (!signature.symbols.empty())
        f->setAttr("mlc_loop.dims_argument",
                   IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                    signature.symbols.size()));
      // A batch compiled for one sample (mlc-graph-separate-batch): dim 0
      // of the inputs and outputs that carry it is a multiple of it.
      if (auto symbol = f->getAttrOfType<StringAttr>("mlc_graph.batch_symbol")) {
        signature.symbols.push_back(symbol.str());
        signature.perSample = true;
        auto mark = [](mlc::abi::TensorSignature &t) {
          t.dimSymbols.assign(t.shape.size(), -1);
          if (!t.shape.empty())
            t.dimSymbols[0] = 0;
        };
        for (auto [i, t] : llvm::enumerate(signature.inputs))
          if (f.getArgAttr(i, "mlc_graph.batched"))
            mark(t);
        for (auto [i, t] : llvm::enumerate(signature.outputs))
          if (f.getResultAttr(i, "mlc_graph.batched"))
            mark(t);
      }
      f->setAttr("mlc_loop.signature", StringAttr::get(&getContext(),
                                                  mlc::abi::toJSON(signature)));
      flattenEmptyTensors(f);
      separateRepeatedResults(f);
    }
  }

  /// A value returned more than once (outputs that name the same tensor,
  /// like `y` and `Identity(y)`) gets a copy for each repetition: every
  /// output has a buffer of its own, the caller's.
  void separateRepeatedResults(func::FuncOp f) {
    f.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (seen.insert(v).second || !type)
          continue;
        SmallVector<Value> dims;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            dims.push_back(tensor::DimOp::create(b, ret.getLoc(), v, d));
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, dims, /*copy=*/v));
      }
    });
  }

  /// Inputs and outputs with no elements and rank > 1 become rank-1 [0]
  /// tensors in the function type (the header keeps their real shapes):
  /// upstream's bare-pointer lowering does not take a multi-dim memref with
  /// a zero dim, and there is no data to read or write anyway.
  void flattenEmptyTensors(func::FuncOp f) {
    if (f.getBody().empty())
      return;
    Block &entry = f.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    auto flat = [](RankedTensorType t) {
      return RankedTensorType::get({0}, t.getElementType());
    };
    auto isEmptyMultiDim = [](Type type) {
      auto t = dyn_cast<RankedTensorType>(type);
      return t && t.hasStaticShape() && t.getRank() > 1 &&
             t.getNumElements() == 0;
    };
    SmallVector<Type> inputs(f.getFunctionType().getInputs());
    for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
      if (!isEmptyMultiDim(arg.getType()))
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      Value placeholder = tensor::EmptyOp::create(
          b, f.getLoc(), type.getShape(), type.getElementType());
      arg.replaceAllUsesWith(placeholder);
      arg.setType(flat(type));
      inputs[i] = arg.getType();
    }
    SmallVector<Type> results(f.getFunctionType().getResults());
    f.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        if (!isEmptyMultiDim(operand.get().getType()))
          continue;
        auto type = cast<RankedTensorType>(operand.get().getType());
        ReassociationIndices all =
            llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
        operand.set(tensor::CollapseShapeOp::create(
            rb, ret.getLoc(), flat(type), operand.get(),
            SmallVector<ReassociationIndices>{all}));
        results[operand.getOperandNumber()] = flat(type);
      }
    });
    f.setFunctionType(FunctionType::get(f.getContext(), inputs, results));
  }
};
} // namespace
