//===- StackScratch.cpp - Loop-local scratch buffers on the stack ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/Host/LoopScratch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/MapVector.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUSTACKSCRATCH
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Replaces the scratch buffers `allocs` of one block by stack allocations
/// freed at the end of the block: one stack save before the first, one
/// restore before the block's terminator, so that the stack does not grow
/// with the trip count. (A save and restore per buffer, restored in
/// creation order, left all but the last buffer's bytes on the stack in
/// each iteration.) `memref.alloca_scope` would say the same, but its
/// region must stay one block, and the loops inside it become several.
void allocateOnStack(ArrayRef<memref::AllocOp> allocs) {
  memref::AllocOp first = allocs.front();
  OpBuilder b(first);
  Location loc = first.getLoc();
  auto stack = LLVM::StackSaveOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()));
  b.setInsertionPoint(first->getBlock()->getTerminator());
  LLVM::StackRestoreOp::create(b, loc, stack);
  for (memref::AllocOp alloc : allocs) {
    b.setInsertionPoint(alloc);
    // Sizes known at run time (a partial tile's, bounded) make a dynamic
    // stack allocation, released with the block's others.
    auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                           alloc.getDynamicSizes(),
                                           alloc.getAlignmentAttr());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(alloca.getResult());
    alloc.erase();
  }
}

struct CPUStackScratchPass
    : mlc::target::impl::CPUStackScratchBase<CPUStackScratchPass> {
  using Base::Base;
  void runOnOperation() override {
    // Per block, in block order (the walk visits a block's ops in order).
    llvm::MapVector<Block *, SmallVector<memref::AllocOp>> scratch;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (mlc::host::isLoopScratch(alloc, maxBytes))
        scratch[alloc->getBlock()].push_back(alloc);
    });
    for (auto &[block, allocs] : scratch)
      allocateOnStack(allocs);
  }
};
} // namespace
