//===- ModelFunctions.cpp - The functions that are models -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelFunctions.h"

#include "mlc/Target/Host/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cctype>

using namespace mlir;

FailureOr<SmallVector<func::FuncOp>>
mlc::host::getLibraryModels(ModuleOp module, bool sharedLibrary) {
  SmallVector<func::FuncOp> models = getModelFunctions(module);
  if (sharedLibrary && models.size() != 1)
    return module.emitError("a shared library holds exactly one model; this "
                            "module has ")
           << models.size();
  return models;
}

std::string mlc::host::getNodeName(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

LogicalResult mlc::host::addLauncherArgument(func::FuncOp f, StringRef marker) {
  MLIRContext *ctx = f.getContext();
  auto name = NamedAttribute(StringAttr::get(ctx, "mlc_graph.name"),
                             StringAttr::get(ctx, "launcher"));
  if (failed(f.insertArgument(0, LLVM::LLVMPointerType::get(ctx),
                              DictionaryAttr::get(ctx, {name}), f.getLoc())))
    return f.emitError("cannot add the launcher argument");
  f->setAttr(marker, UnitAttr::get(ctx));
  return success();
}

void mlc::host::callLauncher(OpBuilder &b, Location loc, Value launcher,
                             int32_t index, ValueRange args) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto i32 = b.getI32Type();
  Value context = LLVM::LoadOp::create(b, loc, ptr, launcher);
  Value fnSlot = LLVM::GEPOp::create(b, loc, ptr, ptr, launcher,
                                     ArrayRef<LLVM::GEPArg>{1});
  Value fn = LLVM::LoadOp::create(b, loc, ptr, fnSlot);
  Value number =
      LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(index));
  SmallVector<Type> params{ptr, i32};
  params.append(args.size(), ptr);
  SmallVector<Value> operands{fn, context, number};
  operands.append(args.begin(), args.end());
  LLVM::CallOp::create(b, loc, LLVM::LLVMFunctionType::get(i32, params),
                       operands);
}

Value mlc::host::storeBufferAddress(OpBuilder &b, Location loc, Value buffer,
                                    Value array, int32_t index) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value integer = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, integer);
  Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, array,
                                   ArrayRef<LLVM::GEPArg>{index});
  LLVM::StoreOp::create(b, loc, pointer, slot);
  return slot;
}

LogicalResult
mlc::host::updateSignature(func::FuncOp f,
                           function_ref<void(abi::ModelSignature &)> update) {
  auto json = f->getAttrOfType<StringAttr>("mlc_loop.signature");
  if (!json)
    return f.emitError("the model has no mlc_loop.signature");
  llvm::Expected<abi::ModelSignature> signature =
      abi::parseModelSignature(json.getValue());
  if (!signature)
    return f.emitError("bad mlc_loop.signature: ")
           << llvm::toString(signature.takeError());
  update(*signature);
  f->setAttr("mlc_loop.signature",
             StringAttr::get(f.getContext(), abi::toJSON(*signature)));
  return success();
}

std::string mlc::host::getNodeSymbolSuffix(Location loc) {
  std::string name = getNodeName(loc);
  // The end of a hierarchical exporter name is the specific part: the
  // block and the op type (`.../block.1/block.1.0/Conv`).
  constexpr size_t kMaxLength = 48;
  if (name.size() > kMaxLength)
    name = name.substr(name.size() - kMaxLength);
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}
