//===- FoldWeightTransposes.cpp - Transpose constant weights at compile time //
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlc/Dialect/Loop/Utils/ConstantData.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPFOLDWEIGHTTRANSPOSES
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;

namespace {
/// Writes `input` (shape `shape`, `elementBytes` per element) permuted by
/// `perm` (result dim i is input dim perm[i]) into `output`.
void transposeBytes(ArrayRef<char> input, ArrayRef<int64_t> shape,
                    ArrayRef<int64_t> perm, int64_t elementBytes,
                    MutableArrayRef<char> output) {
  int64_t rank = shape.size();
  SmallVector<int64_t> inputStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inputStrides[d] = inputStrides[d + 1] * shape[d + 1];
  SmallVector<int64_t> outShape, strides;
  for (int64_t d : perm) {
    outShape.push_back(shape[d]);
    strides.push_back(inputStrides[d]);
  }
  // Walk the result in order, keeping the input offset up to date.
  SmallVector<int64_t> index(rank, 0);
  int64_t count = output.size() / elementBytes;
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(output.data() + i * elementBytes,
                input.data() + offset * elementBytes, elementBytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < outShape[d])
        break;
      offset -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
}

struct LoopFoldWeightTransposesPass
    : mlc::loop::impl::LoopFoldWeightTransposesBase<
          LoopFoldWeightTransposesPass> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op.hasPureTensorSemantics() &&
          op.getInput().getDefiningOp<arith::ConstantOp>())
        transposes.push_back(op);
    });
    for (linalg::TransposeOp op : transposes) {
      auto constant = op.getInput().getDefiningOp<arith::ConstantOp>();
      auto inputType = cast<RankedTensorType>(constant.getType());
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      std::optional<ArrayRef<char>> data =
          mlc::loop::getConstantBytes(cast<ElementsAttr>(constant.getValue()));
      if (!data)
        continue;
      int64_t elementBytes = inputType.getElementTypeBitWidth() / 8;
      DenseResourceElementsAttr transposed = mlc::loop::makeConstantBlob(
          resultType, "transposed", data->size(),
          [&](MutableArrayRef<char> out) {
            transposeBytes(*data, inputType.getShape(), op.getPermutation(),
                           elementBytes, out);
          });
      OpBuilder b(op);
      auto folded = arith::ConstantOp::create(b, op.getLoc(), transposed);
      op->getResult(0).replaceAllUsesWith(folded.getResult());
      op.erase();
      if (constant->use_empty())
        constant.erase();
      // A reshape of the transposed weights (a convolution's [C, kh, kw, M]
      // read as a [C*kh*kw, M] matrix) shares the blob, so that the
      // contraction sees a constant it can pack.
      for (Operation *user : llvm::make_early_inc_range(folded->getUsers())) {
        if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user))
          continue;
        b.setInsertionPoint(user);
        auto reshaped = arith::ConstantOp::create(
            b, user->getLoc(),
            DenseResourceElementsAttr::get(
                cast<ShapedType>(user->getResult(0).getType()),
                transposed.getRawHandle()));
        user->getResult(0).replaceAllUsesWith(reshaped.getResult());
        user->erase();
      }
      if (folded->use_empty())
        folded.erase();
    }
  }
};
} // namespace
