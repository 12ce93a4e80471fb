//===- LowerCopies.cpp - Buffer copies as row memcpys ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A copy between statically shaped buffers whose innermost dimension has
// unit stride on both sides becomes loops over its outer dimensions around
// a `memref.copy` of the longest run that is contiguous in both; the LLVM
// lowering emits that as `llvm.memcpy`. Other non-contiguous copies become
// `linalg.copy`, which later becomes element loops.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPULOWERCOPIES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
bool isContiguous(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getLayout().isIdentity();
}

/// The first dimension from which `type` is contiguous to its end (its rank
/// when even the innermost dimension has a non-unit stride), or -1 when the
/// strides are not known.
int64_t contiguousSuffixStart(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() || failed(type.getStridesAndOffset(strides, offset)))
    return -1;
  int64_t rank = type.getRank();
  int64_t expected = 1;
  int64_t start = rank;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != expected)
      break;
    expected *= type.getDimSize(d);
    start = d;
  }
  return start;
}

/// Rewrites the copy `source -> target` as loops around contiguous runs.
/// Returns false (and builds nothing) when the innermost dimension is not
/// contiguous on both sides or the run would be shorter than `minRun`.
bool buildRowCopies(OpBuilder &b, Location loc, Value source, Value target) {
  constexpr int64_t minRun = 4;
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  auto targetType = dyn_cast<MemRefType>(target.getType());
  if (!sourceType || !targetType || sourceType.getRank() == 0 ||
      sourceType.getShape() != targetType.getShape())
    return false;
  int64_t start = std::max(contiguousSuffixStart(sourceType),
                           contiguousSuffixStart(targetType));
  int64_t rank = sourceType.getRank();
  if (contiguousSuffixStart(sourceType) < 0 ||
      contiguousSuffixStart(targetType) < 0 || start >= rank)
    return false;
  int64_t run = 1;
  for (int64_t d = start; d < rank; ++d)
    run *= sourceType.getDimSize(d);
  if (run < minRun)
    return false;

  // Loops over the dims before `start`; the run is a rank-reduced subview
  // of the remaining dims, collapsed to one dimension.
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(d < start ? 1 : sourceType.getDimSize(d)));
  OpBuilder::InsertionGuard guard(b);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> uppers;
  for (int64_t d = 0; d < start; ++d)
    uppers.push_back(
        arith::ConstantIndexOp::create(b, loc, sourceType.getDimSize(d)));
  for (int64_t d = 0; d < start; ++d) {
    if (sourceType.getDimSize(d) == 1)
      continue;
    auto loop = scf::ForOp::create(b, loc, zero, uppers[d], one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    offsets[d] = loop.getInductionVar();
  }
  SmallVector<int64_t> runShape(sourceType.getShape().drop_front(start));
  auto slice = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    auto reducedType = memref::SubViewOp::inferRankReducedResultType(
        runShape, type, offsets, sizes, strides);
    Value view = memref::SubViewOp::create(b, loc, cast<MemRefType>(reducedType),
                                           buffer, offsets, sizes, strides);
    if (runShape.size() == 1)
      return view;
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, runShape.size()));
    return memref::CollapseShapeOp::create(b, loc, view,
                                           ArrayRef<ReassociationIndices>{all});
  };
  Value from = slice(source);
  Value to = slice(target);
  memref::CopyOp::create(b, loc, from, to);
  return true;
}

struct CPULowerCopiesPass
    : mlc::target::impl::CPULowerCopiesBase<CPULowerCopiesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> copies;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
          copies.push_back(op);
      } else if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
        if (copy.hasPureBufferSemantics())
          copies.push_back(op);
      }
    });
    for (Operation *op : copies) {
      OpBuilder b(op);
      Value source = op->getOperand(0), target = op->getOperand(1);
      if (buildRowCopies(b, op->getLoc(), source, target)) {
        op->erase();
        continue;
      }
      if (isa<memref::CopyOp>(op)) {
        linalg::CopyOp::create(b, op->getLoc(), source, target);
        op->erase();
      }
    }
  }
};
} // namespace
