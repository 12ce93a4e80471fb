//===- ConstantEvaluator.cpp - Evaluate graph ops on small constants ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Exporters compute shapes inside the graph (Shape -> Gather -> Concat ->
// Reshape, ConstantOfShape, Range ...). Once input shapes are static those
// subgraphs only see constants; evaluating them here turns computed shapes
// into static types. Values are held as int64 or double (exact for the
// integer and f32 values of shape computations; one rounding to the result
// type at the end).
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/Transforms/ConstantEvaluator.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlc::graph;

namespace {
/// A small dense tensor on the host.
struct HostTensor {
  SmallVector<int64_t> shape;
  bool isFloat = false;
  std::vector<double> f;
  std::vector<int64_t> i;

  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  double asDouble(int64_t k) const { return isFloat ? f[k] : double(i[k]); }
  int64_t asInt(int64_t k) const { return isFloat ? int64_t(f[k]) : i[k]; }
  void resize(int64_t n) { isFloat ? f.resize(n) : i.resize(n); }
  /// Copies element `from` of `src` (same kind) to element `to`.
  void copyFrom(const HostTensor &src, int64_t from, int64_t to) {
    if (isFloat)
      f[to] = src.f[from];
    else
      i[to] = src.i[from];
  }
};

SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Multi-index of linear position `k` in `shape`.
SmallVector<int64_t> unravel(int64_t k, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? k % shape[d] : 0;
    k = shape[d] ? k / shape[d] : 0;
  }
  return index;
}

/// Linear position in `shape` of the broadcast of `index` (of a result of
/// higher or equal rank).
int64_t broadcastIndex(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t offset = int64_t(index.size()) - int64_t(shape.size());
  int64_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    k = k * shape[d] + (shape[d] == 1 ? 0 : index[d + offset]);
  return k;
}

std::optional<HostTensor> fromAttr(DenseElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape() ||
      (!attr.isSplat() &&
       type.getNumElements() > mlc::graph::kMaxFoldedElements))
    return std::nullopt;
  HostTensor t;
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  Type element = type.getElementType();
  int64_t n = type.getNumElements();
  if (n > mlc::graph::kMaxFoldedElements)
    return std::nullopt;
  if (isa<FloatType>(element)) {
    t.isFloat = true;
    for (const APFloat &v : attr.getValues<APFloat>())
      t.f.push_back(v.convertToDouble());
    if (attr.isSplat())
      t.f.assign(n, t.f.empty() ? 0.0 : t.f.front());
    t.f.resize(n);
    return t;
  }
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned() || integer.getWidth() == 1;
  for (const APInt &v : attr.getValues<APInt>())
    t.i.push_back(isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue());
  if (attr.isSplat())
    t.i.assign(n, t.i.empty() ? 0 : t.i.front());
  t.i.resize(n);
  return t;
}

DenseElementsAttr toAttr(const HostTensor &t, Type element) {
  auto type = RankedTensorType::get(t.shape, element);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t k = 0, n = t.size(); k < n; ++k) {
      APFloat v(t.asDouble(k));
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return {};
  SmallVector<APInt> values;
  for (int64_t k = 0, n = t.size(); k < n; ++k) {
    int64_t v = t.isFloat ? int64_t(std::trunc(t.f[k])) : t.i[k];
    if (integer.getWidth() == 1)
      v = v != 0;
    values.push_back(APInt(integer.getWidth(), uint64_t(v),
                           /*isSigned=*/!integer.isUnsigned(),
                           /*implicitTrunc=*/true));
  }
  return DenseElementsAttr::get(type, values);
}

HostTensor like(ArrayRef<int64_t> shape, bool isFloat) {
  HostTensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.isFloat = isFloat;
  t.resize(t.size());
  return t;
}

/// Static shape of `v`'s type, or nothing.
std::optional<SmallVector<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return SmallVector<int64_t>(type.getShape());
}

using Elementwise = std::function<std::optional<double>(ArrayRef<double>)>;

