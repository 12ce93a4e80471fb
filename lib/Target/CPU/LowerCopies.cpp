//===- LowerCopies.cpp - Buffer copies as row memcpys ---------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A copy between statically shaped buffers whose innermost dimension has
// unit stride on both sides becomes loops over its outer dimensions around
// a `memref.copy` of the longest run that is contiguous in both; the LLVM
// lowering emits that as `llvm.memcpy`. Other non-contiguous copies become
// `linalg.copy`, which later becomes element loops. A copy of a view onto
// the same view goes away.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPULOWERCOPIES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;

namespace {
bool isContiguous(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getLayout().isIdentity();
}

/// The first dimension from which `type` is contiguous to its end (its rank
/// when even the innermost dimension has a non-unit stride), or -1 when the
/// strides are not known.
int64_t contiguousSuffixStart(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() || failed(type.getStridesAndOffset(strides, offset)))
    return -1;
  int64_t rank = type.getRank();
  int64_t expected = 1;
  int64_t start = rank;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != expected)
      break;
    expected *= type.getDimSize(d);
    start = d;
  }
  return start;
}

/// The first dimension of the longest run of elements contiguous in both
/// `sourceType` and `targetType`, or -1 when there is none of at least a few
/// elements (a copy element by element is as good then).
int64_t commonRunStart(MemRefType sourceType, MemRefType targetType) {
  constexpr int64_t minRun = 4;
  if (sourceType.getRank() == 0 ||
      sourceType.getShape() != targetType.getShape())
    return -1;
  int64_t sourceStart = contiguousSuffixStart(sourceType);
  int64_t targetStart = contiguousSuffixStart(targetType);
  int64_t start = std::max(sourceStart, targetStart);
  int64_t rank = sourceType.getRank();
  if (sourceStart < 0 || targetStart < 0 || start >= rank)
    return -1;
  int64_t run = 1;
  for (int64_t d = start; d < rank; ++d)
    run *= sourceType.getDimSize(d);
  return run < minRun ? -1 : start;
}

/// Rewrites the copy `source -> target` as loops around contiguous runs.
/// Returns false (and builds nothing) when `commonRunStart` finds no run.
bool buildRowCopies(OpBuilder &b, Location loc, Value source, Value target) {
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  auto targetType = dyn_cast<MemRefType>(target.getType());
  if (!sourceType || !targetType)
    return false;
  int64_t start = commonRunStart(sourceType, targetType);
  if (start < 0)
    return false;
  int64_t rank = sourceType.getRank();

  // Loops over the dims before `start`; the run is a rank-reduced subview
  // of the remaining dims, collapsed to one dimension.
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(d < start ? 1 : sourceType.getDimSize(d)));
  OpBuilder::InsertionGuard guard(b);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> uppers;
  for (int64_t d = 0; d < start; ++d)
    uppers.push_back(
        arith::ConstantIndexOp::create(b, loc, sourceType.getDimSize(d)));
  for (int64_t d = 0; d < start; ++d) {
    if (sourceType.getDimSize(d) == 1)
      continue;
    auto loop = scf::ForOp::create(b, loc, zero, uppers[d], one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    offsets[d] = loop.getInductionVar();
  }
  // The view keeps every dim (the leading ones of size 1) and one
  // collapse_shape folds it to the run: a rank-reducing subview would have to
  // guess which unit dims it drops, and a guess that differs from the
  // verifier's stride matching (unit dims with equal strides) is rejected.
  auto slice = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    auto viewType = memref::SubViewOp::inferResultType(type, offsets, sizes,
                                                        strides);
    Value view = memref::SubViewOp::create(b, loc, viewType, buffer, offsets,
                                           sizes, strides);
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    return memref::CollapseShapeOp::create(b, loc, view,
                                           ArrayRef<ReassociationIndices>{all});
  };
  Value from = slice(source);
  Value to = slice(target);
  memref::CopyOp::create(b, loc, from, to);
  return true;
}

