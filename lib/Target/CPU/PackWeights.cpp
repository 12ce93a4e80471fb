//===- PackWeights.cpp - Constant right-hand sides in panel layout --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "ConstantData.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUPACKWEIGHTS
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
bool isStaticF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
}

/// The dim `e` refers to.
unsigned dimOf(AffineExpr e) { return cast<AffineDimExpr>(e).getPosition(); }

/// Rewrites `op` to read its constant right-hand side in panels of `panel`
/// columns; returns false (leaving `op` alone) when it does not apply.
bool packRightHandSide(RewriterBase &rewriter, linalg::LinalgOp op,
                       int64_t panel) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !llvm::all_of(op->getOperandTypes(), isStaticF32))
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->n.size() != 1)
    return false;
  unsigned kDim = dims->k[0], nDim = dims->n[0];
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!resultMap.isProjectedPermutation() || resultMap.getNumResults() == 0 ||
      dimOf(resultMap.getResults().back()) != nDim)
    return false;
  // The right-hand side: exactly B[k, n], a constant.
  OpOperand *rhs = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 2 && map.isProjectedPermutation() &&
        dimOf(map.getResult(0)) == kDim && dimOf(map.getResult(1)) == nDim)
      rhs = input;
  }
  if (!rhs)
    return false;
  auto constant = rhs->get().getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return false;
  std::optional<ArrayRef<char>> data =
      mlc::target::getConstantBytes(cast<ElementsAttr>(constant.getValue()));
  auto rhsType = cast<RankedTensorType>(rhs->get().getType());
  int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
  if (!data || n % panel != 0 || n <= panel)
    return false;

  // B'[n1, k, n0] = B[k, n1 * panel + n0].
  auto packedType = RankedTensorType::get({n / panel, k, panel},
                                          rhsType.getElementType());
  DenseResourceElementsAttr packed = mlc::target::makeConstantBlob(
      packedType, "packed", data->size(), [&](MutableArrayRef<char> out) {
        const float *src = reinterpret_cast<const float *>(data->data());
        float *dst = reinterpret_cast<float *>(out.data());
        for (int64_t n1 = 0; n1 < n / panel; ++n1)
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t n0 = 0; n0 < panel; ++n0)
              *dst++ = src[kk * n + n1 * panel + n0];
      });

  // Loops: the old ones, with nDim now counting panels (n1), plus n0 last.
  MLIRContext *ctx = rewriter.getContext();
  unsigned numLoops = op.getNumLoops();
  AffineExpr n0 = getAffineDimExpr(numLoops, ctx);
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<AffineExpr> results(map.getResults());
    if (&operand == rhs)
      results = {getAffineDimExpr(nDim, ctx), getAffineDimExpr(kDim, ctx), n0};
    else if (&operand == op.getDpsInitOperand(0))
      results.push_back(n0);
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value packedValue = arith::ConstantOp::create(rewriter, loc, packed);
  Value init = op.getDpsInitOperand(0)->get();
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> panelShape(initType.getShape().drop_back());
  panelShape.append({n / panel, panel});
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0; d + 1 < initType.getRank(); ++d)
    reassociation.push_back({d});
  reassociation.push_back({initType.getRank() - 1, initType.getRank()});
  auto panelType = RankedTensorType::get(panelShape, initType.getElementType());
  Value panelInit = tensor::ExpandShapeOp::create(rewriter, loc, panelType,
                                                  init, reassociation);
  SmallVector<Value> inputs;
  for (OpOperand *input : op.getDpsInputOperands())
    inputs.push_back(input == rhs ? packedValue : input->get());
  auto generic = linalg::GenericOp::create(rewriter, loc, panelType, inputs,
                                           panelInit, maps, iterators);
  rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                             generic.getRegion().end());
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, initType, generic.getResult(0), reassociation);
  rewriter.replaceOp(op, result);
  if (constant->use_empty())
    rewriter.eraseOp(constant);
  return true;
}

struct CPUPackWeightsPass
    : mlc::target::impl::CPUPackWeightsBase<CPUPackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates)
      packRightHandSide(rewriter, op, panel);
  }
};
} // namespace
