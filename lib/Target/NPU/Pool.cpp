//===- Pool.cpp - Pooling on the NPU --------------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Pool.h"

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

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
/// only (`pads` its low rows, low columns, high rows, high columns; the
/// pad op added to `producers`), or `value` itself with no pads; null when
/// it is padded otherwise.
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

/// The pooling `op` (max or sum) of an input padded with `padding`, into a
/// fill of `init`, as a Pool rooted at `root` (the input unpadded, the
/// pooling, its padding and its fill among the producers); nothing, with
/// the reason in `why`, when it is not one the NPU's stream computes.
template <typename PoolingOp>
std::optional<Pool> matchPooling(PoolingOp op, Operation *root, double padding,
                                 double init, bool average, std::string &why) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto window = cast<ShapedType>(op.getInputs()[1].getType());
  if (!result.hasStaticShape() || !window.hasStaticShape() ||
      !isa<FloatType>(result.getElementType()))
    return std::nullopt;
  std::optional<ElementType> type = getNPUElementType(result.getElementType());
  if (!type) {
    why = "an element type the NPU does not have";
    return std::nullopt;
  }
  if (llvm::any_of(op.getDilations().template getValues<int64_t>(),
                   [](int64_t d) { return d != 1; })) {
    why = "a dilated pooling";
    return std::nullopt;
  }
  if (getFillValue(op.getOutputs()[0]) != init) {
    why = "a pooling into a tensor other than its identity's fill";
    return std::nullopt;
  }
  Pool pool;
  pool.root = root;
  pool.producers.push_back(op);
  SmallVector<int64_t> pads;
  pool.input = getUnpadded(op.getInputs()[0], padding, pads, pool.producers);
  if (!pool.input) {
    why = "an input padded with other values or on other dims";
    return std::nullopt;
  }
  pool.producers.push_back(op.getOutputs()[0].getDefiningOp());
  auto input = cast<RankedTensorType>(pool.input.getType());
  if (!input.hasStaticShape())
    return std::nullopt;
  PoolShape &s = pool.shape;
  s.planes = input.getDimSize(0) * input.getDimSize(1);
  s.height = input.getDimSize(2);
  s.width = input.getDimSize(3);
  s.outHeight = result.getDimSize(2);
  s.outWidth = result.getDimSize(3);
  s.window = {window.getDimSize(0), window.getDimSize(1)};
  SmallVector<int64_t> strides(op.getStrides().template getValues<int64_t>());
  s.strides = {strides[0], strides[1]};
  s.pads = {pads[0], pads[1]};
  s.type = *type;
  s.average = average;
  // A window wholly in the padding has no element of the input, which the
  // NPU's pooling, skipping the padding, would need.
  int64_t in[2] = {s.height, s.width}, out[2] = {s.outHeight, s.outWidth};
  for (int d = 0; d < 2; ++d)
    if (s.pads[d] >= s.window[d] ||
        (out[d] - 1) * s.strides[d] - s.pads[d] >= in[d]) {
      why = "a window that lies wholly in the padding";
      return std::nullopt;
    }
  return pool;
}

/// The binary op of `T` on the block's arguments 0 and 1 (in either order
/// when `commutes`) that `op` yields, when `op` is a 4-D elementwise generic
/// on tensors of `inputs` inputs with identity maps; else null.
template <typename T>
T getElementwiseOp(linalg::GenericOp op, unsigned inputs, bool commutes) {
  auto isIdentity = [](AffineMap m) { return m.isIdentity(); };
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != inputs ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumParallelLoops() != 4 ||
      !llvm::all_of(op.getIndexingMapsArray(), isIdentity))
    return nullptr;
  Block *body = op.getBody();
  auto binary = cast<linalg::YieldOp>(body->getTerminator())
                    .getValues()[0]
                    .getDefiningOp<T>();
  if (!binary || binary->getBlock() != body)
    return nullptr;
  Value a = body->getArgument(0);
  Value b = inputs > 1 ? body->getArgument(1) : Value();
  if (inputs == 1)
    return binary.getLhs() == a || binary.getRhs() == a ? binary : nullptr;
  if ((binary.getLhs() == a && binary.getRhs() == b) ||
      (commutes && binary.getLhs() == b && binary.getRhs() == a))
    return binary;
  return nullptr;
}
} // namespace

