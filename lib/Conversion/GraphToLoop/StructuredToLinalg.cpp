//===- StructuredToLinalg.cpp - Matmul, gemm, softmax, layout ops ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "LoweringUtils.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::createFilledTensor;
using mlc::detail::getStaticType;

namespace {
/// Transposes a 2-D tensor.
Value transpose2d(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{t.getDimSize(1), t.getDimSize(0)},
      t.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = cast<TensorType>(op.getType()).getElementType();
    if (!isa<IntegerType, FloatType>(element))
      return rewriter.notifyMatchFailure(op, "not a number tensor");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(),
                                                   op.getValue());
    return success();
  }
};

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhs = getStaticType(adaptor.getLhs()),
         rhs = getStaticType(adaptor.getRhs());
    auto result = getStaticType(op.getResult());
    if (!lhs || !rhs || !result || lhs.getRank() != 2 || rhs.getRank() != 2 ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "only static 2-D float matmul");
    Value acc = createFilledTensor(rewriter, op.getLoc(), result, 0.0);
    rewriter.replaceOpWithNewOp<linalg::MatmulOp>(
        op, ValueRange{adaptor.getLhs(), adaptor.getRhs()}, ValueRange{acc});
    return success();
  }
};

/// A vector operand (numpy's rule, as ONNX MatMul has it): a 1-D lhs [K]
/// is the row [1, K], a 1-D rhs [K] the column [K, 1], and the unit dim is
/// dropped from the product. The matmul of the matrices is made again as a
/// graph op and lowered by the other patterns.
struct VectorMatMulLowering : OpConversionPattern<MatMulOp> {
  VectorMatMulLowering(MLIRContext *ctx)
      : OpConversionPattern<MatMulOp>(ctx, /*benefit=*/3) {}
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhs = getStaticType(adaptor.getLhs()),
         rhs = getStaticType(adaptor.getRhs());
    auto result = getStaticType(op.getResult());
    if (!lhs || !rhs || !result || (lhs.getRank() != 1 && rhs.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "needs a static 1-D operand");
    Location loc = op.getLoc();
    Value a = adaptor.getLhs(), b = adaptor.getRhs();
    SmallVector<int64_t> shape(result.getShape());
    if (lhs.getRank() == 1) {
      a = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({1, lhs.getDimSize(0)}, lhs.getElementType()),
          a, SmallVector<ReassociationIndices>{{0, 1}});
      // The product's M = 1 before its last dim (N, or nothing when the
      // rhs is a vector too).
      shape.insert(shape.end() - (rhs.getRank() == 1 ? 0 : 1), 1);
    }
    if (rhs.getRank() == 1) {
      b = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rhs.getDimSize(0), 1}, rhs.getElementType()),
          b, SmallVector<ReassociationIndices>{{0, 1}});
      shape.push_back(1);
    }
    auto productType = RankedTensorType::get(shape, result.getElementType());
    Value product = MatMulOp::create(rewriter, loc, productType, a, b);
    // The unit dims join their neighbours: the last two dims (M or N and
    // the inserted 1) become one, or the 1x1 product of two vectors a
    // scalar.
    int64_t rank = productType.getRank();
    SmallVector<ReassociationIndices> groups;
    if (result.getRank() > 0) {
      for (int64_t d = 0; d < rank - 2; ++d)
        groups.push_back({d});
      groups.push_back({rank - 2, rank - 1});
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, result, product,
                                                         groups);
    return success();
  }
};

/// [b..., M, K] x [K, N]: every row of every batch meets the same
/// right-hand side, so the batch dims are rows too: one [b...*M, K] x [K, N]
/// matmul between reshapes. A batched contraction would tile M alone, and
/// ViT's attention input projection ([197, 1, 768] x [768, 2304]) had
/// register tiles of one row.
struct SharedRhsMatMulLowering : OpConversionPattern<MatMulOp> {
  SharedRhsMatMulLowering(MLIRContext *ctx)
      : OpConversionPattern<MatMulOp>(ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhs = getStaticType(adaptor.getLhs()),
         rhs = getStaticType(adaptor.getRhs());
    auto result = getStaticType(op.getResult());
    if (!lhs || !rhs || !result || lhs.getRank() < 3 || rhs.getRank() != 2 ||
        result.getRank() != lhs.getRank() ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs [b..., M, K] x [K, N]");
    int64_t rank = lhs.getRank();
    ReassociationIndices rows =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    SmallVector<ReassociationIndices> groups = {rows, {rank - 1}};
    int64_t m = lhs.getNumElements() / lhs.getDimSize(rank - 1);
    Location loc = op.getLoc();
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({m, lhs.getDimSize(rank - 1)},
                              lhs.getElementType()),
        adaptor.getLhs(), groups);
    auto flatResult = RankedTensorType::get(
        {m, result.getDimSize(rank - 1)}, result.getElementType());
    Value product =
        linalg::MatmulOp::create(
            rewriter, loc, ValueRange{flat, adaptor.getRhs()},
            ValueRange{createFilledTensor(rewriter, loc, flatResult, 0.0)})
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, result, product,
                                                       groups);
    return success();
  }
};

