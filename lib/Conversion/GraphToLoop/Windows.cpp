//===- Windows.cpp - Where the windows of Conv and pooling fall -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Windows.h"

#include "RunTimeShapes.h"

#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlc::graph;

namespace {
/// Index arithmetic that folds where its operands are constants.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  }
  Value div(Value x, Value y) {
    return b.createOrFold<arith::DivSIOp>(loc, x, y);
  }
  Value floorDiv(Value x, Value y) {
    return b.createOrFold<arith::FloorDivSIOp>(loc, x, y);
  }
  Value ceilDiv(Value x, Value y) {
    return b.createOrFold<arith::CeilDivSIOp>(loc, x, y);
  }
  Value max(Value x, Value y) {
    return b.createOrFold<arith::MaxSIOp>(loc, x, y);
  }
  Value ge(Value x, Value y) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, x,
                                         y);
  }
  Value eq(Value x, Value y) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return b.createOrFold<arith::SelectOp>(loc, c, x, y);
  }
  Value both(Value x, Value y) {
    return b.createOrFold<arith::AndIOp>(loc, x, y);
  }
};

/// One spatial dim whose input size is known at run time: its pads and
/// output size, and whether the padded input holds a window (null: always).
struct RunTimeWindow {
  Value padLow, padHigh, output, holds;
};

RunTimeWindow planRunTimeDim(IndexMath &m, Value in, int64_t kernel,
                             int64_t stride, int64_t dilation, int64_t padBegin,
                             int64_t padEnd, WindowPadding padding,
                             bool ceilMode) {
  int64_t effective = (kernel - 1) * dilation + 1;
  Value s = m.c(stride), eff = m.c(effective), one = m.c(1), zero = m.c(0);
  RunTimeWindow w;
  switch (padding) {
  case WindowPadding::SameUpper:
  case WindowPadding::SameLower: {
    w.output = m.ceilDiv(in, s);
    Value total = m.max(
        zero, m.sub(m.add(m.mul(m.sub(w.output, one), s), eff), in));
    Value small = m.div(total, m.c(2));
    w.padLow = padding == WindowPadding::SameUpper ? small
                                                   : m.sub(total, small);
    w.padHigh = m.sub(total, w.padLow);
    return w;
  }
  case WindowPadding::Valid:
    // No pads; ceil_mode applies as with explicit ones (as in ONNX Runtime).
    padBegin = padEnd = 0;
    [[fallthrough]];
  case WindowPadding::Explicit: {
    Value pb = m.c(padBegin), pe = m.c(padEnd);
    if (effective == 1 && stride == 1) {
      // A one-element window at every position (a 1x1 convolution): the
      // padded input's size, whatever it is, so that a consumer sees the
      // same value as the input's size.
      w.output = m.add(m.add(in, pb), pe);
      w.padLow = pb;
      w.padHigh = pe;
      return w;
    }
    Value span = m.sub(m.add(m.add(in, pb), pe), eff);
    w.holds = m.ge(span, zero);
    w.padLow = pb;
    w.padHigh = pe;
    if (!ceilMode) {
      // floor(span / s) + 1 windows, none when the padded input holds none
      // (span < 0), without a select: value-bounds queries branch on each
      // select, and a network's sizes are a chain of one per layer.
      w.output = m.max(m.floorDiv(m.add(span, s), s), zero);
      return w;
    }
    Value safe = m.max(span, zero);
    w.output = m.add(m.ceilDiv(safe, s), one);
    // ONNX: the last window starts inside the input or the begin padding;
    // the end padding grows to hold it.
    Value past = m.ge(m.mul(m.sub(w.output, one), s), m.add(in, pb));
    w.output = m.select(past, m.sub(w.output, one), w.output);
    w.padHigh = m.max(
        pe, m.sub(m.add(m.mul(m.sub(w.output, one), s), eff), m.add(in, pb)));
    w.output = m.select(w.holds, w.output, zero);
    return w;
  }
  }
  llvm_unreachable("unknown window padding");
}
} // namespace