/// Evaluates a broadcasting elementwise op. `isFloatResult` selects the
/// result kind; values go through double (exact for int64 below 2^53).
std::optional<HostTensor> mapElements(ArrayRef<HostTensor> args,
                                      bool isFloatResult,
                                      const Elementwise &fn) {
  SmallVector<int64_t> shape;
  for (const HostTensor &a : args) {
    llvm::Expected<SmallVector<int64_t>> b =
        mlc::graph::broadcastShapes(shape, a.shape);
    if (!b) {
      llvm::consumeError(b.takeError());
      return std::nullopt;
    }
    shape = *b;
  }
  HostTensor out = like(shape, isFloatResult);
  SmallVector<double> values(args.size());
  for (int64_t k = 0, n = out.size(); k < n; ++k) {
    SmallVector<int64_t> index = unravel(k, shape);
    for (auto [j, a] : llvm::enumerate(args))
      values[j] = a.asDouble(broadcastIndex(index, a.shape));
    std::optional<double> v = fn(values);
    if (!v)
      return std::nullopt;
    if (isFloatResult)
      out.f[k] = *v;
    else
      out.i[k] = int64_t(*v);
  }
  return out;
}

/// Same data in a new (static) shape.
std::optional<HostTensor> reshaped(HostTensor t, Value result) {
  std::optional<SmallVector<int64_t>> shape = staticShape(result);
  if (!shape)
    return std::nullopt;
  t.shape = *shape;
  return t;
}

std::optional<HostTensor> evalSlice(SliceOp op, ArrayRef<HostTensor> args) {
  const HostTensor &in = args[0];
  int64_t rank = in.shape.size();
  SmallVector<int64_t> start(rank, 0), step(rank, 1), count(in.shape);
  const HostTensor &starts = args[1], &ends = args[2];
  for (int64_t j = 0, n = starts.size(); j < n; ++j) {
    int64_t axis = op.getAxes() ? args[3].asInt(j) : j;
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    int64_t s = op.getSteps() ? args[op.getAxes() ? 4 : 3].asInt(j) : 1;
    if (s == 0)
      return std::nullopt;
    int64_t dim = in.shape[axis];
    int64_t b = starts.asInt(j), e = ends.asInt(j);
    b = b < 0 ? b + dim : b;
    e = e < 0 ? e + dim : e;
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count[axis] = e > b ? (e - b + s - 1) / s : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count[axis] = b > e ? (b - e - s - 1) / -s : 0;
    }
    start[axis] = b;
    step[axis] = s;
  }
  HostTensor out = like(count, in.isFloat);
  SmallVector<int64_t> strides = getStrides(in.shape);
  for (int64_t k = 0, n = out.size(); k < n; ++k) {
    SmallVector<int64_t> index = unravel(k, count);
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += (start[d] + index[d] * step[d]) * strides[d];
    out.copyFrom(in, from, k);
  }
  return out;
}

std::optional<HostTensor> evalGather(GatherOp op, ArrayRef<HostTensor> args) {
  const HostTensor &data = args[0], &indices = args[1];
  int64_t rank = data.shape.size();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  SmallVector<int64_t> shape(data.shape.begin(), data.shape.begin() + axis);
  shape.append(indices.shape.begin(), indices.shape.end());
  shape.append(data.shape.begin() + axis + 1, data.shape.end());
  HostTensor out = like(shape, data.isFloat);
  SmallVector<int64_t> strides = getStrides(data.shape);
  int64_t irank = indices.shape.size();
  for (int64_t k = 0, n = out.size(); k < n; ++k) {
    SmallVector<int64_t> index = unravel(k, shape);
    int64_t ik = 0;
    for (int64_t d = 0; d < irank; ++d)
      ik = ik * indices.shape[d] + index[axis + d];
    int64_t at = indices.asInt(ik);
    at = at < 0 ? at + data.shape[axis] : at;
    if (at < 0 || at >= data.shape[axis])
      return std::nullopt;
    int64_t from = at * strides[axis];
    for (int64_t d = 0; d < axis; ++d)
      from += index[d] * strides[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      from += index[d - 1 + irank] * strides[d];
    out.copyFrom(data, from, k);
  }
  return out;
}

std::optional<HostTensor> evalConcat(ConcatOp op, ArrayRef<HostTensor> args) {
  int64_t rank = args[0].shape.size();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  SmallVector<int64_t> shape(args[0].shape);
  shape[axis] = 0;
  for (const HostTensor &a : args)
    shape[axis] += a.shape[axis];
  bool isFloat =
      llvm::any_of(args, [](const HostTensor &a) { return a.isFloat; });
  HostTensor out = like(shape, isFloat);
  int64_t k = 0;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor &a : args) {
      int64_t chunk = a.size() / std::max<int64_t>(outer, 1);
      for (int64_t c = 0; c < chunk; ++c, ++k) {
        if (isFloat)
          out.f[k] = a.asDouble(o * chunk + c);
        else
          out.i[k] = a.i[o * chunk + c];
      }
    }
  return out;
}

