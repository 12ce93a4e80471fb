//===- VerifyLLVM.cpp - The contract of the LLVM phase --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTVERIFYLLVM
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
struct HostVerifyLLVMPass
    : mlc::host::impl::HostVerifyLLVMBase<HostVerifyLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult result = module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // OpenMP ops are the threads of the code; LLVM IR export translates
      // them with the LLVM dialect.
      if (op == module.getOperation() ||
          isa_and_nonnull<LLVM::LLVMDialect, omp::OpenMPDialect>(
              op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "LLVM phase: op '" << op->getName()
                      << "' is not in the LLVM or OpenMP dialect";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (auto f : module.getOps<LLVM::LLVMFuncOp>()) {
      using Loop = mlc::loop::LoopDialect;
      bool signature = f->hasAttr(Loop::SignatureAttrHelper::getNameStr());
      bool arena = f->hasAttr(Loop::ArenaSizeAttrHelper::getNameStr());
      if (signature != arena) {
        f.emitError() << "LLVM phase: model function '" << f.getSymName()
                      << "' has " << (signature ? "a signature but no arena "
                                                  "size"
                                                : "an arena size but no "
                                                  "signature");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
