//===- KernelBodies.cpp - What a GPU kernel's body reads -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelBodies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

/// The buffer `value` is a view of.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

llvm::DenseSet<Value> mlc::target::getReadOnlyBuffers(func::FuncOp func) {
  llvm::DenseSet<Value> written;
  func.walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      for (Value init : linalgOp.getDpsInits())
        written.insert(getRootBuffer(init));
    else if (auto copy = dyn_cast<memref::CopyOp>(op))
      written.insert(getRootBuffer(copy.getTarget()));
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      written.insert(getRootBuffer(store.getMemRef()));
  });
  llvm::DenseSet<Value> readOnly;
  for (Value arg : func.getArguments())
    if (isa<BaseMemRefType>(arg.getType()) && !written.contains(arg))
      readOnly.insert(arg);
  return readOnly;
}

bool mlc::target::isClonable(Operation *op,
                              const llvm::DenseSet<Value> &readOnly) {
  if (auto load = dyn_cast_or_null<memref::LoadOp>(op))
    return readOnly.contains(getRootBuffer(load.getMemRef()));
  if (!op || op->getNumResults() == 0)
    return false;
  // An `if` that picks one of two buffers (an ONNX If of constants).
  if (op->getNumRegions() > 0)
    return isa<scf::IfOp>(op) && isMemoryEffectFree(op);
  return isPure(op);
}

void mlc::target::collectCaptured(Operation *op,
                                  SetVector<Value> &captured) {
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  captured.insert(op->operand_begin(), op->operand_end());
}

Value mlc::target::cloneIntoBody(Value value, IRMapping &mapping,
                                 OpBuilder &b,
                                 const llvm::DenseSet<Value> &readOnly) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!isClonable(def, readOnly))
    return value;
  SetVector<Value> captured;
  collectCaptured(def, captured);
  for (Value operand : captured)
    cloneIntoBody(operand, mapping, b, readOnly);
  b.clone(*def, mapping);
  return mapping.lookup(value);
}


void mlc::target::reshapesAsViews(func::FuncOp func) {
  func.walk([](memref::ReshapeOp reshape) {
    auto source = cast<MemRefType>(reshape.getSource().getType());
    auto result = cast<MemRefType>(reshape.getResult().getType());
    if (!result.hasStaticShape() || !result.getLayout().isIdentity() ||
        !source.getLayout().isIdentity())
      return;
    OpBuilder b(reshape);
    SmallVector<int64_t> strides(result.getRank(), 1);
    for (int64_t d = result.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * result.getDimSize(d + 1);
    Value view = memref::ReinterpretCastOp::create(
        b, reshape.getLoc(), result, reshape.getSource(), /*offset=*/0,
        result.getShape(), strides);
    reshape.replaceAllUsesWith(view);
    reshape.erase();
  });
}

void mlc::target::scratchOnStack(Operation *kernel) {
  kernel->walk([](memref::AllocOp alloc) {
    OpBuilder b(alloc);
    auto stack = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                          alloc.getDynamicSizes(),
                                          alloc.getSymbolOperands(),
                                          alloc.getAlignmentAttr());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(stack.getResult());
    alloc.erase();
  });
}