std::optional<HostTensor> evalTranspose(TransposeOp op, const HostTensor &in) {
  int64_t rank = in.shape.size();
  SmallVector<int64_t> perm;
  if (op.getPerm())
    perm.assign(op.getPerm()->begin(), op.getPerm()->end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.shape[p]);
  HostTensor out = like(shape, in.isFloat);
  SmallVector<int64_t> strides = getStrides(in.shape);
  for (int64_t k = 0, n = out.size(); k < n; ++k) {
    SmallVector<int64_t> index = unravel(k, shape);
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * strides[perm[d]];
    out.copyFrom(in, from, k);
  }
  return out;
}

/// Expand and Tile: every result element reads one input element.
std::optional<HostTensor>
evalGatherLike(const HostTensor &in, Value result,
               function_ref<int64_t(ArrayRef<int64_t>)> source) {
  std::optional<SmallVector<int64_t>> shape = staticShape(result);
  if (!shape)
    return std::nullopt;
  HostTensor out = like(*shape, in.isFloat);
  if (out.size() > mlc::graph::kMaxFoldedElements)
    return std::nullopt;
  for (int64_t k = 0, n = out.size(); k < n; ++k)
    out.copyFrom(in, source(unravel(k, *shape)), k);
  return out;
}

template <typename ReduceOp>
std::optional<HostTensor> evalReduce(ReduceOp op, const HostTensor &in,
                                     double init,
                                     function_ref<double(double, double)> fn) {
  int64_t rank = in.shape.size();
  SmallVector<bool> reduced(rank, false);
  // Axes from the attribute or from a constant `dynamic_axes` operand.
  SmallVector<int64_t> axes;
  if (Value dynamic = op.getDynamicAxes()) {
    DenseIntElementsAttr attr;
    if (!matchPattern(dynamic, mlir::m_Constant(&attr)))
      return std::nullopt;
    for (const APInt &a : attr.getValues<APInt>())
      axes.push_back(a.getSExtValue());
  } else if (std::optional<ArrayRef<int64_t>> attr = op.getAxes()) {
    axes.assign(attr->begin(), attr->end());
  }
  if (axes.empty()) {
    if (op.getNoopWithEmptyAxes())
      return in;
    reduced.assign(rank, true);
  } else {
    for (int64_t a : axes) {
      a = a < 0 ? a + rank : a;
      if (a < 0 || a >= rank)
        return std::nullopt;
      reduced[a] = true;
    }
  }
  SmallVector<int64_t> keptShape;
  for (int64_t d = 0; d < rank; ++d)
    keptShape.push_back(reduced[d] ? 1 : in.shape[d]);
  HostTensor acc = like(keptShape, true);
  std::fill(acc.f.begin(), acc.f.end(), init);
  for (int64_t k = 0, n = in.size(); k < n; ++k) {
    SmallVector<int64_t> index = unravel(k, in.shape);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        index[d] = 0;
    int64_t to = 0;
    for (int64_t d = 0; d < rank; ++d)
      to = to * keptShape[d] + index[d];
    acc.f[to] = fn(acc.f[to], in.asDouble(k));
  }
  HostTensor out = like(keptShape, in.isFloat);
  for (int64_t k = 0, n = out.size(); k < n; ++k) {
    if (in.isFloat)
      out.f[k] = acc.f[k];
    else
      out.i[k] = int64_t(acc.f[k]);
  }
  if (!op.getKeepdims()) {
    out.shape.clear();
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        out.shape.push_back(in.shape[d]);
  }
  return out;
}

