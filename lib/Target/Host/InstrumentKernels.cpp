//===- InstrumentKernels.cpp - Time every kernel call of a model ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelFunctions.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTINSTRUMENTKERNELS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
constexpr int32_t kClockMonotonic = 1; // Linux's CLOCK_MONOTONIC

/// `@mlc_profile_now() -> i64`: monotonic nanoseconds, made once per module
/// over libc's clock_gettime (a timespec is two 64-bit words on the 64-bit
/// targets mlc supports; the bare-pointer convention passes the memref as
/// its pointer).
func::FuncOp getOrCreateNow(ModuleOp module, SymbolTable &symbols) {
  if (auto now = symbols.lookup<func::FuncOp>("mlc_profile_now"))
    return now;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  auto timespec = MemRefType::get({2}, b.getI64Type());
  auto clock = symbols.lookup<func::FuncOp>("clock_gettime");
  if (!clock) {
    clock = func::FuncOp::create(
        b, loc, "clock_gettime",
        b.getFunctionType({b.getI32Type(), timespec}, {b.getI32Type()}));
    clock.setPrivate();
    symbols.insert(clock);
  }
  auto now = func::FuncOp::create(b, loc, "mlc_profile_now",
                                  b.getFunctionType({}, {b.getI64Type()}));
  now.setPrivate();
  now->setAttr("llvm.linkage",
               LLVM::LinkageAttr::get(b.getContext(), LLVM::Linkage::Internal));
  symbols.insert(now);
  OpBuilder in = OpBuilder::atBlockBegin(now.addEntryBlock());
  Value ts = memref::AllocaOp::create(in, loc, timespec);
  Value id = arith::ConstantIntOp::create(in, loc, kClockMonotonic, 32);
  func::CallOp::create(in, loc, clock, ValueRange{id, ts});
  Value zero = arith::ConstantIndexOp::create(in, loc, 0);
  Value one = arith::ConstantIndexOp::create(in, loc, 1);
  Value sec = memref::LoadOp::create(in, loc, ts, ValueRange{zero});
  Value nsec = memref::LoadOp::create(in, loc, ts, ValueRange{one});
  Value giga = arith::ConstantIntOp::create(in, loc, 1000000000, 64);
  Value total = arith::AddIOp::create(
      in, loc, arith::MulIOp::create(in, loc, sec, giga), nsec);
  func::ReturnOp::create(in, loc, total);
  return now;
}

struct HostInstrumentKernelsPass
    : mlc::host::impl::HostInstrumentKernelsBase<HostInstrumentKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp model : mlc::host::getModelFunctions(module))
      instrument(module, symbols, model);
  }

  void instrument(ModuleOp module, SymbolTable &symbols, func::FuncOp model) {
    std::string prefix = (model.getSymName() + "_k").str();
    SmallVector<func::CallOp> calls;
    model.walk([&](func::CallOp call) {
      if (call.getCallee().starts_with(prefix))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    func::FuncOp now = getOrCreateNow(module, symbols);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = model.getLoc();
    // The counters and the names, public so that a loader finds them.
    auto countersType =
        MemRefType::get({int64_t(calls.size())}, b.getI64Type());
    std::string countersName = (model.getSymName() + "_profile").str();
    memref::GlobalOp::create(
        b, loc, countersName, b.getStringAttr("public"), countersType,
        DenseElementsAttr::get(
            RankedTensorType::get(countersType.getShape(), b.getI64Type()),
            b.getI64IntegerAttr(0).getValue()),
        /*constant=*/false, /*alignment=*/b.getI64IntegerAttr(64));
    std::string names;
    for (func::CallOp call : calls)
      names += (call.getCallee().drop_front(prefix.size() - 1) + "\n").str();
    names.push_back('\0');
    auto namesType = MemRefType::get({int64_t(names.size())}, b.getI8Type());
    memref::GlobalOp::create(
        b, loc, (model.getSymName() + "_profile_names").str(),
        b.getStringAttr("public"), namesType,
        DenseElementsAttr::get(
            RankedTensorType::get(namesType.getShape(), b.getI8Type()),
            ArrayRef<char>(names.data(), names.size())),
        /*constant=*/true, /*alignment=*/nullptr);

    for (auto [k, call] : llvm::enumerate(calls)) {
      OpBuilder before(call);
      Value start = func::CallOp::create(before, call.getLoc(), now)
                        .getResult(0);
      OpBuilder after(call->getBlock(), std::next(call->getIterator()));
      Value end = func::CallOp::create(after, call.getLoc(), now).getResult(0);
      Value elapsed = arith::SubIOp::create(after, call.getLoc(), end, start);
      Value counters = memref::GetGlobalOp::create(after, call.getLoc(),
                                                   countersType, countersName);
      Value index = arith::ConstantIndexOp::create(after, call.getLoc(), k);
      memref::AtomicRMWOp::create(after, call.getLoc(),
                                  arith::AtomicRMWKind::addi, elapsed,
                                  counters, ValueRange{index});
    }
  }
};
} // namespace
