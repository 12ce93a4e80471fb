//===- HostAccess.cpp - Host code that reads what kernels wrote -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "HostAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

bool mlc::target::needsHostAccess(func::FuncOp func) {
  if (func->hasAttr("mlc_loop.check_messages"))
    return true;
  WalkResult found = func.walk([](Operation *op) {
    if (op->hasAttr("mlc_loop.caller_owned"))
      return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (auto buffer = dyn_cast<MemRefType>(type);
          buffer && !buffer.hasStaticShape())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether `use` hands its buffer on through host control flow: the yield
/// of a branch or loop the host runs, or a loop's initial value.
static bool handsOn(OpOperand &use, func::FuncOp func) {
  Operation *user = use.getOwner();
  // The op whose results or iteration values the buffer becomes.
  Operation *holder = nullptr;
  if (isa<scf::WhileOp>(user))
    holder = user;
  else if (isa<scf::YieldOp, scf::ConditionOp>(user))
    holder = user->getParentOp();
  else
    return false;
  for (Operation *op = holder; op != func.getOperation();
       op = op->getParentOp())
    if (!isa<scf::IfOp, scf::WhileOp>(op))
      return false;
  return true;
}

void mlc::target::copyHandedOnConstants(func::FuncOp func) {
  Block &body = func.getBody().front();
  for (auto global :
       llvm::make_early_inc_range(body.getOps<memref::GetGlobalOp>())) {
    SmallVector<OpOperand *> handed;
    for (OpOperand &use : global->getUses())
      if (handsOn(use, func))
        handed.push_back(&use);
    auto type = cast<MemRefType>(global.getType());
    if (handed.empty() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity())
      continue;
    OpBuilder b(global);
    b.setInsertionPointAfter(global);
    Location loc = global.getLoc();
    Value copy = memref::AllocOp::create(b, loc, type);
    linalg::CopyOp::create(b, loc, global.getResult(), copy);
    for (OpOperand *use : handed)
      use->set(copy);
    b.setInsertionPoint(body.getTerminator());
    memref::DeallocOp::create(b, loc, copy);
  }
}

bool mlc::target::touchesModelMemory(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, memref::DeallocOp,
             memref::ReshapeOp, memref::CopyOp, memref::AtomicRMWOp>(op);
}

/// Inserts the waits of `block`, given whether kernels may be running when
/// it starts; returns whether they may be when it ends.
static bool insertWaits(Block &block, bool pending, bool checks) {
  for (Operation &op : block) {
    // A branch the host takes: either branch's kernels may run after it.
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      bool after = branch.getElseRegion().empty() && pending;
      for (Region &region : branch->getRegions())
        if (!region.empty())
          after |= insertWaits(region.front(), pending, checks);
      pending = after;
      continue;
    }
    bool launches =
        op.walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    // A loop the host runs: its last iteration's kernels may be running
    // when the next starts.
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      pending |= launches;
      insertWaits(loop.getBefore().front(), pending, checks);
      insertWaits(loop.getAfter().front(), pending, checks);
      continue;
    }
    if (launches) {
      pending = true;
      continue;
    }
    // The entry point reads the status word after the return.
    bool reads = mlc::target::touchesModelMemory(&op) ||
                 (checks && isa<func::ReturnOp>(op));
    if (!pending || !reads)
      continue;
    OpBuilder b(&op);
    gpu::WaitOp::create(b, op.getLoc(), Type(), ValueRange());
    pending = false;
  }
  return pending;
}

void mlc::target::insertHostWaits(func::FuncOp func) {
  insertWaits(func.getBody().front(), /*pending=*/false,
              func->hasAttr("mlc_loop.check_messages"));
}

/// Replaces the uses of `value` inside `launch` by `replacement`.
static void replaceInside(gpu::LaunchOp launch, Value value,
                          Value replacement) {
  value.replaceUsesWithIf(replacement, [&](OpOperand &use) {
    return launch->isProperAncestor(use.getOwner());
  });
}

LogicalResult mlc::target::passHostValues(gpu::LaunchOp launch) {
  Location loc = launch.getLoc();
  Block &body = launch.getBody().front();
  OpBuilder host(launch);
  OpBuilder inside = OpBuilder::atBlockBegin(&body);
  // A size of a buffer of run-time sizes: kernel outlining would move the
  // `memref.dim` into the kernel, and the buffer with it.
  SetVector<Value> above;
  getUsedValuesDefinedAbove(launch.getBody(), above);
  for (Value value : above) {
    auto dim = value.getDefiningOp<memref::DimOp>();
    if (!dim)
      continue;
    auto type = dyn_cast<MemRefType>(dim.getSource().getType());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!type || type.hasStaticShape() || !index || !type.isStrided())
      continue;
    OpBuilder at(dim);
    auto metadata = memref::ExtractStridedMetadataOp::create(at, dim.getLoc(),
                                                             dim.getSource());
    replaceInside(launch, value, metadata.getSizes()[*index]);
  }
  above.clear();
  getUsedValuesDefinedAbove(launch.getBody(), above);
  for (Value value : above) {
    if (auto integer = dyn_cast<IntegerType>(value.getType());
        integer && integer.getWidth() < 32) {
      Value wide = arith::ExtUIOp::create(host, loc, host.getI32Type(), value);
      replaceInside(launch, value,
                    arith::TruncIOp::create(inside, loc, integer, wide));
      continue;
    }
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || type.hasStaticShape())
      continue;
    if (!type.getLayout().isIdentity())
      return launch.emitError("a kernel would take a buffer of run-time "
                              "sizes with a layout other than row-major: ")
             << type;
    // The host passes the address as a one-element buffer, and the sizes.
    auto metadata = memref::ExtractStridedMetadataOp::create(host, loc, value);
    Value address = memref::ReinterpretCastOp::create(
        host, loc, MemRefType::get({1}, type.getElementType()), value,
        /*offset=*/0, ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1});
    // The kernel views it with those sizes, row-major.
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    SmallVector<int64_t> staticStrides(rank);
    OpFoldResult stride = inside.getIndexAttr(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      sizes[d] = type.isDynamicDim(d)
                     ? OpFoldResult(metadata.getSizes()[d])
                     : OpFoldResult(inside.getIndexAttr(type.getDimSize(d)));
      strides[d] = stride;
      std::optional<int64_t> constant = getConstantIntValue(stride);
      staticStrides[d] = constant ? *constant : ShapedType::kDynamic;
      if (d == 0)
        break;
      std::optional<int64_t> size = getConstantIntValue(sizes[d]);
      if (constant && size) {
        stride = inside.getIndexAttr(*constant * *size);
        continue;
      }
      auto asValue = [&](OpFoldResult v) -> Value {
        if (auto attr = dyn_cast<Attribute>(v))
          return arith::ConstantIndexOp::create(
              inside, loc, cast<IntegerAttr>(attr).getInt());
        return cast<Value>(v);
      };
      stride =
          arith::MulIOp::create(inside, loc, asValue(stride), asValue(sizes[d]))
              .getResult();
    }
    auto viewType = MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(inside.getContext(), 0, staticStrides));
    Value view = memref::ReinterpretCastOp::create(
        inside, loc, viewType, address, inside.getIndexAttr(0), sizes, strides);
    replaceInside(launch, value,
                  memref::CastOp::create(inside, loc, type, view));
  }
  return success();
}