std::optional<double> divide(ArrayRef<double> v, bool isFloat) {
  if (isFloat)
    return v[0] / v[1];
  if (v[1] == 0)
    return std::nullopt; // a zero divisor must reach the runtime
  return std::trunc(v[0] / v[1]);
}

std::optional<HostTensor> evaluate(Operation *op, ArrayRef<HostTensor> args,
                                   Type resultElement) {
  bool floatResult = isa<FloatType>(resultElement);
  bool floatArgs = !args.empty() && args[0].isFloat;
  auto binary = [&](auto fn) {
    return mapElements(args, floatResult,
                       [&](ArrayRef<double> v) -> std::optional<double> {
                         return fn(v[0], v[1]);
                       });
  };
  auto compare = [&](auto fn) {
    return mapElements(args, false,
                       [&](ArrayRef<double> v) -> std::optional<double> {
                         return fn(v[0], v[1]) ? 1.0 : 0.0;
                       });
  };
  return llvm::TypeSwitch<Operation *, std::optional<HostTensor>>(op)
      .Case([&](AddOp) { return binary(std::plus<double>()); })
      .Case([&](SubOp) { return binary(std::minus<double>()); })
      .Case([&](MulOp) { return binary(std::multiplies<double>()); })
      .Case([&](DivOp) {
        return mapElements(args, floatResult, [&](ArrayRef<double> v) {
          return divide(v, floatArgs);
        });
      })
      .Case([&](MaxOp) {
        return mapElements(args, floatResult, [](ArrayRef<double> v) {
          return std::optional<double>(*llvm::max_element(v));
        });
      })
      .Case([&](MinOp) {
        return mapElements(args, floatResult, [](ArrayRef<double> v) {
          return std::optional<double>(*llvm::min_element(v));
        });
      })
      .Case([&](EqualOp) { return compare(std::equal_to<double>()); })
      .Case([&](LessOp) { return compare(std::less<double>()); })
      .Case([&](LessOrEqualOp) { return compare(std::less_equal<double>()); })
      .Case([&](GreaterOp) { return compare(std::greater<double>()); })
      .Case([&](GreaterOrEqualOp) {
        return compare(std::greater_equal<double>());
      })
      .Case([&](AndOp) {
        return compare([](double a, double b) { return a != 0 && b != 0; });
      })
      .Case([&](OrOp) {
        return compare([](double a, double b) { return a != 0 || b != 0; });
      })
      .Case([&](NotOp) {
        return mapElements(args, false, [](ArrayRef<double> v) {
          return std::optional<double>(v[0] == 0 ? 1.0 : 0.0);
        });
      })
      .Case([&](NegOp) {
        return mapElements(args, floatResult, [](ArrayRef<double> v) {
          return std::optional<double>(-v[0]);
        });
      })
      .Case([&](AbsOp) {
        return mapElements(args, floatResult, [](ArrayRef<double> v) {
          return std::optional<double>(std::fabs(v[0]));
        });
      })
      .Case([&](CastOp) {
        bool toBool = resultElement.isInteger(1);
        return mapElements(args, floatResult,
                           [&](ArrayRef<double> v) -> std::optional<double> {
                             if (toBool)
                               return v[0] != 0 ? 1.0 : 0.0;
                             if (!floatResult && !std::isfinite(v[0]))
                               return std::nullopt;
                             return floatResult ? v[0] : std::trunc(v[0]);
                           });
      })
      .Case([&](WhereOp) {
        return mapElements(args, floatResult, [](ArrayRef<double> v) {
          return std::optional<double>(v[0] != 0 ? v[1] : v[2]);
        });
      })
      .Case([&](SliceOp s) { return evalSlice(s, args); })
      .Case([&](GatherOp g) { return evalGather(g, args); })
      .Case([&](ConcatOp c) { return evalConcat(c, args); })
      .Case([&](TransposeOp t) { return evalTranspose(t, args[0]); })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp>(
          [&](Operation *o) { return reshaped(args[0], o->getResult(0)); })
      .Case([&](ExpandOp e) {
        const HostTensor &in = args[0];
        return evalGatherLike(in, e.getResult(), [&](ArrayRef<int64_t> index) {
          return broadcastIndex(index, in.shape);
        });
      })
      .Case([&](TileOp t) {
        const HostTensor &in = args[0];
        return evalGatherLike(in, t.getResult(), [&](ArrayRef<int64_t> index) {
          int64_t k = 0;
          for (size_t d = 0; d < in.shape.size(); ++d)
            k = k * in.shape[d] + index[d] % in.shape[d];
          return k;
        });
      })
      .Case([&](RangeOp) -> std::optional<HostTensor> {
        double start = args[0].asDouble(0), limit = args[1].asDouble(0),
               delta = args[2].asDouble(0);
        if (delta == 0)
          return std::nullopt;
        int64_t n =
            std::max<int64_t>(int64_t(std::ceil((limit - start) / delta)), 0);
        if (n > mlc::graph::kMaxFoldedElements)
          return std::nullopt;
        HostTensor out = like({n}, floatResult);
        for (int64_t k = 0; k < n; ++k) {
          double v = start + double(k) * delta;
          if (floatResult)
            out.f[k] = v;
          else
            out.i[k] = int64_t(v);
        }
        return out;
      })
      .Case([&](ReduceSumOp r) {
        return evalReduce(r, args[0], 0.0, std::plus<double>());
      })
      .Case([&](ReduceProdOp r) {
        return evalReduce(r, args[0], 1.0, std::multiplies<double>());
      })
      .Case([&](ReduceMaxOp r) {
        return evalReduce(r, args[0], -INFINITY,
                          [](double a, double b) { return std::max(a, b); });
      })
      .Case([&](ReduceMinOp r) {
        return evalReduce(r, args[0], INFINITY,
                          [](double a, double b) { return std::min(a, b); });
      })
      .Default([](Operation *) { return std::nullopt; });
}
} // namespace

