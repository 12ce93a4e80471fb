//===- RecurrentToLinalg.cpp - ONNX RNN, GRU and LSTM ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A recurrent op becomes, per direction:
//   1. one contraction for the input projection of every step at once,
//      XW[t, b, :] = X[t, b, :] W^T (the bulk of the work, off the loop);
//   2. an scf.for over the steps (backwards for `reverse`) carrying H (and
//      C), whose body is the recurrent contraction H R^T and one elementwise
//      generic applying ONNX's gate equations (GRU with linear_before_reset
//      = 0 needs r before its last product, so it takes two generics);
//   3. each step's H written into that direction's slice of Y.
// Gates read their columns of XW, H R^T and the bias through affine maps
// with constant offsets, so no slice is materialized. `sequence_lens`
// masks steps at and after a batch entry's length: H and C keep their last
// valid value and Y is zero there (iterating backwards and skipping those
// steps starts a reverse pass at the entry's last valid step, as ONNX
// requires). layout = 1 is transposed in and out of the layout-0 form.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::getStaticType;

namespace {
/// One activation function with its ONNX parameters.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// Whether an activation consumes an `activation_alpha` / `_beta` value.
bool usesAlpha(StringRef n) {
  return n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" ||
         n == "HardSigmoid" || n == "Elu" || n == "Affine";
}
bool usesBeta(StringRef n) {
  return n == "ScaledTanh" || n == "HardSigmoid" || n == "Affine";
}

/// The activations per direction (`perDirection` each), ONNX's defaults
/// filled in. Fails on an unknown name or a list of the wrong length.
FailureOr<SmallVector<Activation>>
getActivations(std::optional<ArrayAttr> names, std::optional<ArrayAttr> alphas,
               std::optional<ArrayAttr> betas, ArrayRef<StringRef> defaults,
               int64_t directions) {
  SmallVector<Activation> acts;
  if (!names || names->empty()) {
    for (int64_t d = 0; d < directions; ++d)
      for (StringRef n : defaults)
        acts.push_back({n.str()});
  } else {
    for (Attribute a : *names)
      acts.push_back({cast<StringAttr>(a).getValue().str()});
  }
  if (static_cast<int64_t>(acts.size()) !=
      directions * static_cast<int64_t>(defaults.size()))
    return failure();
  size_t nextAlpha = 0, nextBeta = 0;
  auto take = [](std::optional<ArrayAttr> list, size_t &i, double fallback) {
    if (list && i < list->size())
      return cast<FloatAttr>((*list)[i++]).getValueAsDouble();
    return fallback;
  };
  for (Activation &a : acts) {
    StringRef n = a.name;
    static const llvm::StringSet<> known = {
        "Relu",        "Tanh",       "Sigmoid",         "Affine",
        "LeakyRelu",   "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
        "Elu",         "Softsign",   "Softplus"};
    if (!known.contains(n))
      return failure();
    double alphaDefault = n == "LeakyRelu"     ? 0.01
                          : n == "HardSigmoid" ? 0.2
                                               : 1.0;
    double betaDefault = n == "HardSigmoid" ? 0.5 : n == "Affine" ? 0.0 : 1.0;
    if (usesAlpha(n))
      a.alpha = take(alphas, nextAlpha, alphaDefault);
    if (usesBeta(n))
      a.beta = take(betas, nextBeta, betaDefault);
  }
  return acts;
}

Value applyActivation(OpBuilder &b, Location loc, const Activation &a,
                      Value x) {
  Type t = x.getType();
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  };
  StringRef n = a.name;
  if (n == "Tanh")
    return math::TanhOp::create(b, loc, x);
  if (n == "Sigmoid") {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, cst(1.0),
                                 arith::AddFOp::create(b, loc, cst(1.0), e));
  }
  if (n == "Relu")
    return arith::MaximumFOp::create(b, loc, x, cst(0.0));
  if (n == "Affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, cst(a.alpha), x), cst(a.beta));
  if (n == "LeakyRelu") {
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      cst(0.0));
    return arith::SelectOp::create(
        b, loc, neg, arith::MulFOp::create(b, loc, cst(a.alpha), x), x);
  }
  if (n == "ThresholdedRelu") {
    Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                        cst(a.alpha));
    return arith::SelectOp::create(b, loc, above, x, cst(0.0));
  }
  if (n == "ScaledTanh")
    return arith::MulFOp::create(
        b, loc, cst(a.alpha),
        math::TanhOp::create(b, loc,
                             arith::MulFOp::create(b, loc, cst(a.beta), x)));
  if (n == "HardSigmoid") {
    Value v = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, cst(a.alpha), x), cst(a.beta));
    v = arith::MaximumFOp::create(b, loc, v, cst(0.0));
    return arith::MinimumFOp::create(b, loc, v, cst(1.0));
  }
  if (n == "Elu") {
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      cst(0.0));
    Value e = arith::MulFOp::create(
        b, loc, cst(a.alpha),
        arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                              cst(1.0)));
    return arith::SelectOp::create(b, loc, neg, e, x);
  }
  if (n == "Softsign")
    return arith::DivFOp::create(
        b, loc, x,
        arith::AddFOp::create(b, loc, cst(1.0),
                              math::AbsFOp::create(b, loc, x)));
  // Softplus
  return math::LogOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, cst(1.0), math::ExpOp::create(b, loc, x)));
}

