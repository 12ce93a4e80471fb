//===- GatherScatterNDToLinalg.cpp - GatherND and ScatterND ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// GatherND: a generic over the result whose body reads the index tuple for
// its position and then the data element it names. ScatterND: a copy of the
// data threaded through an scf.for over (index tuple, slice element) pairs
// in order, so that later updates win (or combine, with a reduction) as
// ONNX specifies. Negative indices count from the end; indices outside the
// data are clamped to it, so that a bad index never reads or writes outside
// the buffers.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// The position of `linear` in a row-major index space of `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> position(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value v = arith::DivUIOp::create(
        b, loc, linear, arith::ConstantIndexOp::create(b, loc, stride));
    position[d] = arith::RemUIOp::create(
        b, loc, v, arith::ConstantIndexOp::create(b, loc, shape[d]));
    stride *= shape[d];
  }
  return position;
}

struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = getStaticType(adaptor.getData());
    auto indices = getStaticType(adaptor.getIndices());
    auto result = getStaticType(op.getResult());
    if (!data || !indices || !result || indices.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t batch = op.getBatchDims();
    int64_t q = indices.getRank(), k = indices.getDimSize(q - 1);
    int64_t rank = result.getRank();
    if (batch + k > data.getRank() || rank != q - 1 + data.getRank() - batch - k)
      return rewriter.notifyMatchFailure(op, "inconsistent shapes");
    Value source = adaptor.getData(), tuples = adaptor.getIndices();
    Value gathered = mlc::detail::buildGatherByIndex(
        rewriter, op.getLoc(), result, source,
        [&](OpBuilder &b, Location l, ArrayRef<Value> out) {
          // Batch dims, then the k indexed dims, then the sliced dims.
          SmallVector<Value> position(out.begin(), out.begin() + batch);
          SmallVector<Value> tuple(out.begin(), out.begin() + (q - 1));
          tuple.push_back(Value());
          for (int64_t t = 0; t < k; ++t) {
            tuple.back() = arith::ConstantIndexOp::create(b, l, t);
            Value i = tensor::ExtractOp::create(b, l, tuples, tuple);
            position.push_back(
                mlc::detail::getClampedIndex(b, l, i, data.getDimSize(batch + t)));
          }
          position.append(out.begin() + (q - 1), out.end());
          return position;
        });
    rewriter.replaceOp(op, gathered);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = getStaticType(adaptor.getData());
    auto indices = getStaticType(adaptor.getIndices());
    auto updates = getStaticType(adaptor.getUpdates());
    if (!data || !indices || !updates || indices.getRank() < 1 ||
        data != getStaticType(op.getResult()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    StringRef reduction = op.getReduction();
    Type element = data.getElementType();
    bool isFloat = isa<FloatType>(element);
    if (reduction != "none" && !isFloat && !element.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "reduction on this type");
    int64_t q = indices.getRank(), k = indices.getDimSize(q - 1);
    if (k > data.getRank())
      return rewriter.notifyMatchFailure(op, "index tuples longer than rank");
    ArrayRef<int64_t> tupleShape = indices.getShape().drop_back();
    ArrayRef<int64_t> sliceShape = data.getShape().drop_front(k);
    int64_t tuples = ShapedType::getNumElements(tupleShape);
    int64_t slice = ShapedType::getNumElements(sliceShape);
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value indexTensor = adaptor.getIndices(), source = adaptor.getUpdates();
    auto loop = scf::ForOp::create(
        rewriter, loc, c(0), c(tuples * slice), c(1),
        ValueRange{adaptor.getData()},
        [&](OpBuilder &b, Location l, Value linear, ValueRange iter) {
          Value s = arith::ConstantIndexOp::create(b, l, slice);
          SmallVector<Value> tuple = delinearize(
              b, l, arith::DivUIOp::create(b, l, linear, s), tupleShape);
          SmallVector<Value> inSlice = delinearize(
              b, l, arith::RemUIOp::create(b, l, linear, s), sliceShape);
          SmallVector<Value> target;
          SmallVector<Value> at(tuple);
          at.push_back(Value());
          for (int64_t t = 0; t < k; ++t) {
            at.back() = arith::ConstantIndexOp::create(b, l, t);
            target.push_back(mlc::detail::getClampedIndex(
                b, l, tensor::ExtractOp::create(b, l, indexTensor, at),
                data.getDimSize(t)));
          }
          llvm::append_range(target, inSlice);
          SmallVector<Value> from(tuple);
          llvm::append_range(from, inSlice);
          Value update = tensor::ExtractOp::create(b, l, source, from);
          if (reduction != "none") {
            Value old = tensor::ExtractOp::create(b, l, iter[0], target);
            if (reduction == "add")
              update = isFloat ? Value(arith::AddFOp::create(b, l, old, update))
                               : Value(arith::AddIOp::create(b, l, old, update));
            else if (reduction == "mul")
              update = isFloat ? Value(arith::MulFOp::create(b, l, old, update))
                               : Value(arith::MulIOp::create(b, l, old, update));
            else if (reduction == "max")
              update = isFloat
                           ? Value(arith::MaximumFOp::create(b, l, old, update))
                           : Value(arith::MaxSIOp::create(b, l, old, update));
            else
              update = isFloat
                           ? Value(arith::MinimumFOp::create(b, l, old, update))
                           : Value(arith::MinSIOp::create(b, l, old, update));
          }
          scf::YieldOp::create(
              b, l, Value(tensor::InsertOp::create(b, l, update, iter[0], target)));
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphGatherScatterNDToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GatherNDLowering, ScatterNDLowering>(patterns.getContext());
}
