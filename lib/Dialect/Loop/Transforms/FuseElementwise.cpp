//===- FuseElementwise.cpp - Accumulator folds and elementwise fusion -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Dialect/Loop/Transforms/SimplifyShapes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPFUSEELEMENTWISE
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
bool allParallel(linalg::LinalgOp op) {
  return op.getNumParallelLoops() == op.getNumLoops();
}

/// Whether `op` is a single-result reduction over tensors whose combiner is
/// `out + (...)` on floats: the accumulator may then start anywhere.
bool accumulatesWithAddF(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1 || allParallel(op) ||
      !isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return false;
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return false;
  auto add = yield->getOperand(0).getDefiningOp<arith::AddFOp>();
  BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  return add && (add.getLhs() == acc || add.getRhs() == acc);
}

/// Whether `op` is `yield a0 + a1` over two inputs and an identity result.
bool isBinaryAdd(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !allParallel(op) || !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2)
    return false;
  auto add = dyn_cast<arith::AddFOp>(body->front());
  if (!add)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (add.getLhs() == a && add.getRhs() == b) ||
         (add.getLhs() == b && add.getRhs() == a);
}

/// add(contraction(init = I), Y) -> contraction(init = I + Y).
struct FoldAddIntoAccumulator : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp add,
                                PatternRewriter &rewriter) const override {
    if (!isBinaryAdd(add))
      return failure();
    auto resultType = cast<RankedTensorType>(add.getResult(0).getType());
    for (unsigned i = 0; i < 2; ++i) {
      OpOperand *accOperand = add.getDpsInputOperand(i);
      OpOperand *other = add.getDpsInputOperand(1 - i);
      // The contraction's result, possibly through an expand_shape (a
      // matmul whose batch dims were folded into its rows).
      Value accValue = accOperand->get();
      auto expand = accValue.getDefiningOp<tensor::ExpandShapeOp>();
      if (expand) {
        if (!accValue.hasOneUse())
          continue;
        accValue = expand.getSrc();
      }
      auto contraction = accValue.getDefiningOp<linalg::LinalgOp>();
      if (!contraction || !accValue.hasOneUse() ||
          accOperand->get().getType() != resultType ||
          !add.getMatchingIndexingMap(accOperand).isIdentity() ||
          !accumulatesWithAddF(contraction))
        continue;
      // Only a broadcast addend (a bias) starts the accumulator. A full-size
      // one (a residual) can be far larger than the products, and every
      // step of the reduction would round at its magnitude: BERT-base's
      // error against PyTorch grew tenfold when residuals were folded.
      AffineMap addendMap = add.getMatchingIndexingMap(other);
      if (addendMap.isPermutation())
        continue;
      auto initType = cast<RankedTensorType>(accValue.getType());
      if (expand) {
        std::optional<AffineMap> collapsed =
            collapseMap(addendMap, expand.getReassociationIndices());
        if (!collapsed)
          continue;
        addendMap = *collapsed;
      }
      // The addend must exist where the contraction starts.
      Value addend = other->get();
      if (Operation *def = addend.getDefiningOp())
        if (def->getBlock() != contraction->getBlock() ||
            !def->isBeforeInBlock(contraction))
          continue;
      rewriter.setInsertionPoint(contraction);
      Value init = contraction.getDpsInitOperand(0)->get();
      Value newInit = buildInit(rewriter, add.getLoc(), init, addend,
                                addendMap, initType);
      rewriter.modifyOpInPlace(contraction, [&] {
        contraction.getDpsInitOperand(0)->set(newInit);
      });
      rewriter.replaceOp(add, expand ? Value(expand.getResult())
                                     : contraction->getResult(0));
      return success();
    }
    return failure();
  }

  /// `map` (over the expanded dims) over the collapsed dims of `groups`,
  /// when it reads only dims that are alone in their group.
  static std::optional<AffineMap>
  collapseMap(AffineMap map, ArrayRef<ReassociationIndices> groups) {
    SmallVector<int64_t> collapsedOf(map.getNumDims(), -1);
    for (auto [g, group] : llvm::enumerate(groups))
      if (group.size() == 1)
        collapsedOf[group.front()] = g;
    SmallVector<AffineExpr> exprs;
    for (AffineExpr e : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e)) {
        int64_t g = collapsedOf[dim.getPosition()];
        if (g < 0)
          return std::nullopt;
        exprs.push_back(getAffineDimExpr(g, map.getContext()));
      } else if (isa<AffineConstantExpr>(e)) {
        exprs.push_back(e);
      } else {
        return std::nullopt;
      }
    }
    return AffineMap::get(groups.size(), 0, exprs, map.getContext());
  }

  /// `addend` broadcast through `addendMap` (in the result's iteration
  /// space), plus `init` unless that is a zero fill.
  static Value buildInit(PatternRewriter &rewriter, Location loc, Value init,
                         Value addend, AffineMap addendMap,
                         RankedTensorType type) {
    bool zeroInit = false;
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      zeroInit = matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    if (!zeroInit) {
      ins.push_back(init);
      maps.push_back(rewriter.getMultiDimIdentityMap(type.getRank()));
    }
    ins.push_back(addend);
    maps.push_back(addendMap);
    maps.push_back(rewriter.getMultiDimIdentityMap(type.getRank()));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc,
                                tensor::getMixedSizes(rewriter, loc, init),
                                type.getElementType());
    return linalg::GenericOp::create(
               rewriter, loc, TypeRange{type}, ins, ValueRange{empty}, maps,
               SmallVector<utils::IteratorType>(type.getRank(),
                                                utils::IteratorType::parallel),
               [&](OpBuilder &b, Location l, ValueRange args) {
                 Value v = zeroInit
                               ? args[0]
                               : arith::AddFOp::create(b, l, args[0], args[1])
                                     .getResult();
                 linalg::YieldOp::create(b, l, v);
               })
        .getResult(0);
  }
};

