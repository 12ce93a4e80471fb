//===- CollapseElementwiseRows.cpp - Long rows for elementwise ops --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "CollapseElementwiseRows.h"

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUCOLLAPSEELEMENTWISEROWS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
/// Whether `op`'s two innermost loops can be one: see
/// collapseElementwiseRows. `source` gives the value an operand stands for
/// (a kernel's argument stands for the kernel's operand). A kernel root's
/// mark is no mark of the tiling pass.
bool collapsible(linalg::GenericOp op, int64_t minRow,
                 function_ref<Value(Value)> source) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumLoops() < 2)
    return false;
  for (NamedAttribute attr : op->getDiscardableAttrDictionary())
    if (attr.getName() != mlc::loop::LoopDialect::RootAttrHelper::getNameStr())
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
    Value value = source(operand.get());
    if (!type || !type.hasStaticShape() ||
        value.getDefiningOp<tensor::ExtractSliceOp>() ||
        matchPattern(value, m_Constant()))
      return false;
  }
  // Every operand reads the loops as its dims, in order, so each one
  // collapses the same way (upstream's collapsing crashed on broadcasts
  // through size-1 dims).
  return llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// Collapses `op`'s two innermost loops; returns the new op.
linalg::LinalgOp collapseRows(RewriterBase &rewriter, linalg::GenericOp op) {
  unsigned inner = op.getNumLoops() - 1;
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d + 1 < inner; ++d)
    groups.push_back({d});
  groups.push_back({inner - 1, inner});
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return nullptr;
  rewriter.replaceOp(op, collapsed->results);
  return collapsed->collapsedOp;
}
} // namespace

void mlc::target::collapseElementwiseRows(RewriterBase &rewriter,
                                          func::FuncOp func, int64_t minRow) {
  SmallVector<linalg::GenericOp> ops;
  auto itself = [](Value v) { return v; };
  for (Operation &op : func.getBody().front())
    if (auto generic = dyn_cast<linalg::GenericOp>(&op))
      if (collapsible(generic, minRow, itself))
        ops.push_back(generic);
  for (linalg::GenericOp op : ops)
    (void)collapseRows(rewriter, op);
}

void mlc::target::collapseKernelRows(RewriterBase &rewriter,
                                     loop::KernelOp kernel, int64_t minRow) {
  auto root = dyn_cast_or_null<linalg::GenericOp>(loop::getKernelRoot(kernel));
  if (!root || root->getParentOp() != kernel.getOperation())
    return;
  Block &body = kernel.getBody().front();
  auto source = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body ? kernel->getOperand(arg.getArgNumber())
                                          : v;
  };
  if (!collapsible(root, minRow, source))
    return;
  if (linalg::LinalgOp collapsed = collapseRows(rewriter, root))
    collapsed->setAttr(loop::LoopDialect::RootAttrHelper::getNameStr(),
                       rewriter.getUnitAttr());
}

namespace {
struct CPUCollapseElementwiseRowsPass
    : mlc::target::impl::CPUCollapseElementwiseRowsBase<
          CPUCollapseElementwiseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<mlc::loop::KernelOp> kernels;
    getOperation().walk(
        [&](mlc::loop::KernelOp kernel) { kernels.push_back(kernel); });
    for (mlc::loop::KernelOp kernel : kernels)
      mlc::target::collapseKernelRows(rewriter, kernel, minRow);
  }
};
} // namespace
