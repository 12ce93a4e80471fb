//===- GraphShapeValues.cpp - Partly known shape tensors ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The elements of a small integer tensor that shape functions can know
// although the tensor is computed at run time. Exporters build a Reshape's
// target from the input's own Shape: BERT's [batch, seq, heads, 768 / heads]
// is Concat(Gather(Shape(x), 0), Gather(Shape(x), 1), 12, Gather(Shape(x), 2)
// / 12). Its last two elements are constants once Shape(x) has a static
// third dim, and the reshaped tensor is [?, ?, 12, 64] rather than four dims
// known only at run time (which kept the attention's matmuls off the
// target's contraction kernels). This is onnx-mlir's and ONNX Runtime's
// partial shape evaluation; the whole tensor folds to a constant only when
// every element is known.
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// The longest chain of ops followed back from a shape operand.
constexpr unsigned kMaxDepth = 16;
/// Longer tensors are data, not shapes.
constexpr int64_t kMaxElements = 16;

std::optional<SmallVector<int64_t>> evaluate(Value v, unsigned depth);

/// Elements of `indices` (constants) picked from `data`, counted from the
/// end when negative.
std::optional<SmallVector<int64_t>> pick(ArrayRef<int64_t> data,
                                         ArrayRef<int64_t> indices) {
  SmallVector<int64_t> out;
  int64_t size = data.size();
  for (int64_t i : indices) {
    if (i < -size || i >= size)
      return std::nullopt;
    out.push_back(data[i < 0 ? i + size : i]);
  }
  return out;
}

/// `a op b`, elementwise (a one-element side broadcast), known where both
/// sides are; divisions only of non-negative values (where truncation and
/// flooring agree) by positive ones.
template <typename Fn>
std::optional<SmallVector<int64_t>> combine(Value lhs, Value rhs,
                                            unsigned depth, Fn fn) {
  auto a = evaluate(lhs, depth), b = evaluate(rhs, depth);
  if (!a || !b || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
    return std::nullopt;
  size_t n = std::max(a->size(), b->size());
  SmallVector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    int64_t x = (*a)[a->size() == 1 ? 0 : i], y = (*b)[b->size() == 1 ? 0 : i];
    out.push_back(ShapedType::isDynamic(x) || ShapedType::isDynamic(y)
                      ? ShapedType::kDynamic
                      : fn(x, y));
  }
  return out;
}

