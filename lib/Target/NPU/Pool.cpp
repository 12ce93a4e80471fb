//===- Pool.cpp - Pooling on the NPU --------------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Pool.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {
/// Whether `value` is a float constant of -inf.
bool isMinusInfinity(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         attr.getValue().isInfinity() && attr.getValue().isNegative();
}
} // namespace

std::optional<Pool> mlc::npu::matchMaxPool(linalg::PoolingNchwMaxOp op,
                                           std::string &why) {
  why = "not a static float max pooling on tensors";
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return std::nullopt;
  Value padded = op.getInputs()[0];
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto window = cast<ShapedType>(op.getInputs()[1].getType());
  auto paddedType = cast<RankedTensorType>(padded.getType());
  if (!result.hasStaticShape() || !paddedType.hasStaticShape() ||
      !window.hasStaticShape() || !isa<FloatType>(result.getElementType()))
    return std::nullopt;
  std::optional<ElementType> type = getNPUElementType(result.getElementType());
  if (!type) {
    why = "an element type the NPU does not have";
    return std::nullopt;
  }
  if (llvm::any_of(op.getDilations().getValues<int64_t>(),
                   [](int64_t d) { return d != 1; })) {
    why = "a dilated pooling";
    return std::nullopt;
  }
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !isMinusInfinity(fill.getInputs()[0])) {
    why = "a pooling into something other than -inf";
    return std::nullopt;
  }
  Pool pool;
  pool.input = padded;
  pool.root = op;
  std::array<int64_t, 2> pads{0, 0};
  if (auto pad = padded.getDefiningOp<tensor::PadOp>()) {
    Value constant = pad.getConstantPaddingValue();
    ArrayRef<int64_t> low = pad.getStaticLow();
    if (!constant || !isMinusInfinity(constant) || low.size() != 4 ||
        low[0] != 0 || low[1] != 0 || pad.getStaticHigh()[0] != 0 ||
        pad.getStaticHigh()[1] != 0 || ShapedType::isDynamic(low[2]) ||
        ShapedType::isDynamic(low[3])) {
      why = "an input padded with something other than -inf on its rows and "
            "columns";
      return std::nullopt;
    }
    pool.input = pad.getSource();
    pool.producers.push_back(pad);
    pads = {low[2], low[3]};
  }
  auto input = cast<RankedTensorType>(pool.input.getType());
  if (!input.hasStaticShape())
    return std::nullopt;
  pool.producers.push_back(fill);
  PoolShape &s = pool.shape;
  s.planes = input.getDimSize(0) * input.getDimSize(1);
  s.height = input.getDimSize(2);
  s.width = input.getDimSize(3);
  s.outHeight = result.getDimSize(2);
  s.outWidth = result.getDimSize(3);
  s.window = {window.getDimSize(0), window.getDimSize(1)};
  SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
  s.strides = {strides[0], strides[1]};
  s.pads = pads;
  s.type = *type;
  // A window wholly in the padding would give -inf, which the NPU's
  // pooling, skipping the padding, has no element for.
  int64_t in[2] = {s.height, s.width}, out[2] = {s.outHeight, s.outWidth};
  for (int d = 0; d < 2; ++d)
    if (pads[d] >= s.window[d] ||
        (out[d] - 1) * s.strides[d] - pads[d] >= in[d]) {
      why = "a window that lies wholly in the padding";
      return std::nullopt;
    }
  why.clear();
  return pool;
}

