//===- OutlineKernels.cpp - One function per loop nest --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelFunctions.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include <map>

namespace mlc::host {
#define GEN_PASS_DEF_HOSTOUTLINEKERNELS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// Types the bare-pointer calling convention passes: scalars and
/// identity-layout, static memrefs. Zero-element memrefs stay in the model
/// function: upstream's func-to-llvm does not convert a private function
/// that takes one (the nest does no work anyway).
bool isPassable(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.getLayout().isIdentity() && memref.hasStaticShape() &&
           memref.getNumElements() > 0;
  return type.isIntOrIndexOrFloat();
}

/// Whether a memref result of `op` (an `scf.if` of an ONNX If) may be a
/// global's memory. A function returns a memref under the bare-pointer
/// convention as its descriptor's allocated pointer, which is a sentinel
/// for a global (a branch that yields a constant): such an op stays in the
/// model function.
bool mayYieldGlobal(Operation *op) {
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      Operation *terminator = block.getTerminator();
      if (!terminator)
        continue;
      for (Value v : terminator->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!isa<BaseMemRefType>(v.getType()) || !def)
          continue;
        if (isa<memref::GetGlobalOp>(def) ||
            (def->getNumRegions() > 0 && mayYieldGlobal(def)))
          return true;
      }
    }
  return false;
}