/// A splat constant of unsigned integers (a uint8 zero point) that a
/// generic reads only as signless integers, through the casts the lowering
/// views unsigned values with, becomes a signless constant of the same bits,
/// read as such: upstream's fusion folds splat operands into the body as
/// scalar `arith.constant`s, which must be signless.
struct SignlessSplatOperands : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      DenseElementsAttr value;
      if (!matchPattern(operand->get(), m_Constant(&value)) ||
          !value.isSplat())
        continue;
      auto type = dyn_cast<IntegerType>(value.getElementType());
      if (!type || type.isSignless())
        continue;
      auto signless = IntegerType::get(getContext(), type.getWidth());
      BlockArgument arg = op.getMatchingBlockArgument(operand);
      if (!llvm::all_of(arg.getUsers(), [&](Operation *user) {
            auto cast = dyn_cast<UnrealizedConversionCastOp>(user);
            return cast && cast->getNumOperands() == 1 &&
                   cast->getNumResults() == 1 &&
                   cast->getResult(0).getType() == signless;
          }))
        continue;
      auto tensorType = cast<ShapedType>(operand->get().getType());
      rewriter.setInsertionPoint(op);
      Value constant = arith::ConstantOp::create(
          rewriter, op.getLoc(),
          DenseElementsAttr::get(tensorType.clone(signless),
                                 value.getSplatValue<APInt>()));
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(constant);
        arg.setType(signless);
      });
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers()))
        rewriter.replaceOp(user, arg);
      changed = true;
    }
    return success(changed);
  }
};

/// Fuses a producer into its consumer when the fused loop nest computes
/// every producer element exactly once: both all-parallel, the producer used
/// only here, read through a permutation (no broadcast recomputation).
bool shouldFuse(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  return producer && consumer && allParallel(producer) &&
         allParallel(consumer) && producer->hasOneUse() &&
         consumer.getMatchingIndexingMap(operand).isPermutation();
}

/// Whether `v` holds an integer (or an infinity or NaN) whatever its
/// inputs: a rounding, an exact integer conversion, an integral constant,
/// or a sum or difference of such (rounding an integer-valued sum to a
/// float gives an integer-valued float).
bool isIntegral(Value v, int depth = 0) {
  if (depth > 4)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<math::RoundEvenOp, math::RoundOp, math::FloorOp, math::CeilOp,
          math::TruncOp>(def))
    return true;
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(def)) {
    auto from = dyn_cast<IntegerType>(def->getOperand(0).getType());
    auto to = dyn_cast<FloatType>(v.getType());
    return from && to &&
           from.getWidth() <= static_cast<unsigned>(to.getFPMantissaWidth());
  }
  FloatAttr constant;
  if (matchPattern(v, m_Constant(&constant)))
    return constant.getValue().isInteger();
  if (isa<arith::AddFOp, arith::SubFOp>(def))
    return isIntegral(def->getOperand(0), depth + 1) &&
           isIntegral(def->getOperand(1), depth + 1);
  return false;
}