bool mlc::detail::WindowPlan::isPadded() const {
  // Dims 0 and 1 are padded only to keep a failed check's run in bounds.
  auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  return !llvm::all_of(ArrayRef(padLow).drop_front(2), zero) ||
         !llvm::all_of(ArrayRef(padHigh).drop_front(2), zero);
}

FailureOr<mlc::detail::WindowPlan> mlc::detail::planWindows(
    OpBuilder &b, Location loc, Operation *op, StringRef onnxOp, Value input,
    int64_t channels, RankedTensorType result, ArrayRef<int64_t> kernel,
    std::optional<ArrayRef<int64_t>> stridesAttr,
    std::optional<ArrayRef<int64_t>> dilationsAttr,
    std::optional<ArrayRef<int64_t>> padsAttr, AutoPad autoPad,
    bool ceilMode) {
  auto type = cast<RankedTensorType>(input.getType());
  size_t spatial = kernel.size();
  SmallVector<int64_t> strides =
      stridesAttr ? SmallVector<int64_t>(*stridesAttr)
                  : SmallVector<int64_t>(spatial, 1);
  SmallVector<int64_t> dilations =
      dilationsAttr ? SmallVector<int64_t>(*dilationsAttr)
                    : SmallVector<int64_t>(spatial, 1);
  SmallVector<int64_t> pads = padsAttr ? SmallVector<int64_t>(*padsAttr)
                                       : SmallVector<int64_t>(2 * spatial, 0);
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial ||
      type.getRank() != static_cast<int64_t>(spatial) + 2 ||
      result.getRank() != type.getRank())
    return failure();
  WindowPadding padding = getWindowPadding(autoPad);
  IndexMath m{b, loc};
  WindowPlan plan;
  plan.padLow.assign(2, b.getIndexAttr(0));
  plan.padHigh.assign(2, b.getIndexAttr(0));
  plan.sizes = {tensor::getMixedSize(b, loc, input, 0),
                b.getIndexAttr(channels)};
  // Whether every window fits and every static size of the result is the
  // one computed (null: known to hold).
  Value ok;
  bool checksSizes = false; // whether `ok` also checks static result sizes
  auto require = [&](Value holds) { ok = ok ? m.both(ok, holds) : holds; };
  // A static batch of the result over a batch known at run time reads the
  // input padded up to it (safe when the check fails).
  if (!result.isDynamicDim(0) && type.isDynamicDim(0)) {
    Value in = tensor::DimOp::create(b, loc, input, 0);
    require(m.eq(in, m.c(result.getDimSize(0))));
    checksSizes = true;
    plan.padHigh[0] = getAsOpFoldResult(
        m.max(m.c(0), m.sub(m.c(result.getDimSize(0)), in)));
    plan.sizes[0] = b.getIndexAttr(result.getDimSize(0));
  }
  if (result.getDimSize(1) != channels && !result.isDynamicDim(1))
    return failure();
  for (size_t i = 0; i < spatial; ++i) {
    WindowDim dim;
    dim.input = type.getDimSize(i + 2);
    dim.kernel = kernel[i];
    dim.stride = strides[i];
    dim.dilation = dilations[i];
    dim.padBegin = pads[i];
    dim.padEnd = pads[i + spatial];
    int64_t effective = (kernel[i] - 1) * dilations[i] + 1;
    // Also checks the attributes' ranges.
    auto r = computeWindowDim(dim, padding, ceilMode);
    if (!r) {
      llvm::consumeError(r.takeError());
      return failure();
    }
    int64_t wanted = result.getDimSize(i + 2);
    if (!ShapedType::isDynamic(dim.input)) {
      if (!ShapedType::isDynamic(wanted) && wanted != r->output)
        return failure();
      plan.padLow.push_back(b.getIndexAttr(r->padBegin));
      // ceil_mode: pad the end so that the last window fits.
      int64_t needed =
          (r->output - 1) * strides[i] + effective - dim.input - r->padBegin;
      plan.padHigh.push_back(b.getIndexAttr(std::max(r->padEnd, needed)));
      plan.sizes.push_back(b.getIndexAttr(r->output));
      continue;
    }
    Value in = tensor::DimOp::create(b, loc, input, i + 2);
    RunTimeWindow w =
        planRunTimeDim(m, in, kernel[i], strides[i], dilations[i], pads[i],
                       pads[i + spatial], padding, ceilMode);
    if (w.holds)
      require(w.holds);
    plan.padLow.push_back(getAsOpFoldResult(w.padLow));
    if (ShapedType::isDynamic(wanted)) {
      plan.padHigh.push_back(getAsOpFoldResult(w.padHigh));
      plan.sizes.push_back(getAsOpFoldResult(w.output));
      continue;
    }
    // A static output size over an input size known at run time: checked,
    // and the input padded to hold its windows whatever it is.
    require(m.eq(w.output, m.c(wanted)));
    checksSizes = true;
    Value reach = m.sub(m.add(m.c((wanted - 1) * strides[i]), m.c(effective)),
                        m.add(in, w.padLow));
    plan.padHigh.push_back(getAsOpFoldResult(m.max(w.padHigh, reach)));
    plan.sizes.push_back(b.getIndexAttr(wanted));
  }
  if (ok)
    cf::AssertOp::create(
        b, loc, ok,
        describe(op, onnxOp) +
            (checksSizes ? ": the input is smaller than the (dilated) window, "
                           "or its size does not give the output's"
                         : ": the input is smaller than the (dilated) window"));
  return plan;
}

