//===- SymbolicInputs.cpp - Input sizes passed at run time ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Inputs whose dims are symbols take their sizes from a `dims` argument;
// see the pass description.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTSYMBOLICINPUTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
LogicalResult rewriteFunction(func::FuncOp f) {
  auto count = f->getAttrOfType<IntegerAttr>("mlc_loop.dims_argument");
  auto json = f->getAttrOfType<StringAttr>("mlc_loop.signature");
  if (!count)
    return success();
  if (!json)
    return f.emitError("mlc_loop.dims_argument without mlc_loop.signature");
  llvm::Expected<mlc::abi::ModelSignature> signature =
      mlc::abi::parseModelSignature(json.getValue());
  if (!signature)
    return f.emitError("bad mlc_loop.signature: ")
           << llvm::toString(signature.takeError());
  int64_t numSymbols = count.getInt();
  if (numSymbols != int64_t(signature->symbols.size()) ||
      f.getNumArguments() < signature->inputs.size())
    return f.emitError("mlc_loop.dims_argument does not match the signature");

  MLIRContext *context = f.getContext();
  Block &entry = f.front();
  auto dimsType = MemRefType::get({numSymbols}, IntegerType::get(context, 64));
  auto name = NamedAttribute(StringAttr::get(context, "mlc_graph.name"),
                             StringAttr::get(context, "dims"));
  if (failed(f.insertArgument(f.getNumArguments(), dimsType,
                              DictionaryAttr::get(context, {name}),
                              f.getLoc())))
    return f.emitError("cannot add the dims argument");
  BlockArgument dims = entry.getArgument(entry.getNumArguments() - 1);
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = f.getLoc();
  // Each symbol's value, as an index, read once.
  SmallVector<Value> values;
  auto bounds = f->getAttrOfType<DictionaryAttr>("mlc_graph.dim_bounds");
  for (int64_t s = 0; s < numSymbols; ++s) {
    Value at = arith::ConstantIndexOp::create(b, loc, s);
    Value word = memref::LoadOp::create(b, loc, dims, at);
    Value value = arith::IndexCastOp::create(b, loc, b.getIndexType(), word);
    // A bounded symbol is checked, and clamped to its bound: the code runs
    // (on clamped sizes, reading and writing less) with its buffers placed
    // at the bound, and the check's failure is the run's error.
    const std::string &symbol = signature->symbols[s];
    if (auto bound = bounds ? bounds.getAs<IntegerAttr>(symbol) : nullptr) {
      std::string where = "symbolic dim '" + symbol + "'";
      for (const auto &input : signature->inputs) {
        bool found = false;
        for (size_t d = 0; d < input.shape.size() && !found; ++d)
          if (input.getDimSymbol(d) == s) {
            where = "input '" + input.name + "' dim " + std::to_string(d) +
                    " ('" + symbol + "')";
            found = true;
          }
        if (found)
          break;
      }
      Value max = arith::ConstantIndexOp::create(b, loc, bound.getInt());
      Value within = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sle, value, max);
      cf::AssertOp::create(b, loc, within,
                           where + " is over its bound " +
                               std::to_string(bound.getInt()) +
                               " (--dim-max)");
      value = arith::MaxSIOp::create(
          b, loc, arith::MinSIOp::create(b, loc, value, max),
          arith::ConstantIndexOp::create(b, loc, 0));
    }
    values.push_back(value);
  }
  for (auto [i, input] : llvm::enumerate(signature->inputs)) {
    BlockArgument arg = entry.getArgument(i);
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || type.hasStaticShape())
      continue;
    if (!type.getLayout().isIdentity())
      return f.emitError("input ")
             << i << " has layout " << type.getLayout()
             << "; symbolic inputs need the default layout";
    // Sizes from the symbols (or the static dims), row-major strides.
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    OpFoldResult stride = b.getIndexAttr(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (type.isDynamicDim(d)) {
        int32_t s = input.getDimSymbol(d);
        if (s < 0 || s >= numSymbols)
          return f.emitError("input ")
                 << i << " dim " << d << " is dynamic but names no symbol";
        sizes[d] = values[s];
      } else {
        sizes[d] = b.getIndexAttr(type.getDimSize(d));
      }
      strides[d] = stride;
      auto staticStride = getConstantIntValue(stride);
      auto staticSize = getConstantIntValue(sizes[d]);
      if (staticStride && staticSize)
        stride = b.getIndexAttr(*staticStride * *staticSize);
      else
        stride = arith::MulIOp::create(
                     b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                     getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                     .getResult();
    }
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : arg.getUses())
      uses.push_back(&use);
    arg.setType(MemRefType::get({0}, type.getElementType()));
    // The view has the input's own (identity) type: its row-major strides
    // are the layout's. A strided type cast back to it would fold into
    // reshapes, which lose the innermost unit stride of a run-time group.
    Value cast = memref::ReinterpretCastOp::create(
        b, loc, type, arg, b.getIndexAttr(0), sizes, strides);
    for (OpOperand *use : uses)
      use->set(cast);
  }
  f.setFunctionType(
      FunctionType::get(context, entry.getArgumentTypes(), TypeRange()));
  return success();
}

struct HostSymbolicInputsPass
    : mlc::host::impl::HostSymbolicInputsBase<HostSymbolicInputsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic() && failed(rewriteFunction(f)))
        return signalPassFailure();
  }
};
} // namespace
