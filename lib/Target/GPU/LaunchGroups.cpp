//===- LaunchGroups.cpp - Loop nests one GPU launch runs together ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LaunchGroups.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlc::target;

namespace {
/// The buffer `value` is a view of, and the byte range in it of the
/// `memref.view` (at a constant offset, of a static shape) it is or lies in.
struct Place {
  Value root;
  std::optional<std::pair<int64_t, int64_t>> bytes;
};

Place getPlace(Value value) {
  Place place{value, std::nullopt};
  // A view of a view (a subview, a reshape) lies within the outer one.
  Value outer = value;
  while (!outer.getDefiningOp<memref::ViewOp>())
    if (auto view = outer.getDefiningOp<ViewLikeOpInterface>())
      outer = view.getViewSource();
    else
      break;
  if (auto view = outer.getDefiningOp<memref::ViewOp>()) {
    auto type = view.getType();
    std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
    if (offset && type.hasStaticShape() &&
        type.getElementType().isIntOrFloat())
      // Elements narrower than a byte (i1) take a byte each.
      place.bytes = {*offset,
                     *offset + type.getNumElements() *
                                   llvm::divideCeil(
                                       type.getElementTypeBitWidth(), 8)};
  }
  while (auto view = place.root.getDefiningOp<ViewLikeOpInterface>())
    place.root = view.getViewSource();
  return place;
}

/// Whether two buffers may share memory.
bool mayOverlap(Value a, Value b) {
  if (a == b)
    return true;
  Place pa = getPlace(a), pb = getPlace(b);
  // Distinct arguments of the model (arena, weights, inputs, outputs) are
  // distinct buffers.
  if (pa.root != pb.root)
    return !(isa<BlockArgument>(pa.root) && isa<BlockArgument>(pb.root));
  if (!pa.bytes || !pb.bytes)
    return true;
  return pa.bytes->first < pb.bytes->second &&
         pb.bytes->first < pa.bytes->second;
}

bool allParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// An all-parallel op with one result, written through the identity, whose
/// loops are `shape`.
bool isElementwiseOver(linalg::LinalgOp op, ArrayRef<int64_t> shape) {
  return op.hasPureBufferSemantics() && allParallel(op) &&
         op.getNumDpsInits() == 1 &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() &&
         op.getStaticLoopRanges() == shape;
}

SmallVector<int64_t> getResultShape(linalg::LinalgOp root) {
  return llvm::to_vector(
      cast<MemRefType>(root.getDpsInitOperand(0)->get().getType()).getShape());
}
} // namespace

bool mlc::target::ownsResultElements(linalg::LinalgOp root) {
  if (!root.hasPureBufferSemantics() || root.getNumDpsInits() != 1 ||
      !cast<MemRefType>(root.getDpsInitOperand(0)->get().getType())
           .hasStaticShape())
    return false;
  AffineMap map = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
  SmallVector<unsigned> parallel;
  for (auto [d, iterator] : llvm::enumerate(root.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(d);
  if (map.getNumResults() != parallel.size())
    return false;
  for (auto [expr, d] : llvm::zip(map.getResults(), parallel))
    if (!expr.isFunctionOfDim(d) || !isa<AffineDimExpr>(expr))
      return false;
  return true;
}

bool mlc::target::canStartAccumulator(linalg::LinalgOp init,
                                      linalg::LinalgOp root) {
  if (allParallel(root) || !isElementwiseOver(init, getResultShape(root)))
    return false;
  Value accumulator = root.getDpsInitOperand(0)->get();
  if (init.getDpsInitOperand(0)->get() != accumulator)
    return false;
  // What the init reads stays as it is while the root runs.
  for (OpOperand *input : init.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        mayOverlap(input->get(), accumulator))
      return false;
  return true;
}

bool mlc::target::canRunAfter(linalg::LinalgOp op, const LaunchGroup &group) {
  if (!isElementwiseOver(op, getResultShape(group.root)))
    return false;
  linalg::LinalgOp last =
      group.epilogues.empty() ? group.root : group.epilogues.back();
  Value current = last.getDpsInitOperand(0)->get();
  SmallVector<linalg::LinalgOp> members{group.root};
  if (group.init)
    members.push_back(group.init);
  llvm::append_range(members, group.epilogues);
  bool readsCurrent = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (!isa<MemRefType>(value.getType()))
      continue;
    if (value == current && op.getMatchingIndexingMap(input).isIdentity()) {
      readsCurrent = true;
      continue;
    }
    // Anything else it reads, no member writes.
    for (linalg::LinalgOp member : members)
      if (mayOverlap(value, member.getDpsInitOperand(0)->get()))
        return false;
  }
  if (!readsCurrent)
    return false;
  // Its result, written while other threads still run the group, overlaps
  // nothing a member reads (but may be the element it reads itself).
  Value result = op.getDpsInitOperand(0)->get();
  for (linalg::LinalgOp member : members)
    for (OpOperand *input : member.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          mayOverlap(input->get(), result))
        return false;
  // Nor anything a member writes but the current result itself.
  if (result != current && mayOverlap(result, current))
    return false;
  for (linalg::LinalgOp member : members) {
    Value written = member.getDpsInitOperand(0)->get();
    if (written != current && mayOverlap(written, result))
      return false;
  }
  return true;
}

bool mlc::target::canSwap(linalg::LinalgOp op, linalg::LinalgOp other) {
  auto writes = [](linalg::LinalgOp a, linalg::LinalgOp b) {
    for (Value written : a.getDpsInits())
      for (Value touched : b->getOperands())
        if (isa<MemRefType>(touched.getType()) && mayOverlap(written, touched))
          return true;
    return false;
  };
  return op.hasPureBufferSemantics() && other.hasPureBufferSemantics() &&
         !writes(op, other) && !writes(other, op);
}