/// The constant bound of a min or max `op` and its other operand.
std::optional<std::pair<double, Value>> getBound(Operation *op) {
  for (unsigned i : {0u, 1u}) {
    FloatAttr bound;
    if (matchPattern(op->getOperand(i), m_Constant(&bound)) &&
        bound.getValue().isInteger())
      return std::make_pair(bound.getValueAsDouble(), op->getOperand(1 - i));
  }
  return std::nullopt;
}

/// Whether `v` is an integral value clamped into [lo, hi]: min(max(w, a),
/// b) or max(min(w, b), a) with constant bounds inside [lo, hi].
bool isClampedIntegral(Value v, double lo, double hi) {
  auto isMin = [](Operation *op) {
    return isa_and_nonnull<arith::MinimumFOp, arith::MinNumFOp>(op);
  };
  auto isMax = [](Operation *op) {
    return isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(op);
  };
  Operation *outer = v.getDefiningOp();
  if (!isMin(outer) && !isMax(outer))
    return false;
  std::optional<std::pair<double, Value>> first = getBound(outer);
  if (!first)
    return false;
  Operation *inner = first->second.getDefiningOp();
  if (!inner || isMin(inner) == isMin(outer) ||
      (!isMin(inner) && !isMax(inner)))
    return false;
  std::optional<std::pair<double, Value>> second = getBound(inner);
  if (!second)
    return false;
  double low = isMax(outer) ? first->first : second->first;
  double high = isMin(outer) ? first->first : second->first;
  return lo <= low && high <= hi && isIntegral(second->second);
}

/// `uitofp(fptoui(v))` (or the signed pair) is `v` when `v` is an integer
/// already clamped into the integer type's range: what a QuantizeLinear
/// followed by its DequantizeLinear computes once fused (round, add the
/// zero point, clamp, convert, convert back, subtract it, scale).
void foldIntegerRoundTrips(func::FuncOp func) {
  func.walk([](Operation *op) {
    if (!isa<arith::UIToFPOp, arith::SIToFPOp>(op))
      return WalkResult::advance();
    Operation *cast = op->getOperand(0).getDefiningOp();
    if (!isa_and_nonnull<arith::FPToUIOp, arith::FPToSIOp>(cast) ||
        isa<arith::FPToUIOp>(cast) != isa<arith::UIToFPOp>(op))
      return WalkResult::advance();
    Value v = cast->getOperand(0);
    auto integer = dyn_cast<IntegerType>(cast->getResult(0).getType());
    if (!integer || v.getType() != op->getResult(0).getType())
      return WalkResult::advance();
    unsigned width = integer.getWidth();
    bool isUnsigned = isa<arith::FPToUIOp>(cast);
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = isUnsigned ? std::ldexp(1.0, width) - 1
                           : std::ldexp(1.0, width - 1) - 1;
    if (!isClampedIntegral(v, lo, hi))
      return WalkResult::advance();
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
    if (cast->use_empty())
      cast->erase();
    return WalkResult::skip();
  });
}

struct LoopFuseElementwisePass
    : mlc::loop::impl::LoopFuseElementwiseBase<LoopFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet folds(ctx);
    folds.add<FoldAddIntoAccumulator, SignlessSplatOperands>(ctx);
    RewritePatternSet fusion(ctx);
    linalg::populateElementwiseOpsFusionPatterns(fusion, shouldFuse);
    linalg::GenericOp::getCanonicalizationPatterns(fusion, ctx);
    // Sizes known at run time are read with `tensor.dim` of the producer's
    // result, a second use that would keep it out of its consumer: they
    // are read from the producer's operands instead.
    for (RewritePatternSet *patterns : {&folds, &fusion})
      mlc::loop::populateSimplifyShapesPatterns(*patterns);
    // Only the function's top-level loop nests: bodies of loops (recurrent
    // ops) carry scratch tensors that must stay the loop's own buffers.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // One walk over the ops leaves chains whose consumer was itself
    // rewritten after its producers were looked at (a quantized
    // convolution's scaling, bias, clip, QuantizeLinear and
    // DequantizeLinear stayed two loop nests); the fusion runs again
    // until nothing changes.
    for (RewritePatternSet *patterns : {&folds, &fusion}) {
      FrozenRewritePatternSet frozen(std::move(*patterns));
      bool changed = true;
      for (int round = 0; changed && round < 4; ++round) {
        SmallVector<Operation *> ops = llvm::map_to_vector(
            getOperation().getBody().getOps(),
            [](Operation &op) { return &op; });
        changed = false;
        if (failed(applyOpPatternsGreedily(ops, frozen, config, &changed)))
          return signalPassFailure();
      }
    }
    foldIntegerRoundTrips(getOperation());
  }
};
} // namespace