std::optional<Pool> mlc::npu::matchGlobalAveragePool(linalg::GenericOp op,
                                                     std::string &why) {
  why = "not the mean of each plane of a static float NCHW tensor";
  auto isIdentity = [](AffineMap m) { return m.isIdentity(); };
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumParallelLoops() != 4 ||
      !llvm::all_of(op.getIndexingMapsArray(), isIdentity))
    return std::nullopt;
  // The product: the block's argument times a constant.
  Block *body = op.getBody();
  auto mul = cast<linalg::YieldOp>(body->getTerminator())
                 .getValues()[0]
                 .getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  Value scale = mul.getLhs() == body->getArgument(0)   ? mul.getRhs()
                : mul.getRhs() == body->getArgument(0) ? mul.getLhs()
                                                       : Value();
  FloatAttr factor;
  if (!scale || !matchPattern(scale, m_Constant(&factor)))
    return std::nullopt;
  // The sum over H x W into a fill of zero.
  auto sum = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!sum || !sum.hasPureTensorSemantics() || sum.getNumDpsInputs() != 1 ||
      sum.getNumDpsInits() != 1 || sum.getNumLoops() != 4 ||
      sum.getNumReductionLoops() != 2 ||
      sum.getIteratorTypesArray()[2] != utils::IteratorType::reduction ||
      sum.getIteratorTypesArray()[3] != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr n = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  if (sum.getIndexingMapsArray() !=
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, ctx),
                             AffineMap::get(4, 0, {n, c, zero, zero}, ctx)})
    return std::nullopt;
  Block *sumBody = sum.getBody();
  auto add = cast<linalg::YieldOp>(sumBody->getTerminator())
                 .getValues()[0]
                 .getDefiningOp<arith::AddFOp>();
  if (!add ||
      !llvm::is_contained(ValueRange{add.getLhs(), add.getRhs()},
                          sumBody->getArgument(0)) ||
      !llvm::is_contained(ValueRange{add.getLhs(), add.getRhs()},
                          sumBody->getArgument(1)))
    return std::nullopt;
  auto fill = sum.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  FloatAttr init;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&init)) ||
      !init.getValue().isZero())
    return std::nullopt;
  auto input = cast<RankedTensorType>(sum.getDpsInputs()[0].getType());
  std::optional<ElementType> type = getNPUElementType(input.getElementType());
  if (!input.hasStaticShape() || !type ||
      !isa<FloatType>(input.getElementType()))
    return std::nullopt;
  // The mean: the factor is 1 / (H x W), as the NPU rounds it.
  int64_t h = input.getDimSize(2), w = input.getDimSize(3);
  if (factor.getValueAsDouble() != double(float(1.0 / double(h * w)))) {
    why = "a sum scaled by something other than 1 / (H x W)";
    return std::nullopt;
  }
  Pool pool;
  pool.input = sum.getDpsInputs()[0];
  pool.root = op;
  pool.producers = {sum, fill};
  PoolShape &s = pool.shape;
  s.planes = input.getDimSize(0) * input.getDimSize(1);
  s.height = h;
  s.width = w;
  s.outHeight = s.outWidth = 1;
  s.window = {h, w};
  s.type = *type;
  s.average = true;
  why.clear();
  return pool;
}

namespace {
/// A constant float fill's value, or nothing.
std::optional<double> getFillValue(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  FloatAttr attr;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&attr)))
    return std::nullopt;
  return attr.getValueAsDouble();
}

/// The source of `value` padded with `padding` on its rows and columns
/// only (`pads` its low rows, low columns, high rows, high columns), or
/// `value` itself with no pads; null when it is padded otherwise.
Value getUnpadded(Value value, double padding, SmallVector<int64_t> &pads,
                  SmallVector<Operation *> &producers) {
  pads.assign(4, 0);
  auto pad = value.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return value;
  FloatAttr attr;
  Value constant = pad.getConstantPaddingValue();
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (!constant || !matchPattern(constant, m_Constant(&attr)) ||
      attr.getValueAsDouble() != padding || low.size() != 4 || low[0] ||
      low[1] || high[0] || high[1] ||
      llvm::any_of(llvm::concat<const int64_t>(low, high),
                   ShapedType::isDynamic))
    return nullptr;
  pads = {low[2], low[3], high[2], high[3]};
  producers.push_back(pad);
  return pad.getSource();
}
} // namespace

