//===- Requantization.cpp - Quantized results leaving the NPU -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Requantization.h"

#include "ConvolutionAsMatmul.h"

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {
/// The one value of a constant f32 tensor of one element, or nothing.
std::optional<float> getScalarFloat(Value v) {
  std::optional<SmallVector<float>> values = getFloats(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// `op`'s user when `value` has one use, by a generic of one result that
/// reads it with the identity map and writes the same shape: an
/// elementwise op on `value`.
linalg::GenericOp getElementwiseUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  OpOperand &use = *value.getUses().begin();
  auto op = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!op || op.getNumResults() != 1 || op.getNumDpsInits() != 1 ||
      !op.isDpsInput(&use) ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(&use).isIdentity() ||
      !op.getIndexingMapsArray().back().isIdentity() ||
      cast<ShapedType>(op.getResult(0).getType()).getShape() !=
          cast<ShapedType>(value.getType()).getShape())
    return nullptr;
  return op;
}

/// The scalar a value in `op`'s body stands for: an arith.constant, or the
/// block argument of a one-element constant input.
std::optional<float> getBodyScalar(linalg::GenericOp op, Value v) {
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return float(attr.getValueAsDouble());
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != op.getBody() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return std::nullopt;
  return getScalarFloat(op.getDpsInputs()[arg.getArgNumber()]);
}

/// A bias add: `value + bias[c]` (c the channel or column, dim 1) or
/// `value + b`.
std::optional<SmallVector<float>> matchBias(linalg::GenericOp op, Value value,
                                            int64_t channels) {
  if (op.getNumDpsInputs() != 2)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != op.getBody())
    return std::nullopt;
  unsigned mine = op.getDpsInputs()[0] == value ? 0 : 1;
  Value other = op.getDpsInputs()[1 - mine];
  BlockArgument x = op.getBody()->getArgument(mine),
                b = op.getBody()->getArgument(1 - mine);
  if (!((add.getLhs() == x && add.getRhs() == b) ||
        (add.getLhs() == b && add.getRhs() == x)))
    return std::nullopt;
  std::optional<SmallVector<float>> values = getFloats(other);
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    return SmallVector<float>(size_t(channels), values->front());
  AffineMap map = op.getIndexingMapsArray()[1 - mine];
  if (int64_t(values->size()) != channels || map.getNumResults() != 1 ||
      map.getResult(0) != getAffineDimExpr(1, op.getContext()))
    return std::nullopt;
  return values;
}

/// A relu or clip: max/min of `value` with constants, as bounds.
bool matchClamp(linalg::GenericOp op, float &lo, float &hi) {
  unsigned mine = 0;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  Value v = yield.getValues()[0];
  BlockArgument x = op.getBody()->getArgument(mine);
  bool any = false;
  while (v != x) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != op.getBody() || def->getNumOperands() != 2)
      return false;
    bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(def);
    bool isMin = isa<arith::MinimumFOp, arith::MinNumFOp>(def);
    if (!isMax && !isMin)
      return false;
    std::optional<float> c = getBodyScalar(op, def->getOperand(1));
    v = def->getOperand(0);
    if (!c) {
      c = getBodyScalar(op, def->getOperand(0));
      v = def->getOperand(1);
    }
    if (!c || std::isnan(*c))
      return false;
    if (isMax)
      lo = std::max(lo, *c);
    else
      hi = std::min(hi, *c);
    any = true;
  }
  return any;
}
} // namespace