std::optional<SmallVector<int64_t>> evaluate(Value v, unsigned depth) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > kMaxElements ||
      !type.getElementType().isInteger())
    return std::nullopt;
  if (auto ints = getConstantInts(v))
    return ints;
  Operation *def = v.getDefiningOp();
  if (!def || depth >= kMaxDepth)
    return std::nullopt;
  ++depth;
  constexpr int64_t kDyn = ShapedType::kDynamic;
  if (auto shape = dyn_cast<ShapeOp>(def)) {
    auto input = getTensorShape(shape.getInput());
    if (!input)
      return std::nullopt;
    int64_t rank = input->size();
    auto clamp = [&](int64_t a) {
      return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
    };
    int64_t start = clamp(shape.getStart());
    int64_t end = clamp(shape.getEnd() ? int64_t(*shape.getEnd()) : rank);
    return SmallVector<int64_t>(input->begin() + start,
                                input->begin() + std::max(start, end));
  }
  // Reshapes of a vector or scalar keep its elements in order.
  if (isa<UnsqueezeOp, SqueezeOp, ReshapeOp, FlattenOp, CastOp>(def))
    return evaluate(def->getOperand(0), depth);
  if (auto gather = dyn_cast<GatherOp>(def)) {
    auto data = evaluate(gather.getData(), depth);
    auto indices = getConstantInts(gather.getIndices());
    if (!data || !indices || gather.getAxis() != 0)
      return std::nullopt;
    return pick(*data, *indices);
  }
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    SmallVector<int64_t> out;
    for (Value input : concat.getInputs()) {
      auto part = evaluate(input, depth);
      if (!part)
        return std::nullopt;
      out.append(*part);
    }
    return out;
  }
  if (auto slice = dyn_cast<SliceOp>(def)) {
    auto data = evaluate(slice.getInput(), depth);
    auto starts = getConstantInts(slice.getStarts());
    auto ends = getConstantInts(slice.getEnds());
    std::optional<SmallVector<int64_t>> steps;
    if (slice.getSteps())
      steps = getConstantInts(slice.getSteps());
    if (!data || !starts || !ends || starts->size() != 1 ||
        ends->size() != 1 || (slice.getSteps() && (!steps || (*steps)[0] != 1)))
      return std::nullopt;
    int64_t size = data->size();
    auto clamp = [&](int64_t a) {
      return std::clamp<int64_t>(a < 0 ? a + size : a, 0, size);
    };
    int64_t begin = clamp((*starts)[0]), end = clamp((*ends)[0]);
    return SmallVector<int64_t>(data->begin() + begin,
                                data->begin() + std::max(begin, end));
  }
  if (auto add = dyn_cast<AddOp>(def))
    return combine(add.getLhs(), add.getRhs(), depth,
                   [](int64_t a, int64_t b) { return a + b; });
  if (auto sub = dyn_cast<SubOp>(def))
    return combine(sub.getLhs(), sub.getRhs(), depth,
                   [](int64_t a, int64_t b) { return a - b; });
  if (auto mul = dyn_cast<MulOp>(def))
    return combine(mul.getLhs(), mul.getRhs(), depth,
                   [](int64_t a, int64_t b) { return a * b; });
  if (auto div = dyn_cast<DivOp>(def))
    return combine(div.getLhs(), div.getRhs(), depth,
                   [](int64_t a, int64_t b) {
                     return a >= 0 && b > 0 ? a / b : kDyn;
                   });
  // PyTorch's export of `expand` maps its -1 entries to 1 with
  // Where(Equal(shape, ConstantOfShape(Shape(shape)) * -1), ones, shape):
  // the entries of `shape` that are known stay known.
  if (auto equal = dyn_cast<EqualOp>(def))
    return combine(equal.getLhs(), equal.getRhs(), depth,
                   [](int64_t a, int64_t b) { return int64_t(a == b); });
  if (auto fill = dyn_cast<ConstantOfShapeOp>(def)) {
    ElementsAttr value = fill.getValueAttr();
    if (!value || value.getNumElements() != 1 ||
        !isa<IntegerType>(value.getElementType()))
      return SmallVector<int64_t>(type.getNumElements(), kDyn);
    int64_t element = (*value.value_begin<APInt>()).getSExtValue();
    return SmallVector<int64_t>(type.getNumElements(), element);
  }
  if (auto where = dyn_cast<WhereOp>(def)) {
    auto condition = evaluate(where.getCondition(), depth);
    auto a = evaluate(where.getLhs(), depth), b = evaluate(where.getRhs(), depth);
    int64_t n = type.getNumElements();
    auto at = [&](const std::optional<SmallVector<int64_t>> &values,
                  int64_t i) -> int64_t {
      if (!values || (values->size() != 1 && int64_t(values->size()) != n))
        return kDyn;
      return (*values)[values->size() == 1 ? 0 : i];
    };
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < n; ++i) {
      int64_t c = at(condition, i), x = at(a, i), y = at(b, i);
      out.push_back(ShapedType::isDynamic(c) ? (x == y ? x : kDyn)
                    : c                      ? x
                                             : y);
    }
    return out;
  }
  // Other producers: the length is known, no element is.
  return SmallVector<int64_t>(type.getNumElements(), kDyn);
}
} // namespace

std::optional<SmallVector<int64_t>>
mlc::graph::detail::getPartialInts(Value v) {
  if (!v)
    return std::nullopt;
  return evaluate(v, 0);
}
