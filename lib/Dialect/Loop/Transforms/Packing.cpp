//===- Packing.cpp - Right-hand sides read in panels ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Packing.h"

#include "mlc/Dialect/Loop/Utils/ConstantData.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstring>

using namespace mlir;

namespace {
/// The dim `e` refers to.
unsigned dimOf(AffineExpr e) { return cast<AffineDimExpr>(e).getPosition(); }

bool isStatic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}
} // namespace

std::optional<std::pair<unsigned, unsigned>>
mlc::loop::getPackableOperand(linalg::LinalgOp op, OpOperand *operand,
                                int64_t panel) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !isStatic(operand->get().getType()) ||
      !llvm::all_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>) ||
      panel <= 0)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1)
    return std::nullopt;
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!resultMap.isProjectedPermutation() || resultMap.getNumResults() == 0)
    return std::nullopt;
  unsigned kDim = dims->k[0], nDim = dimOf(resultMap.getResults().back());
  if (!llvm::is_contained(dims->n, nDim))
    return std::nullopt;
  // B[batch..., k, n]: every result before k a dim of the result too (a
  // batch dim, or an outer column dim such as the image of an im2col
  // matrix [N, C*kh*kw, OH*OW]).
  AffineMap map = op.getMatchingIndexingMap(operand);
  unsigned rank = map.getNumResults();
  if (rank < 2 || !map.isProjectedPermutation() ||
      dimOf(map.getResult(rank - 2)) != kDim ||
      dimOf(map.getResult(rank - 1)) != nDim)
    return std::nullopt;
  for (AffineExpr e : map.getResults().drop_back(2))
    if (!llvm::is_contained(dims->batch, dimOf(e)) &&
        !llvm::is_contained(dims->n, dimOf(e)))
      return std::nullopt;
  int64_t n = cast<RankedTensorType>(operand->get().getType()).getShape().back();
  if (n % panel != 0 || n <= panel)
    return std::nullopt;
  return std::make_pair(kDim, nDim);
}

linalg::GenericOp mlc::loop::readPacked(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          OpOperand *operand, Value packed,
                                          unsigned kDim, unsigned nDim,
                                          int64_t panel) {
  // Loops: the old ones, with nDim now counting panels (n1), plus n0 last.
  MLIRContext *ctx = rewriter.getContext();
  unsigned numLoops = op.getNumLoops();
  AffineExpr n0 = getAffineDimExpr(numLoops, ctx);
  SmallVector<AffineMap> maps;
  for (OpOperand &each : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&each);
    SmallVector<AffineExpr> results(map.getResults());
    if (&each == operand) {
      results.pop_back();
      results.pop_back();
      results.append({getAffineDimExpr(nDim, ctx), getAffineDimExpr(kDim, ctx),
                      n0});
    } else if (&each == op.getDpsInitOperand(0)) {
      results.push_back(n0);
    }
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInitOperand(0)->get();
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t n = initType.getShape().back();
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
    inputs.push_back(input == operand ? packed : input->get());
  auto generic = linalg::GenericOp::create(rewriter, loc, panelType, inputs,
                                           panelInit, maps, iterators);
  rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                             generic.getRegion().end());
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, initType, generic.getResult(0), reassociation);
  rewriter.replaceOp(op, result);
  return generic;
}

Value mlc::loop::packPanels(RewriterBase &rewriter, Location loc,
                              Value value, int64_t panel) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  int64_t k = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  shape.append({n / panel, k, panel});
  // Loops (batch..., n1, k, n0) over the packed tensor.
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> read;
  for (int64_t d = 0; d + 2 < rank; ++d)
    read.push_back(getAffineDimExpr(d, ctx));
  AffineExpr n1 = getAffineDimExpr(rank - 2, ctx),
             kk = getAffineDimExpr(rank - 1, ctx),
             n0 = getAffineDimExpr(rank, ctx);
  read.append({kk, n1 * panel + n0});
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, read, ctx),
                                 rewriter.getMultiDimIdentityMap(rank + 1)};
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, empty.getType(), value, empty, maps,
             SmallVector<utils::IteratorType>(rank + 1,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, args[0]);
             })
      .getResult(0);
}

Value mlc::loop::readWithPaddedRows(RewriterBase &rewriter, Location loc,
                                    Value value, int64_t rowPad) {
  if (rowPad <= 0)
    return {};
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!constant || !type || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getElementType().isF32())
    return {};
  int64_t rows = type.getDimSize(0);
  if (rows < 2)
    return {};
  int64_t cols = type.getNumElements() / rows;
  std::optional<ArrayRef<char>> data =
      mlc::loop::getConstantBytes(cast<ElementsAttr>(constant.getValue()));
  if (!data)
    return {};
  int64_t stride = cols + rowPad;
  auto paddedType = RankedTensorType::get({rows, stride}, type.getElementType());
  DenseResourceElementsAttr padded = mlc::loop::makeConstantBlob(
      paddedType, "unaliased_rows", size_t(rows * stride * 4),
      [&](MutableArrayRef<char> out) {
        std::memset(out.data(), 0, out.size());
        for (int64_t r = 0; r < rows; ++r)
          std::memcpy(out.data() + r * stride * 4, data->data() + r * cols * 4,
                      size_t(cols * 4));
      });
  Value paddedValue = arith::ConstantOp::create(rewriter, loc, padded);
  return tensor::ExtractSliceOp::create(
      rewriter, loc, paddedValue,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rows),
                             rewriter.getIndexAttr(cols)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)});
}

OpOperand *mlc::loop::getPackableConstant(linalg::LinalgOp op,
                                          int64_t panel) {
  if (panel <= 0 || op.getNumDpsInputs() != 2 ||
      !llvm::all_of(op->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isF32();
      }))
    return nullptr;
  // The right-hand side: exactly B[k, n], a constant.
  for (OpOperand *rhs : op.getDpsInputOperands()) {
    auto constant = rhs->get().getDefiningOp<arith::ConstantOp>();
    if (!constant || op.getMatchingIndexingMap(rhs).getNumResults() != 2 ||
        !isa<RankedTensorType>(rhs->get().getType()))
      continue;
    if (getPackableOperand(op, rhs, panel) &&
        getConstantBytes(cast<ElementsAttr>(constant.getValue())))
      return rhs;
  }
  return nullptr;
}