/// Ops re-created inside a kernel instead of being passed to it. A
/// global (the weights) that can be passed is an argument, so that
/// repeated blocks' kernels differ only in what they are given.
bool isRematerializable(Operation *op) {
  if (!op || op->getNumOperands() != 0 || op->getNumRegions() != 0)
    return false;
  if (auto global = dyn_cast<memref::GetGlobalOp>(op))
    return !isPassable(global.getType());
  return op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `type` is a buffer of run-time size with the default layout:
/// passed as its data pointer and its sizes (a `memref<0xT>` and index
/// arguments), and viewed again at those sizes inside the kernel.
bool isRunTimeSized(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && !memref.hasStaticShape() &&
         memref.getLayout().isIdentity() &&
         memref.getElementType().isIntOrIndexOrFloat();
}

/// Adds what a kernel needs to read `v` to `arguments` (values passed in)
/// and `cloned` (ops made again inside, in order): constants and globals
/// are made again, passable buffers passed, buffers of run-time size
/// collected in `sized` (passed as a pointer and sizes), and a static
/// strided view (a slice of a buffer whose rows are padded, an im2col
/// matrix with aligned rows) is made again inside from the buffer it views.
/// False when `v` cannot reach the kernel.
bool capture(Value v, llvm::SetVector<Value> &arguments,
             llvm::SetVector<Operation *> &cloned,
             llvm::SetVector<Value> &sized) {
  Operation *def = v.getDefiningOp();
  if (isRematerializable(def)) {
    cloned.insert(def);
    return true;
  }
  if (isPassable(v.getType())) {
    arguments.insert(v);
    return true;
  }
  if (isRunTimeSized(v.getType())) {
    sized.insert(v);
    return true;
  }
  if (!isa_and_nonnull<memref::SubViewOp, memref::ExpandShapeOp,
                       memref::CollapseShapeOp>(def) ||
      !cast<MemRefType>(v.getType()).hasStaticShape() ||
      def->getNumOperands() != 1 ||
      !capture(def->getOperand(0), arguments, cloned, sized))
    return false;
  cloned.insert(def);
  return true;
}

struct HostOutlineKernelsPass
    : mlc::host::impl::HostOutlineKernelsBase<HostOutlineKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    outlined.clear();
    for (func::FuncOp model : mlc::host::getModelFunctions(module)) {
      SmallVector<Operation *> kernels;
      for (Operation &op : model.getBody().front())
        if (op.getNumRegions() > 0)
          kernels.push_back(&op);
      unsigned index = 0;
      for (Operation *kernel : kernels)
        outline(symbols, model, kernel, index++);
    }
    if (shareIdentical)
      shareIdenticalKernels(symbols, module);
  }

  /// Calls to a kernel identical to an earlier one (same type, same body
  /// but for locations) call the earlier one; the copy is erased.
  void shareIdenticalKernels(SymbolTable &symbols, ModuleOp module) {
    // Candidates by type and by the sequence of their operations' names.
    std::map<std::pair<std::string, std::string>, SmallVector<func::FuncOp>>
        buckets;
    llvm::DenseMap<StringAttr, func::FuncOp> replacement;
    for (func::FuncOp f : outlined) {
      std::string type, ops;
      llvm::raw_string_ostream typeOs(type), opsOs(ops);
      f.getFunctionType().print(typeOs);
      f.getBody().walk([&](Operation *op) {
        opsOs << op->getName().getStringRef() << ';';
      });
      SmallVector<func::FuncOp> &bucket = buckets[{type, ops}];
      func::FuncOp same;
      for (func::FuncOp kept : bucket)
        if (OperationEquivalence::isRegionEquivalentTo(
                &kept.getBody(), &f.getBody(),
                OperationEquivalence::IgnoreLocations)) {
          same = kept;
          break;
        }
      if (same)
        replacement[f.getSymNameAttr()] = same;
      else
        bucket.push_back(f);
    }
    if (replacement.empty())
      return;
    module.walk([&](func::CallOp call) {
      auto it = replacement.find(call.getCalleeAttr().getAttr());
      if (it != replacement.end())
        call.setCallee(it->second.getSymName());
    });
    for (auto &[name, kept] : replacement)
      symbols.erase(symbols.lookup(name));
  }

  /// The functions this pass made, in order.
  SmallVector<func::FuncOp> outlined;

  void outline(SymbolTable &symbols, func::FuncOp model, Operation *kernel,
               unsigned index) {
    // Everything the kernel reads from outside.
    llvm::SetVector<Value> captured;
    for (Value operand : kernel->getOperands())
      captured.insert(operand);
    getUsedValuesDefinedAbove(kernel->getRegions(), captured);
    llvm::SetVector<Value> arguments;
    llvm::SetVector<Operation *> cloned;
    llvm::SetVector<Value> sized;
    for (Value v : captured)
      if (!capture(v, arguments, cloned, sized))
        return;
    // A bufferized loop yields the buffers it was given (one-shot
    // bufferization makes each yielded buffer its iter_arg's): a result of
    // run-time size is read from the init instead, and not returned. (Such
    // loops, a depthwise convolution's tiles over an image of run-time
    // size, stayed in the model function, untimed and unprofiled.)
    SmallVector<unsigned> returned;
    auto loop = dyn_cast<scf::ForOp>(kernel);
    for (auto [i, result] : llvm::enumerate(kernel->getResults())) {
      if (isPassable(result.getType())) {
        returned.push_back(i);
        continue;
      }
      if (!loop || !isRunTimeSized(result.getType()) ||
          loop.getInitArgs()[i].getType() != result.getType())
        return;
    }
    if (mayYieldGlobal(kernel))
      return;
    if (loop)
      for (auto [i, result] : llvm::enumerate(loop.getResults()))
        if (!isPassable(result.getType()))
          result.replaceAllUsesWith(loop.getInitArgs()[i]);
    SmallVector<Type> resultTypes;
    for (unsigned i : returned)
      resultTypes.push_back(kernel->getResult(i).getType());

    // A buffer of run-time size goes in as its data (a memref<0xT> view)
    // and one index per dynamic dim, after the other arguments.
    OpBuilder outer(kernel);
    Location loc = kernel->getLoc();
    SmallVector<Value> callArgs(arguments.begin(), arguments.end());
    for (Value v : sized) {
      auto type = cast<MemRefType>(v.getType());
      callArgs.push_back(memref::ReinterpretCastOp::create(
          outer, loc, MemRefType::get({0}, type.getElementType()), v,
          outer.getIndexAttr(0), ArrayRef<OpFoldResult>{outer.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{outer.getIndexAttr(1)}));
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          callArgs.push_back(memref::DimOp::create(outer, loc, v, d));
    }

    OpBuilder b(model);
    std::string name = (model.getSymName() + "_k" + Twine(index)).str();
    std::string suffix = mlc::host::getNodeSymbolSuffix(kernel->getLoc());
    if (!suffix.empty())
      name += "_" + suffix;
    auto type =
        b.getFunctionType(ValueRange(callArgs).getTypes(), resultTypes);
    auto func = func::FuncOp::create(b, kernel->getLoc(), name, type);
    func.setPrivate();
    outlined.push_back(func);
    // Internal to the object: kernels are not part of the model's ABI.
    func->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                      b.getContext(), LLVM::Linkage::Internal));
    func->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
    symbols.insert(func);

    Block *body = func.addEntryBlock();
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    for (auto [outerValue, arg] : llvm::zip(arguments, body->getArguments()))
      mapping.map(outerValue, arg);
    // Buffers of run-time size: their data at their sizes, row-major.
    unsigned next = arguments.size();
    for (Value v : sized) {
      auto memType = cast<MemRefType>(v.getType());
      Value data = body->getArgument(next++);
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < memType.getRank(); ++d)
        sizes.push_back(memType.isDynamicDim(d)
                            ? OpFoldResult(body->getArgument(next++))
                            : OpFoldResult(inner.getIndexAttr(
                                  memType.getDimSize(d))));
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = inner.getIndexAttr(1);
      AffineExpr s0, s1;
      bindSymbols(inner.getContext(), s0, s1);
      for (int64_t d = memType.getRank() - 1; d >= 0; --d) {
        strides[d] = stride;
        stride = affine::makeComposedFoldedAffineApply(inner, loc, s0 * s1,
                                                       {stride, sizes[d]});
      }
      mapping.map(v, memref::ReinterpretCastOp::create(
                         inner, loc, memType, data, inner.getIndexAttr(0),
                         sizes, strides)
                         .getResult());
    }
    for (Operation *def : cloned)
      inner.clone(*def, mapping);
    Operation *copy = inner.clone(*kernel, mapping);
    SmallVector<Value> results;
    for (unsigned i : returned)
      results.push_back(copy->getResult(i));
    func::ReturnOp::create(inner, kernel->getLoc(), results);

    auto call = func::CallOp::create(outer, kernel->getLoc(), func, callArgs);
    for (auto [i, result] : llvm::zip(returned, call.getResults()))
      kernel->getResult(i).replaceAllUsesWith(result);
    kernel->erase();
  }
};
} // namespace