/// a [M, K] times w [N, K] transposed: [M, N], accumulated in `into`
/// (zeroed first) when given, else in a new tensor.
Value matmulTransposed(OpBuilder &b, Location loc, Value a, Value w,
                       Value into = Value()) {
  auto at = cast<RankedTensorType>(a.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  auto result = RankedTensorType::get({at.getDimSize(0), wt.getDimSize(0)},
                                      at.getElementType());
  Value acc = createFilledTensor(b, loc, result, 0.0);
  if (into) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    acc = linalg::FillOp::create(b, loc, zero, into).getResult(0);
  }
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {m, k}, ctx),
                                 AffineMap::get(3, 0, {n, k}, ctx),
                                 AffineMap::get(3, 0, {m, n}, ctx)};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, TypeRange{result}, ValueRange{a, w}, acc, maps, iterators,
             [](OpBuilder &bb, Location l, ValueRange v) {
               Value p = arith::MulFOp::create(bb, l, v[0], v[1]);
               linalg::YieldOp::create(
                   bb, l, Value(arith::AddFOp::create(bb, l, v[2], p)));
             })
      .getResult(0);
}

/// The `index`-th slice along dim 0 of `source`, without that dim.
Value sliceDim0(OpBuilder &b, Location loc, Value source, OpFoldResult index) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = index;
  SmallVector<OpFoldResult> sizes;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto reduced = RankedTensorType::get(type.getShape().drop_front(),
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, reduced, source, offsets,
                                        sizes, strides);
}

/// `slice` (the destination's shape without dim `dim`) written at
/// position `index` of dim `dim` of `dest`.
Value insertAlong(OpBuilder &b, Location loc, Value slice, Value dest,
                  int64_t dim, OpFoldResult index) {
  auto type = cast<RankedTensorType>(dest.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[dim] = index;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(d == dim ? 1 : type.getDimSize(d)));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, slice, dest, offsets, sizes,
                                       strides);
}

Value transpose(OpBuilder &b, Location loc, Value v,
                ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(type.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, permutation)
      .getResult()[0];
}

/// Operands of one gate generic with their maps over (batch, hidden).
struct GateOperands {
  OpBuilder &b;
  Location loc;
  int64_t hidden;
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;

  /// Adds columns [offset, offset + hidden) of `v` (2-D [batch, *] or 1-D),
  /// or all of a 1-D `v` indexed by batch (`batchOnly`); returns its
  /// block-argument index. The column block is an extract_slice (a view
  /// once bufferized): linalg needs every operand's extent along a loop to
  /// match that loop.
  unsigned add(Value v, int64_t offset, bool batchOnly = false) {
    MLIRContext *ctx = b.getContext();
    AffineExpr bd = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
    auto type = cast<RankedTensorType>(v.getType());
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    if (batchOnly) {
      exprs = {bd};
    } else {
      exprs = rank == 1 ? SmallVector<AffineExpr>{j}
                        : SmallVector<AffineExpr>{bd, j};
      if (type.getDimSize(rank - 1) != hidden) {
        SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
        offsets.back() = b.getIndexAttr(offset);
        SmallVector<OpFoldResult> sizes;
        for (int64_t d = 0; d + 1 < rank; ++d)
          sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
        sizes.push_back(b.getIndexAttr(hidden));
        SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
        v = tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
      }
    }
    values.push_back(v);
    maps.push_back(AffineMap::get(2, 0, exprs, ctx));
    return values.size() - 1;
  }
};

enum class Kind { RNN, GRU, LSTM };

