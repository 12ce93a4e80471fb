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

namespace mlc::target {
#define GEN_PASS_DEF_CPUSTACKSCRATCH
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Replaces `alloc` by a stack allocation that is freed at the end of its
/// block (a stack save before it, a restore before the block's terminator),
/// so that the stack does not grow with the trip count.
/// (`memref.alloca_scope` would say the same, but its region must stay one
/// block, and the loops inside it become several.)
void allocateOnStack(memref::AllocOp alloc) {
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  auto stack = LLVM::StackSaveOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()));
  auto alloca = memref::AllocaOp::create(b, loc, alloc.getType(),
                                         alloc.getAlignmentAttr());
  b.setInsertionPoint(alloc->getBlock()->getTerminator());
  LLVM::StackRestoreOp::create(b, loc, stack);
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  alloc.replaceAllUsesWith(alloca.getResult());
  alloc.erase();
}

struct CPUStackScratchPass
    : mlc::target::impl::CPUStackScratchBase<CPUStackScratchPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::AllocOp> scratch;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (mlc::host::isLoopScratch(alloc, maxBytes))
        scratch.push_back(alloc);
    });
    for (memref::AllocOp alloc : scratch)
      allocateOnStack(alloc);
  }
};
} // namespace