std::optional<Requantization>
mlc::npu::matchRequantization(Value result, std::string &why) {
  Requantization r;
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() < 2 || !type.hasStaticShape()) {
    why = "not a static result with its channels on dim 1";
    return std::nullopt;
  }
  int64_t channels = type.getDimSize(1);
  float lo = -std::numeric_limits<float>::infinity(),
        hi = std::numeric_limits<float>::infinity();
  Value value = result;
  bool clamped = false;
  while (linalg::GenericOp op = getElementwiseUser(value)) {
    if (op->hasAttr(loop::LoopDialect::QuantizeAttrHelper::getNameStr())) {
      // QuantizeLinear(value, scale[, zero point]) to 8 bits.
      auto out = dyn_cast<IntegerType>(
          getElementTypeOrSelf(op.getResult(0).getType()));
      std::optional<float> scale =
          op.getNumDpsInputs() >= 2 ? getScalarFloat(op.getDpsInputs()[1])
                                    : std::nullopt;
      std::optional<SmallVector<int64_t>> zero =
          op.getNumDpsInputs() == 3
              ? getIntegers(op.getDpsInputs()[2])
              : std::optional<SmallVector<int64_t>>(SmallVector<int64_t>{0});
      if (!out || out.getWidth() != 8 || op.getDpsInputs()[0] != value ||
          !scale || !(*scale > 0) || !std::isfinite(*scale) || !zero ||
          zero->size() != 1) {
        why = "its QuantizeLinear is not to 8 bits with one constant scale "
              "and zero point";
        return std::nullopt;
      }
      r.scale = *scale;
      r.zeroPoint = zero->front();
      r.isUnsigned = out.isUnsigned();
      r.ops.push_back(op);
      // The clip's bounds: ones saturation already gives, or a relu.
      double qmin = r.isUnsigned ? 0 : -128, qmax = r.isUnsigned ? 255 : 127;
      auto quantized = [&](float v) {
        return std::nearbyint(double(v / r.scale)) + double(r.zeroPoint);
      };
      if (std::isfinite(hi) && quantized(hi) < qmax) {
        why = "a clip below the top of its QuantizeLinear's range";
        return std::nullopt;
      }
      if (std::isfinite(lo) && quantized(lo) > qmin) {
        if (lo != 0) {
          why = "a clip above the bottom of its QuantizeLinear's range";
          return std::nullopt;
        }
        r.relu = true;
      }
      return r;
    }
    if (r.bias.empty() && !clamped) {
      if (std::optional<SmallVector<float>> bias =
              matchBias(op, value, channels)) {
        r.bias = std::move(*bias);
        r.ops.push_back(op);
        value = op.getResult(0);
        continue;
      }
    }
    if (!clamped && op.getDpsInputs()[0] == value && matchClamp(op, lo, hi)) {
      clamped = true;
      r.ops.push_back(op);
      value = op.getResult(0);
      continue;
    }
    break;
  }
  why = "its result is not only requantized (bias, relu or clip, "
        "QuantizeLinear)";
  return std::nullopt;
}

bool mlc::npu::getRequantizedShape(const QuantizedOperands &q,
                                   const Requantization &r,
                                   RequantizedProduct &p, std::string &why) {
  MatmulShape &shape = p.shape;
  SmallVector<int32_t> &biasRow = p.biasRow;
  SmallVector<float> &scales = p.scales;
  int64_t n = shape.n, k = shape.k;
  // The activations' zero point once uint8 values are shifted into int8.
  int64_t zero = q.activationZeroPoint - (q.activationsUnsigned ? 128 : 0);
  biasRow.assign(size_t(n), 0);
  scales.assign(size_t(n), 0);
  for (int64_t c = 0; c < n; ++c) {
    // The zero point's share, -za' colsum(qw), and the bias in units of
    // sa sw[c].
    int64_t start = 0;
    for (int64_t row = 0; row < k; ++row)
      start -= zero * q.weights[size_t(row * n + c)];
    double unit = double(q.activationScale) * double(q.weightScales[size_t(c)]);
    if (!r.bias.empty()) {
      double b = std::nearbyint(double(r.bias[size_t(c)]) / unit);
      if (!(std::fabs(b) < 2147483648.0)) {
        why = "a bias too large for the int32 sums";
        return false;
      }
      start += int64_t(b);
    }
    if (start < std::numeric_limits<int32_t>::min() ||
        start > std::numeric_limits<int32_t>::max()) {
      why = "a bias too large for the int32 sums";
      return false;
    }
    biasRow[size_t(c)] = int32_t(start);
    scales[size_t(c)] = float(unit / double(r.scale));
  }
  shape.requantize = true;
  shape.accumulate = false;
  shape.relu = r.relu;
  shape.zeroPoint = int32_t(r.zeroPoint - (r.isUnsigned ? 128 : 0));
  return true;
}