template <typename OpTy> constexpr Kind kindOf() {
  if constexpr (std::is_same_v<OpTy, RNNOp>)
    return Kind::RNN;
  else if constexpr (std::is_same_v<OpTy, GRUOp>)
    return Kind::GRU;
  else
    return Kind::LSTM;
}

template <typename OpTy>
struct RecurrentLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr Kind kind = kindOf<OpTy>();

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto x = getStaticType(adaptor.getInput());
    auto w = getStaticType(adaptor.getWeight());
    auto r = getStaticType(adaptor.getRecurrence());
    for (Value res : op->getResults())
      if (!getStaticType(res))
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (!x || !w || !r || x.getRank() != 3 || w.getRank() != 3 ||
        !x.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs static f32 operands");
    const int64_t gates = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 3 : 4;
    int64_t hidden = static_cast<int64_t>(op.getHiddenSize());
    StringRef direction = op.getDirection();
    int64_t directions = direction == "bidirectional" ? 2 : 1;
    bool layout1 = op.getLayout() == 1;
    if (w.getDimSize(0) != directions || w.getDimSize(1) != gates * hidden ||
        r.getDimSize(2) != hidden)
      return rewriter.notifyMatchFailure(op, "inconsistent weight shapes");
    SmallVector<StringRef> defaults =
        kind == Kind::RNN   ? SmallVector<StringRef>{"Tanh"}
        : kind == Kind::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                            : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
    auto acts = getActivations(op.getActivations(), op.getActivationAlpha(),
                               op.getActivationBeta(), defaults, directions);
    if (failed(acts))
      return rewriter.notifyMatchFailure(op, "unsupported activations");

    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value input = adaptor.getInput();
    if (layout1)
      input = transpose(rewriter, loc, input, {1, 0, 2});
    auto xt = cast<RankedTensorType>(input.getType());
    int64_t seq = xt.getDimSize(0), batch = xt.getDimSize(1),
            inputSize = xt.getDimSize(2);
    auto stateType = RankedTensorType::get({batch, hidden}, f32);
    Value initialH = adaptor.getInitialH();
    if (initialH && layout1)
      initialH = transpose(rewriter, loc, initialH, {1, 0, 2});
    Value initialC;
    bool inputForget = false;
    Value peepholes;
    if constexpr (kind == Kind::LSTM) {
      initialC = adaptor.getInitialC();
      if (initialC && layout1)
        initialC = transpose(rewriter, loc, initialC, {1, 0, 2});
      peepholes = adaptor.getPeepholes();
      inputForget = op.getInputForget();
    }
    bool linearBeforeReset = false;
    if constexpr (kind == Kind::GRU)
      linearBeforeReset = op.getLinearBeforeReset();
    std::optional<double> clip;
    if (auto c = op.getClipAttr())
      clip = c.getValueAsDouble();
    Value seqLens = adaptor.getSequenceLens();

    // [seq * batch, input] for the all-steps input projection.
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({seq * batch, inputSize}, f32),
        input, SmallVector<ReassociationIndices>{{0, 1}, {2}});

    auto yType = RankedTensorType::get({seq, directions, batch, hidden}, f32);
    auto yhType = RankedTensorType::get({directions, batch, hidden}, f32);
    Value y = tensor::EmptyOp::create(rewriter, loc, yType.getShape(), f32);
    Value yh = tensor::EmptyOp::create(rewriter, loc, yhType.getShape(), f32);
    Value yc = tensor::EmptyOp::create(rewriter, loc, yhType.getShape(), f32);
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };

    for (int64_t d = 0; d < directions; ++d) {
      bool reverse = direction == "reverse" || d == 1;
      ArrayRef<Activation> act =
          ArrayRef<Activation>(*acts).slice(d * defaults.size(),
                                            defaults.size());
      OpFoldResult dIndex = rewriter.getIndexAttr(d);
      Value wd = sliceDim0(rewriter, loc, adaptor.getWeight(), dIndex);
      Value rd = sliceDim0(rewriter, loc, adaptor.getRecurrence(), dIndex);
      Value bias = adaptor.getBias()
                       ? sliceDim0(rewriter, loc, adaptor.getBias(), dIndex)
                       : createFilledTensor(
                             rewriter, loc,
                             RankedTensorType::get({2 * gates * hidden}, f32),
                             0.0);
      Value peep = peepholes ? sliceDim0(rewriter, loc, peepholes, dIndex)
                             : Value();
      Value h0 = initialH ? sliceDim0(rewriter, loc, initialH, dIndex)
                          : createFilledTensor(rewriter, loc, stateType, 0.0);
      Value c0 = initialC ? sliceDim0(rewriter, loc, initialC, dIndex)
                          : createFilledTensor(rewriter, loc, stateType, 0.0);
      Value xw = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({seq, batch, gates * hidden}, f32),
          matmulTransposed(rewriter, loc, flat, wd),
          SmallVector<ReassociationIndices>{{0, 1}, {2}});
      Value yd = tensor::EmptyOp::create(rewriter, loc,
                                         ArrayRef<int64_t>{seq, batch, hidden},
                                         f32);
      // Per-step temporaries are loop-carried scratch tensors: each step
      // overwrites them in place, so bufferization gives them one buffer
      // outside the loop, which the static memory plan can place.
      auto scratch = [&](int64_t columns) -> Value {
        return tensor::EmptyOp::create(rewriter, loc,
                                       ArrayRef<int64_t>{batch, columns}, f32);
      };
      SmallVector<Value> inits = {h0, yd, c0, scratch(gates * hidden),
                                  scratch(hidden), scratch(hidden),
                                  scratch(hidden)};

      auto loop = scf::ForOp::create(
          rewriter, loc, c(0), c(seq), c(1), inits,
          [&](OpBuilder &b, Location l, Value step, ValueRange iter) {
            Value time =
                reverse ? Value(arith::SubIOp::create(
                              b, l, arith::ConstantIndexOp::create(b, l, seq - 1),
                              step))
                        : step;
            Value hPrev = iter[0], yAcc = iter[1], cPrev = iter[2];
            Value xwT = sliceDim0(b, l, xw, time);
            Value hr = matmulTransposed(b, l, hPrev, rd, iter[3]);
            // The step writes into the carried H (and C) and Y's slice, so
            // that bufferization keeps the loop's buffers in place.
            Value yInit = sliceDim0(b, l, yAcc, time);
            SmallVector<Value> gruScratch = {iter[4], iter[5], iter[6]};
            auto results = buildStep(b, l, act, xwT, hr, bias, peep, hPrev,
                                     cPrev, yInit, rd, seqLens, time, hidden,
                                     gates, linearBeforeReset, inputForget,
                                     clip, gruScratch);
            // results: new H, this step's Y, new C (LSTM).
            SmallVector<Value> next = {
                results[0], insertAlong(b, l, results[1], yAcc, 0, time),
                kind == Kind::LSTM ? results[2] : cPrev, hr};
            llvm::append_range(next, gruScratch);
            scf::YieldOp::create(b, l, next);
          });
      Value yDir = loop.getResult(1);
      y = insertAlong(rewriter, loc, yDir, y, 1, dIndex);
      yh = insertAlong(rewriter, loc, loop.getResult(0), yh, 0, dIndex);
      if (kind == Kind::LSTM)
        yc = insertAlong(rewriter, loc, loop.getResult(2), yc, 0, dIndex);
    }
    if (layout1) {
      y = transpose(rewriter, loc, y, {2, 0, 1, 3});
      yh = transpose(rewriter, loc, yh, {1, 0, 2});
      yc = transpose(rewriter, loc, yc, {1, 0, 2});
    }
    SmallVector<Value> replacements = {y, yh};
    if (kind == Kind::LSTM)
      replacements.push_back(yc);
    rewriter.replaceOp(op, replacements);
    return success();
  }

  /// One step's gate equations: returns new H, this step's Y (H, or zero
  /// past the sequence length) and, for LSTM, new C.
  static SmallVector<Value>
  buildStep(OpBuilder &b, Location loc, ArrayRef<Activation> act, Value xw,
            Value hr, Value bias, Value peep, Value hPrev, Value cPrev,
            Value yInit, Value rd, Value seqLens, Value time, int64_t hidden, int64_t gates,
            bool linearBeforeReset, bool inputForget,
            std::optional<double> clip, SmallVectorImpl<Value> &gruScratch) {
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    auto stateType = cast<RankedTensorType>(hPrev.getType());
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    auto identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    auto cst = [&](OpBuilder &bb, Location l, double v) {
      return arith::ConstantOp::create(bb, l, f32, bb.getF32FloatAttr(v));
    };
    auto clipped = [&](OpBuilder &bb, Location l, Value v) {
      if (!clip)
        return v;
      v = arith::MaximumFOp::create(bb, l, v, cst(bb, l, -*clip));
      return Value(arith::MinimumFOp::create(bb, l, v, cst(bb, l, *clip)));
    };
    /// Whether this step is inside entry b's sequence.
    auto valid = [&](OpBuilder &bb, Location l, ValueRange a,
                     int lensArg) -> Value {
      if (lensArg < 0)
        return Value();
      Value len =
          arith::IndexCastOp::create(bb, l, bb.getIndexType(), a[lensArg]);
      return arith::CmpIOp::create(bb, l, arith::CmpIPredicate::slt, time,
                                   len);
    };
    auto masked = [&](OpBuilder &bb, Location l, Value ok, Value v,
                      Value otherwise) {
      return ok ? Value(arith::SelectOp::create(bb, l, ok, v, otherwise)) : v;
    };

    GateOperands ops{b, loc, hidden, {}, {}};
    // Pre-activation of gate g: xw + hr + Wb + Rb (one column block each).
    SmallVector<unsigned> xwArg, hrArg, wbArg, rbArg;
    for (int64_t g = 0; g < gates; ++g) {
      xwArg.push_back(ops.add(xw, g * hidden));
      hrArg.push_back(ops.add(hr, g * hidden));
      wbArg.push_back(ops.add(bias, g * hidden));
      rbArg.push_back(ops.add(bias, (gates + g) * hidden));
    }
    unsigned hArg = ops.add(hPrev, 0);
    int lensArg = seqLens ? static_cast<int>(ops.add(seqLens, 0, true)) : -1;
    auto pre = [&](OpBuilder &bb, Location l, ValueRange a, int64_t g) {
      Value v = arith::AddFOp::create(bb, l, a[xwArg[g]], a[hrArg[g]]);
      v = arith::AddFOp::create(bb, l, v, a[wbArg[g]]);
      return Value(arith::AddFOp::create(bb, l, v, a[rbArg[g]]));
    };

    if constexpr (kind == Kind::RNN) {
      ops.maps.append(2, identity);
      auto g = linalg::GenericOp::create(
          b, loc, TypeRange{stateType, stateType}, ops.values,
          ValueRange{hPrev, yInit}, ops.maps, iterators,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value h = applyActivation(bb, l, act[0], clipped(bb, l, pre(bb, l, a, 0)));
            Value ok = valid(bb, l, a, lensArg);
            linalg::YieldOp::create(
                bb, l,
                ValueRange{masked(bb, l, ok, h, a[hArg]),
                           masked(bb, l, ok, h, cst(bb, l, 0.0))});
          });
      return {g.getResult(0), g.getResult(1)};
    } else if constexpr (kind == Kind::LSTM) {
      // Gate order i, o, f, c; peepholes i, o, f.
      unsigned cArg = ops.add(cPrev, 0);
      SmallVector<int> pArg(3, -1);
      if (peep)
        for (int64_t k = 0; k < 3; ++k)
          pArg[k] = ops.add(peep, k * hidden);
      ops.maps.append(3, identity);
      auto g = linalg::GenericOp::create(
          b, loc, TypeRange{stateType, stateType, stateType}, ops.values,
          ValueRange{hPrev, yInit, cPrev}, ops.maps, iterators,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value cp = a[cArg];
            auto peephole = [&](Value v, int k, Value cell) {
              if (pArg[k] < 0)
                return v;
              return Value(arith::AddFOp::create(
                  bb, l, v, arith::MulFOp::create(bb, l, a[pArg[k]], cell)));
            };
            Value i = applyActivation(
                bb, l, act[0], clipped(bb, l, peephole(pre(bb, l, a, 0), 0, cp)));
            Value f =
                inputForget
                    ? Value(arith::SubFOp::create(bb, l, cst(bb, l, 1.0), i))
                    : applyActivation(
                          bb, l, act[0],
                          clipped(bb, l, peephole(pre(bb, l, a, 2), 2, cp)));
            Value cc =
                applyActivation(bb, l, act[1], clipped(bb, l, pre(bb, l, a, 3)));
            Value cell = arith::AddFOp::create(
                bb, l, arith::MulFOp::create(bb, l, f, cp),
                arith::MulFOp::create(bb, l, i, cc));
            Value o = applyActivation(
                bb, l, act[0],
                clipped(bb, l, peephole(pre(bb, l, a, 1), 1, cell)));
            Value h =
                arith::MulFOp::create(bb, l, o, applyActivation(bb, l, act[2], cell));
            Value ok = valid(bb, l, a, lensArg);
            linalg::YieldOp::create(
                bb, l,
                ValueRange{masked(bb, l, ok, h, a[hArg]),
                           masked(bb, l, ok, h, cst(bb, l, 0.0)),
                           masked(bb, l, ok, cell, cp)});
          });
      return {g.getResult(0), g.getResult(1), g.getResult(2)};
    } else {
      // GRU, gate order z, r, h.
      auto update = [&](OpBuilder &bb, Location l, ValueRange a, Value z,
                        Value hh) {
        Value h = arith::AddFOp::create(
            bb, l,
            arith::MulFOp::create(
                bb, l, arith::SubFOp::create(bb, l, cst(bb, l, 1.0), z), hh),
            arith::MulFOp::create(bb, l, z, a[hArg]));
        Value ok = valid(bb, l, a, lensArg);
        linalg::YieldOp::create(
            bb, l,
            ValueRange{masked(bb, l, ok, h, a[hArg]),
                       masked(bb, l, ok, h, cst(bb, l, 0.0))});
      };
      if (linearBeforeReset) {
        ops.maps.append(2, identity);
        auto g = linalg::GenericOp::create(
            b, loc, TypeRange{stateType, stateType}, ops.values,
            ValueRange{hPrev, yInit}, ops.maps, iterators,
            [&](OpBuilder &bb, Location l, ValueRange a) {
              Value z = applyActivation(bb, l, act[0],
                                        clipped(bb, l, pre(bb, l, a, 0)));
              Value rg = applyActivation(bb, l, act[0],
                                         clipped(bb, l, pre(bb, l, a, 1)));
              Value rh = arith::MulFOp::create(
                  bb, l, rg,
                  arith::AddFOp::create(bb, l, a[hrArg[2]], a[rbArg[2]]));
              Value v = arith::AddFOp::create(
                  bb, l, arith::AddFOp::create(bb, l, a[xwArg[2]], rh),
                  a[wbArg[2]]);
              update(bb, l, a, z, applyActivation(bb, l, act[1],
                                                  clipped(bb, l, v)));
            });
        return {g.getResult(0), g.getResult(1)};
      }
      // linear_before_reset = 0: (r * H) R_h^T needs r first.
      SmallVector<AffineMap> firstMaps(ops.maps);
      firstMaps.append(2, identity);
      auto first = linalg::GenericOp::create(
          b, loc, TypeRange{stateType, stateType}, ops.values,
          ValueRange{gruScratch[0], gruScratch[1]}, firstMaps, iterators,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value z = applyActivation(bb, l, act[0],
                                      clipped(bb, l, pre(bb, l, a, 0)));
            Value rg = applyActivation(bb, l, act[0],
                                       clipped(bb, l, pre(bb, l, a, 1)));
            linalg::YieldOp::create(
                bb, l,
                ValueRange{z, arith::MulFOp::create(bb, l, rg, a[hArg])});
          });
      Value z = first.getResult(0), resetH = first.getResult(1);
      // R_h: rows [2 * hidden, 3 * hidden) of this direction's R.
      auto rdType = cast<RankedTensorType>(rd.getType());
      Value rh = tensor::ExtractSliceOp::create(
          b, loc, rd,
          ArrayRef<OpFoldResult>{b.getIndexAttr(2 * hidden), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(hidden),
                                 b.getIndexAttr(rdType.getDimSize(1))},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      Value hh = matmulTransposed(b, loc, resetH, rh, gruScratch[2]);
      gruScratch.assign({z, resetH, hh});
      unsigned zArg = ops.add(z, 0);
      unsigned hhArg = ops.add(hh, 0);
      ops.maps.append(2, identity);
      auto second = linalg::GenericOp::create(
          b, loc, TypeRange{stateType, stateType}, ops.values,
          ValueRange{hPrev, yInit}, ops.maps, iterators,
          [&](OpBuilder &bb, Location l, ValueRange a) {
            Value v = arith::AddFOp::create(bb, l, a[xwArg[2]], a[hhArg]);
            v = arith::AddFOp::create(bb, l, v, a[wbArg[2]]);
            v = arith::AddFOp::create(bb, l, v, a[rbArg[2]]);
            update(bb, l, a, a[zArg],
                   applyActivation(bb, l, act[1], clipped(bb, l, v)));
          });
      return {second.getResult(0), second.getResult(1)};
    }
  }
};
} // namespace

void mlc::populateGraphRecurrentToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<RNNOp>, RecurrentLowering<GRUOp>,
               RecurrentLowering<LSTMOp>>(patterns.getContext());
}