std::optional<Pool> mlc::npu::matchMaxPool(linalg::PoolingNchwMaxOp op,
                                           std::string &why) {
  why = "not a static float max pooling on tensors";
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::optional<Pool> pool =
      matchPooling(op, op, -kInfinity, -kInfinity, /*average=*/false, why);
  if (pool)
    why.clear();
  return pool;
}

std::optional<Pool> mlc::npu::matchGlobalAveragePool(linalg::GenericOp op,
                                                     std::string &why) {
  why = "not the mean of each plane of a static float NCHW tensor";
  // The product: the block's argument times a constant.
  auto mul = getElementwiseOp<arith::MulFOp>(op, 1, true);
  if (!mul)
    return std::nullopt;
  Value scale = mul.getLhs() == op.getBody()->getArgument(0) ? mul.getRhs()
                                                             : mul.getLhs();
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
  if (getFillValue(sum.getDpsInits()[0]) != 0.0)
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
  pool.producers = {sum, sum.getDpsInits()[0].getDefiningOp()};
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

std::optional<Pool> mlc::npu::matchAveragePool(linalg::GenericOp op,
                                               std::string &why) {
  why = "not an average pooling the NPU runs";
  if (!getElementwiseOp<arith::DivFOp>(op, 2, false))
    return std::nullopt;
  auto sum = op.getDpsInputs()[0].getDefiningOp<linalg::PoolingNchwSumOp>();
  std::optional<Pool> pool =
      sum ? matchPooling(sum, op, 0.0, 0.0, /*average=*/true, why)
          : std::nullopt;
  if (!pool)
    return std::nullopt;
  auto window = cast<ShapedType>(sum.getInputs()[1].getType());
  SmallVector<int64_t> pads;
  SmallVector<Operation *> ignored;
  getUnpadded(sum.getInputs()[0], 0.0, pads, ignored);
  // The divisor counts the input's elements in each window: a sum pooling
  // of ones padded as the input is, or the window's size without padding.
  Value count = op.getDpsInputs()[1];
  bool padded = llvm::any_of(pads, [](int64_t p) { return p != 0; });
  if (std::optional<double> size = getFillValue(count)) {
    if (padded || *size != double(window.getNumElements())) {
      why = "an average that counts the padding (count_include_pad)";
      return std::nullopt;
    }
    pool->producers.push_back(count.getDefiningOp());
  } else {
    auto counted = count.getDefiningOp<linalg::PoolingNchwSumOp>();
    SmallVector<int64_t> countPads;
    SmallVector<Operation *> countProducers{counted};
    Value ones = counted ? getUnpadded(counted.getInputs()[0], 0.0, countPads,
                                       countProducers)
                         : Value();
    if (!ones || getFillValue(ones) != 1.0 || countPads != pads ||
        ones.getType() != pool->input.getType() ||
        counted.getInputs()[1].getType() != sum.getInputs()[1].getType() ||
        counted.getStrides() != sum.getStrides() ||
        counted.getDilations() != sum.getDilations() ||
        getFillValue(counted.getOutputs()[0]) != 0.0)
      return std::nullopt;
    countProducers.push_back(ones.getDefiningOp());
    countProducers.push_back(counted.getOutputs()[0].getDefiningOp());
    llvm::append_range(pool->producers, countProducers);
  }
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
  // The CPU's padding, fill or sum, when nothing else reads them. A max
  // pooling is its own root, and the sum and the count of an average may
  // share a producer (one fill of zeros): each is erased once, and a
  // producer read only by another is erased after it.
  llvm::SetVector<Operation *> left(pool.producers.begin(),
                                    pool.producers.end());
  left.remove(root);
  root->erase();
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *producer : llvm::to_vector(left))
      if (producer->use_empty()) {
        left.remove(producer);
        producer->erase();
        erased = true;
      }
  }
}