/// A `linalg.generic` that only moves elements (one input, all loops
/// parallel, an identity output map, a body that yields the input) and
/// reads its input through an affine map without divisions is a copy from a
/// strided view of the input: an im2col gather reads
/// `in[n, c, oh * sh + kh * dh, ow * sw + kw * dw]`, a view with strides
/// `(C*H*W, H*W, dh*W, dw, sh*W, sw)` (windows overlap, which a view
/// allows). Returns that view, or null (building nothing) when the view and the
/// output have no contiguous runs in common.
Value gatherSourceView(OpBuilder &b, linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return nullptr;
  Block &body = op.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || !yield ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return nullptr;
  AffineMap outMap = op.getIndexingMapsArray()[1];
  AffineMap inMap = op.getIndexingMapsArray()[0];
  Value input = op.getDpsInputs()[0];
  auto inType = dyn_cast<MemRefType>(input.getType());
  auto outType = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!outMap.isIdentity() || !inType || !outType ||
      !outType.hasStaticShape() || inMap.getNumSymbols() != 0)
    return nullptr;
  SmallVector<int64_t> inStrides;
  int64_t inOffset;
  if (failed(inType.getStridesAndOffset(inStrides, inOffset)) ||
      llvm::any_of(inStrides, ShapedType::isDynamic))
    return nullptr;
  // Each input index is sum(coefficient * loop dim) + constant.
  int64_t rank = outType.getRank();
  SmallVector<int64_t> viewStrides(rank, 0);
  int64_t extraOffset = 0;
  for (auto [expr, stride] : llvm::zip(inMap.getResults(), inStrides)) {
    if (!expr.isPureAffine())
      return nullptr;
    SmallVector<int64_t> coefficients(rank, 0);
    int64_t constant = 0;
    bool ok = true;
    // Walk the sum's terms: d, c * d, d * c, c.
    std::function<void(AffineExpr)> visit = [&](AffineExpr e) {
      if (auto bin = dyn_cast<AffineBinaryOpExpr>(e);
          bin && e.getKind() == AffineExprKind::Add) {
        visit(bin.getLHS());
        visit(bin.getRHS());
      } else if (auto dim = dyn_cast<AffineDimExpr>(e)) {
        coefficients[dim.getPosition()] += 1;
      } else if (auto cst = dyn_cast<AffineConstantExpr>(e)) {
        constant += cst.getValue();
      } else if (auto bin = dyn_cast<AffineBinaryOpExpr>(e);
                 bin && e.getKind() == AffineExprKind::Mul) {
        auto dim = dyn_cast<AffineDimExpr>(bin.getLHS());
        auto cst = dyn_cast<AffineConstantExpr>(bin.getRHS());
        if (!dim) {
          dim = dyn_cast<AffineDimExpr>(bin.getRHS());
          cst = dyn_cast<AffineConstantExpr>(bin.getLHS());
        }
        if (dim && cst)
          coefficients[dim.getPosition()] += cst.getValue();
        else
          ok = false;
      } else {
        ok = false;
      }
    };
    visit(expr);
    if (!ok || constant < 0 ||
        llvm::any_of(coefficients, [](int64_t c) { return c < 0; }))
      return nullptr;
    for (int64_t d = 0; d < rank; ++d)
      viewStrides[d] += coefficients[d] * stride;
    extraOffset += constant * stride;
  }
  auto viewType = MemRefType::get(
      outType.getShape(), outType.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                             viewStrides),
      inType.getMemorySpace());
  if (commonRunStart(viewType, outType) < 0)
    return nullptr;
  Location loc = op.getLoc();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, input);
  Value offset = metadata.getOffset();
  if (extraOffset != 0)
    offset = arith::AddIOp::create(
        b, loc, offset, arith::ConstantIndexOp::create(b, loc, extraOffset));
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(b.getIndexAttr(outType.getDimSize(d)));
    strides.push_back(b.getIndexAttr(viewStrides[d]));
  }
  return memref::ReinterpretCastOp::create(b, loc, viewType,
                                           metadata.getBaseBuffer(), offset,
                                           sizes, strides);
}

/// Whether `a` and `b` are the same elements: one buffer, or views made by
/// identical ops of one buffer (what bufferization writes for a tile that
/// a loop computed in place and inserts where it was extracted from).
bool isSameView(Value a, Value b) {
  if (a == b)
    return true;
  auto viewA = a.getDefiningOp<memref::SubViewOp>();
  auto viewB = b.getDefiningOp<memref::SubViewOp>();
  return viewA && viewB &&
         OperationEquivalence::isEquivalentTo(
             viewA, viewB, OperationEquivalence::exactValueMatch,
             /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

struct CPULowerCopiesPass
    : mlc::target::impl::CPULowerCopiesBase<CPULowerCopiesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> copies;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (isSameView(copy.getSource(), copy.getTarget()))
          copies.push_back(op);
        else if (!isContiguous(copy.getSource()) ||
                 !isContiguous(copy.getTarget()))
          copies.push_back(op);
      } else if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
        if (copy.hasPureBufferSemantics())
          copies.push_back(op);
      } else if (isa<linalg::GenericOp>(op)) {
        copies.push_back(op);
      }
    });
    for (Operation *op : copies) {
      OpBuilder b(op);
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        // Only gathers whose rows are contiguous runs.
        if (Value view = gatherSourceView(b, generic);
            view && buildRowCopies(b, op->getLoc(), view,
                                   generic.getDpsInits()[0]))
          op->erase();
        continue;
      }
      Value source = op->getOperand(0), target = op->getOperand(1);
      if (isa<memref::CopyOp>(op) && isSameView(source, target)) {
        op->erase();
        continue;
      }
      if (buildRowCopies(b, op->getLoc(), source, target)) {
        op->erase();
        continue;
      }
      if (isa<memref::CopyOp>(op)) {
        linalg::CopyOp::create(b, op->getLoc(), source, target);
        op->erase();
      }
    }
  }
};
} // namespace