Value mlc::detail::padWindows(OpBuilder &b, Location loc, Value input,
                              const WindowPlan &plan, Value fill) {
  auto zero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  ArrayRef<OpFoldResult> lowAll = plan.padLow, highAll = plan.padHigh;
  if (llvm::all_of(lowAll, zero) && llvm::all_of(highAll, zero))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d) {
    std::optional<int64_t> l = getConstantIntValue(lowAll[d]),
                           h = getConstantIntValue(highAll[d]);
    shape[d] = ShapedType::isDynamic(shape[d]) || !l || !h
                   ? ShapedType::kDynamic
                   : shape[d] + *l + *h;
  }
  return tensor::PadOp::create(
             b, loc, RankedTensorType::get(shape, type.getElementType()), input,
             lowAll, highAll, fill)
      .getResult();
}

Value mlc::detail::createFilled(OpBuilder &b, Location loc,
                                RankedTensorType type,
                                ArrayRef<OpFoldResult> sizes, Value value) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType(), dynamic);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value mlc::detail::createFilled(OpBuilder &b, Location loc,
                                RankedTensorType type,
                                ArrayRef<OpFoldResult> sizes, double value) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  Type element = type.getElementType();
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), element, dynamic);
  Value v = arith::ConstantOp::create(b, loc, element,
                                      b.getFloatAttr(element, value));
  return linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

Value mlc::detail::splitChannels(OpBuilder &b, Location loc, Value value,
                                 int64_t parts) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> shape = {
      sizes[0], b.getIndexAttr(parts),
      b.getIndexAttr(type.getDimSize(1) / parts)};
  llvm::append_range(shape, ArrayRef<OpFoldResult>(sizes).drop_front(2));
  SmallVector<int64_t> staticShape;
  for (OpFoldResult s : shape)
    staticShape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
  for (int64_t d = 2; d < type.getRank(); ++d)
    groups.push_back({d + 1});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(staticShape, type.getElementType()), value,
      groups, shape);
}

std::optional<ArrayRef<int64_t>>
mlc::detail::addHeight(std::optional<ArrayRef<int64_t>> a, int64_t fill,
                       bool isPads, SmallVector<int64_t> &storage) {
  if (!a)
    return std::nullopt;
  if (isPads && a->size() == 2)
    storage = {fill, (*a)[0], fill, (*a)[1]};
  else if (!isPads && a->size() == 1)
    storage = {fill, (*a)[0]};
  else
    storage.assign(a->begin(), a->end()); // malformed: the plan refuses it
  return ArrayRef<int64_t>(storage);
}

Value mlc::detail::insertHeight(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  sizes.insert(sizes.begin() + 2, b.getIndexAttr(1));
  return tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(0), type.getDimSize(1), 1,
                             type.getDimSize(2)},
                            type.getElementType()),
      value, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}, sizes);
}
