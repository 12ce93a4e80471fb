//===- LowerAssertions.cpp - Run-time checks as the model's status --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A compiled model never aborts its caller: a `cf.assert` that fails at run
// time records its number in a status word of the arena, and the entry
// point turns it into an error code (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Matchers.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTLOWERASSERTIONS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
LogicalResult lowerFunction(func::FuncOp f) {
  SmallVector<cf::AssertOp> asserts;
  f.walk([&](cf::AssertOp a) { asserts.push_back(a); });
  if (asserts.empty())
    return success();
  Block &body = f.front();
  for (cf::AssertOp a : asserts)
    if (a->getBlock() == &body && matchPattern(a.getArg(), m_Zero()))
      return a.emitError("the model always fails this check: ") << a.getMsg();

  MLIRContext *context = f.getContext();
  Location loc = f.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  auto i32 = IntegerType::get(context, 32);
  auto status = memref::AllocOp::create(b, loc, MemRefType::get({1}, i32));
  status->setAttr("mlc_loop.status", UnitAttr::get(context));
  Value origin = arith::ConstantIndexOp::create(b, loc, 0);
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  memref::StoreOp::create(b, loc, zero, status, origin);

  SmallVector<Attribute> messages;
  for (auto [i, a] : llvm::enumerate(asserts)) {
    messages.push_back(a.getMsgAttr());
    b.setInsertionPoint(a);
    Location at = a.getLoc();
    Value yes = arith::ConstantIntOp::create(b, at, 1, 1);
    Value failed = arith::XOrIOp::create(b, at, a.getArg(), yes);
    auto onFailure = scf::IfOp::create(b, at, failed, /*withElse=*/false);
    b.setInsertionPointToStart(onFailure.thenBlock());
    // The first failed check is the one reported.
    Value index = arith::ConstantIndexOp::create(b, at, 0);
    Value current = memref::LoadOp::create(b, at, status, index);
    Value none = arith::ConstantIntOp::create(b, at, i32, 0);
    Value first = arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                                       current, none);
    Value number = arith::ConstantIntOp::create(b, at, i32, i + 1);
    Value next = arith::SelectOp::create(b, at, first, number, current);
    memref::StoreOp::create(b, at, next, status, index);
    a.erase();
  }
  f->setAttr("mlc_loop.check_messages", ArrayAttr::get(context, messages));
  return success();
}

struct HostLowerAssertionsPass
    : mlc::host::impl::HostLowerAssertionsBase<HostLowerAssertionsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic() && failed(lowerFunction(f)))
        return signalPassFailure();
  }
};
} // namespace
