//===- CollapseElementwiseRows.cpp - Long rows for elementwise ops --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "CollapseElementwiseRows.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {
/// Whether `op`'s two innermost loops can be one: see
/// collapseElementwiseRows.
bool collapsible(linalg::GenericOp op, int64_t minRow) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumLoops() < 2 || !op->getDiscardableAttrDictionary().empty())
    return false;
  if (llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() >= minRow)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    // (Constants would be reshaped at compile time: weights stay as the
    // importer laid them out.)
    if (!type || !type.hasStaticShape() ||
        operand.get().getDefiningOp<tensor::ExtractSliceOp>() ||
        matchPattern(operand.get(), m_Constant()))
      return false;
  }
  // Every operand reads the loops as its dims, in order, so each one
  // collapses the same way (upstream's collapsing crashed on broadcasts
  // through size-1 dims).
  return llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}
} // namespace

void mlc::target::collapseElementwiseRows(RewriterBase &rewriter,
                                          func::FuncOp func, int64_t minRow) {
  SmallVector<linalg::GenericOp> ops;
  for (Operation &op : func.getBody().front())
    if (auto generic = dyn_cast<linalg::GenericOp>(&op))
      if (collapsible(generic, minRow))
        ops.push_back(generic);
  for (linalg::GenericOp op : ops) {
    unsigned inner = op.getNumLoops() - 1;
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d + 1 < inner; ++d)
      groups.push_back({d});
    groups.push_back({inner - 1, inner});
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, groups, rewriter);
    if (succeeded(collapsed))
      rewriter.replaceOp(op, collapsed->results);
  }
}