DenseElementsAttr
mlc::graph::evaluateConstantOp(Operation *op,
                               ArrayRef<DenseElementsAttr> operands) {
  if (op->getNumResults() != 1)
    return {};
  auto resultType = dyn_cast<TensorType>(op->getResult(0).getType());
  if (!resultType)
    return {};
  Type element = resultType.getElementType();
  if (!isa<FloatType, IntegerType>(element))
    return {};

  // ConstantOfShape only needs its shape: the result is a splat.
  if (auto c = dyn_cast<ConstantOfShapeOp>(op)) {
    if (!operands[0])
      return {};
    std::optional<HostTensor> shape = fromAttr(operands[0]);
    if (!shape)
      return {};
    SmallVector<int64_t> dims(shape->i.begin(), shape->i.end());
    if (llvm::any_of(dims, [](int64_t d) { return d < 0; }))
      return {};
    auto type = RankedTensorType::get(dims, element);
    if (!c.getValue())
      return DenseElementsAttr::get(
          type, isa<FloatType>(element)
                    ? Attribute(FloatAttr::get(element, 0.0))
                    : Attribute(IntegerAttr::get(element, 0)));
    auto value = dyn_cast<DenseElementsAttr>(*c.getValue());
    if (!value || value.getNumElements() != 1)
      return {};
    return DenseElementsAttr::get(type, value.getValues<Attribute>()[0]);
  }

  SmallVector<HostTensor> args;
  for (DenseElementsAttr attr : operands) {
    if (!attr)
      return {};
    std::optional<HostTensor> t = fromAttr(attr);
    if (!t)
      return {};
    args.push_back(std::move(*t));
  }
  if (args.empty())
    return {};
  std::optional<HostTensor> result = evaluate(op, args, element);
  if (!result || result->size() > kMaxFoldedElements)
    return {};
  // A declared static result type must agree with what was computed.
  if (auto ranked = dyn_cast<RankedTensorType>(resultType);
      ranked && ranked.hasStaticShape() &&
      ArrayRef<int64_t>(result->shape) != ranked.getShape())
    return {};
  return toAttr(*result, element);
}