/// alpha * op(A) op(B) + beta * C: transposes, one linalg.matmul, then one
/// generic for the scaling and the broadcast add of C.
struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || !getStaticType(adaptor.getA()) ||
        !getStaticType(adaptor.getB()) ||
        !isa<FloatType>(result.getElementType()) ||
        (adaptor.getC() && !getStaticType(adaptor.getC())))
      return rewriter.notifyMatchFailure(op, "only static float gemm");
    Location loc = op.getLoc();
    Value a = adaptor.getA(), b = adaptor.getB();
    if (op.getTransA())
      a = transpose2d(rewriter, loc, a);
    if (op.getTransB())
      b = transpose2d(rewriter, loc, b);
    Value product =
        linalg::MatmulOp::create(
            rewriter, loc, ValueRange{a, b},
            ValueRange{createFilledTensor(rewriter, loc, result, 0.0)})
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, product);
      return success();
    }
    Type element = result.getElementType();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(2)};
    SmallVector<Value> ins = {product};
    if (c && beta != 0.0) {
      auto ct = cast<RankedTensorType>(c.getType());
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < ct.getRank(); ++i) {
        int64_t dim = i + 2 - ct.getRank();
        exprs.push_back(ct.getDimSize(i) == 1 && result.getDimSize(dim) != 1
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(dim));
      }
      maps.push_back(AffineMap::get(2, 0, exprs, rewriter.getContext()));
      ins.push_back(c);
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(2));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, result.getShape(), element);
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ins, ValueRange{init}, maps,
        iterators, [&](OpBuilder &bb, Location l, ValueRange args) {
          auto cst = [&](double v) {
            return arith::ConstantOp::create(bb, l, element,
                                             bb.getFloatAttr(element, v));
          };
          Value v = args[0];
          if (alpha != 1.0)
            v = arith::MulFOp::create(bb, l, v, cst(alpha));
          if (ins.size() > 1) {
            Value cv = args[1];
            if (beta != 1.0)
              cv = arith::MulFOp::create(bb, l, cv, cst(beta));
            v = arith::AddFOp::create(bb, l, v, cv);
          }
          linalg::YieldOp::create(bb, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Softmax through upstream linalg.softmax's own decomposition (max, exp of
/// the difference, sum, divide); dims known only at run time are read with
/// tensor.dim.
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "only ranked float softmax");
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), type.getRank());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, adaptor.getInput()),
        type.getElementType());
    auto softmax = linalg::SoftmaxOp::create(rewriter, loc, TypeRange{type},
                                             adaptor.getInput(), init, axis);
    FailureOr<SmallVector<Value>> parts =
        cast<linalg::AggregatedOpInterface>(softmax.getOperation())
            .decomposeOperation(rewriter);
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "softmax decomposition failed");
    Value result = parts->front();
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    rewriter.eraseOp(softmax);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = getStaticType(adaptor.getInput());
    auto result = getStaticType(op.getResult());
    if (!in || !result)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    SmallVector<int64_t> perm =
        op.getPerm() ? SmallVector<int64_t>(*op.getPerm())
                     : llvm::to_vector(
                           llvm::reverse(llvm::seq<int64_t>(0, in.getRank())));
    Value init = tensor::EmptyOp::create(
        rewriter, op.getLoc(), result.getShape(), result.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(), init,
                                                       perm)
                               .getResult());
    return success();
  }
};

/// Concat through tensor.concat's decomposition into insert_slices.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || llvm::any_of(adaptor.getInputs(),
                                [](Value v) { return !getStaticType(v); }))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t axis = mlc::detail::normalizeAxis(op.getAxis(), result.getRank());
    auto concat = tensor::ConcatOp::create(rewriter, op.getLoc(), result, axis,
                                           adaptor.getInputs());
    FailureOr<SmallVector<Value>> parts = concat.decomposeOperation(rewriter);
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "concat decomposition failed");
    rewriter.replaceOp(op, *parts);
    rewriter.eraseOp(concat);
    return success();
  }
};

/// Reshape, Flatten, Squeeze and Unsqueeze with static result shapes:
/// tensor.reshape with the result dims as a constant shape.
template <typename OpTy> struct ReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result || !getStaticType(adaptor.getInput()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto shapeType =
        RankedTensorType::get({result.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, op.getLoc(), shapeType,
        DenseIntElementsAttr::get(shapeType, result.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, result,
                                                   adaptor.getInput(), shape);
    return success();
  }
};
} // namespace

void mlc::populateGraphStructuredToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SharedRhsMatMulLowering, VectorMatMulLowering>(
      patterns.getContext());
  patterns.add<ConstantLowering, ConcatLowering, MatMulLowering, GemmLowering,
               SoftmaxLowering, TransposeLowering, ReshapeLowering<ReshapeOp>,
               ReshapeLowering<FlattenOp>, ReshapeLowering<SqueezeOp>,
               ReshapeLowering<UnsqueezeOp>>(patterns.getContext());
}