std::optional<Pool> mlc::npu::matchAveragePool(linalg::GenericOp op,
                                               std::string &why) {
  why = "not an average pooling the NPU runs";
  auto isIdentity = [](AffineMap m) { return m.isIdentity(); };
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumParallelLoops() != 4 ||
      !llvm::all_of(op.getIndexingMapsArray(), isIdentity))
    return std::nullopt;
  Block *body = op.getBody();
  auto div = cast<linalg::YieldOp>(body->getTerminator())
                 .getValues()[0]
                 .getDefiningOp<arith::DivFOp>();
  if (!div || div.getLhs() != body->getArgument(0) ||
      div.getRhs() != body->getArgument(1))
    return std::nullopt;
  auto sum = op.getDpsInputs()[0].getDefiningOp<linalg::PoolingNchwSumOp>();
  if (!sum || !sum.hasPureTensorSemantics() ||
      getFillValue(sum.getOutputs()[0]) != 0.0 ||
      llvm::any_of(sum.getDilations().getValues<int64_t>(),
                   [](int64_t d) { return d != 1; }))
    return std::nullopt;
  Pool pool;
  pool.root = op;
  pool.producers.push_back(sum);
  SmallVector<int64_t> pads;
  pool.input = getUnpadded(sum.getInputs()[0], 0.0, pads, pool.producers);
  auto window = cast<ShapedType>(sum.getInputs()[1].getType());
  if (!pool.input)
    return std::nullopt;
  auto input = cast<RankedTensorType>(pool.input.getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<ElementType> type = getNPUElementType(result.getElementType());
  if (!input.hasStaticShape() || !result.hasStaticShape() ||
      !window.hasStaticShape() || !type ||
      !isa<FloatType>(result.getElementType()))
    return std::nullopt;
  // The divisor counts the input's elements in each window: a sum pooling
  // of ones padded as the input is, or the window's size without padding.
  Value count = op.getDpsInputs()[1];
  bool padded = llvm::any_of(pads, [](int64_t p) { return p != 0; });
  if (std::optional<double> size = getFillValue(count)) {
    if (padded || *size != double(window.getNumElements())) {
      why = "an average that counts the padding (count_include_pad)";
      return std::nullopt;
    }
    pool.producers.push_back(count.getDefiningOp());
  } else {
    auto counted = count.getDefiningOp<linalg::PoolingNchwSumOp>();
    SmallVector<int64_t> countPads;
    SmallVector<Operation *> countProducers{counted};
    Value ones = counted ? getUnpadded(counted.getInputs()[0], 0.0, countPads,
                                       countProducers)
                         : Value();
    if (!ones || getFillValue(ones) != 1.0 || countPads != pads ||
        ones.getType() != pool.input.getType() ||
        counted.getInputs()[1].getType() != sum.getInputs()[1].getType() ||
        counted.getStrides() != sum.getStrides() ||
        counted.getDilations() != sum.getDilations() ||
        getFillValue(counted.getOutputs()[0]) != 0.0)
      return std::nullopt;
    countProducers.push_back(ones.getDefiningOp());
    countProducers.push_back(counted.getOutputs()[0].getDefiningOp());
    llvm::append_range(pool.producers, countProducers);
  }
  PoolShape &s = pool.shape;
  s.planes = input.getDimSize(0) * input.getDimSize(1);
  s.height = input.getDimSize(2);
  s.width = input.getDimSize(3);
  s.outHeight = result.getDimSize(2);
  s.outWidth = result.getDimSize(3);
  s.window = {window.getDimSize(0), window.getDimSize(1)};
  SmallVector<int64_t> strides(sum.getStrides().getValues<int64_t>());
  s.strides = {strides[0], strides[1]};
  s.pads = {pads[0], pads[1]};
  s.type = *type;
  s.average = true;
  int64_t in[2] = {s.height, s.width}, out[2] = {s.outHeight, s.outWidth};
  for (int d = 0; d < 2; ++d)
    if (s.pads[d] >= s.window[d] ||
        (out[d] - 1) * s.strides[d] - s.pads[d] >= in[d]) {
      why = "a window that lies wholly in the padding";
      return std::nullopt;
    }
  // The fills of the sums' inits, when nothing else reads them.
  pool.producers.push_back(sum.getOutputs()[0].getDefiningOp());
  why.clear();
  return pool;
}

void mlc::npu::replaceWithNPUPool(OpBuilder &b, const Pool &pool, StringRef npu,
                                  const PoolTiles &tiles) {
  Operation *root = pool.root;
  b.setInsertionPoint(root);
  auto result = cast<RankedTensorType>(root->getResult(0).getType());
  Location loc = root->getLoc();
  Value init = tensor::EmptyOp::create(b, loc, result.getShape(),
                                       result.getElementType());
  const PoolShape &s = pool.shape;
  Value onNPU =
      PoolOp::create(
          b, loc, TypeRange{result}, pool.input, init, b.getStringAttr(npu),
          b.getStringAttr(s.average ? "average" : "max"),
          b.getDenseI64ArrayAttr(s.window), b.getDenseI64ArrayAttr(s.strides),
          b.getDenseI64ArrayAttr(s.pads), b.getI64IntegerAttr(tiles.planes),
          b.getI64IntegerAttr(tiles.buffers))
          .getResult()[0];
  root->getResult(0).replaceAllUsesWith(onNPU);
  root->erase();
  // The CPU's padding, fill or sum, when nothing else reads them.
  for (Operation *producer : pool.producers)
    if (producer->use_empty())
      producer->erase();
}
