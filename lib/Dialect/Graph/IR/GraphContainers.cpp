//===- GraphContainers.cpp - Sequence and optional ops --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shape functions, verifiers, folders and canonicalizations of
// GraphContainerOps.td. The canonicalizations turn sequences whose elements
// are known at compile time into SequenceConstructs (SplitToSequence of a
// static tensor, SequenceInsert/SequenceErase at a known position) and
// resolve what reads them (SequenceAt, SequenceLength,
// ConcatFromSequence), so that no sequence is left to lower.
//
//===----------------------------------------------------------------------===//

#include "GraphShapeHelpers.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::graph::detail;

namespace {
/// The most static tensor type that both `a` and `b` have (same element
/// type): dims that differ become `?`, ranks that differ unranked.
TensorType joinTensorTypes(TensorType a, TensorType b) {
  auto ra = dyn_cast<RankedTensorType>(a);
  auto rb = dyn_cast<RankedTensorType>(b);
  if (!ra || !rb || ra.getRank() != rb.getRank())
    return UnrankedTensorType::get(a.getElementType());
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(ra.getShape(), rb.getShape()))
    dims.push_back(x == y ? x : kDyn);
  return RankedTensorType::get(dims, a.getElementType());
}

/// A scalar (or one-element) constant position, normalized against `size`
/// when it is known; nullopt when unknown or out of range.
std::optional<int64_t> getPosition(Value position, int64_t size) {
  std::optional<SmallVector<int64_t>> values = getConstantInts(position);
  if (!values || values->size() != 1)
    return std::nullopt;
  int64_t p = values->front();
  if (p < 0)
    p += size;
  if (p < 0 || p > size)
    return std::nullopt;
  return p;
}

LogicalResult checkElementType(OptLoc loc, StringRef name, Type sequence,
                               Type tensor) {
  Type expected = cast<SequenceType>(sequence).getTensorType().getElementType();
  if (getElementTypeOrSelf(tensor) != expected)
    return shapeError(loc, name, "tensor of ", getElementTypeOrSelf(tensor),
                      " does not fit a sequence of ", expected);
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Shape functions and verifiers
//===----------------------------------------------------------------------===//

LogicalResult SequenceConstructOp::inferReturnTypes(MLIRContext *ctx,
                                                    OptLoc loc, Adaptor adaptor,
                                                    Types &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return shapeError(loc, getOperationName(), "needs at least one tensor");
  TensorType joined = cast<TensorType>(inputs.front().getType());
  for (Value v : inputs.drop_front()) {
    auto t = cast<TensorType>(v.getType());
    if (t.getElementType() != joined.getElementType())
      return shapeError(loc, getOperationName(), "tensors of ",
                        joined.getElementType(), " and ", t.getElementType());
    joined = joinTensorTypes(joined, t);
  }
  types.push_back(SequenceType::get(ctx, joined));
  return success();
}

LogicalResult SequenceInsertOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                                 Adaptor adaptor,
                                                 Types &types) {
  Type sequence = adaptor.getSequence().getType();
  Type tensor = adaptor.getTensor().getType();
  if (failed(checkElementType(loc, getOperationName(), sequence, tensor)))
    return failure();
  // Elements of an empty sequence constrain nothing.
  TensorType current = cast<SequenceType>(sequence).getTensorType();
  TensorType joined = adaptor.getSequence().getDefiningOp<SequenceEmptyOp>()
                          ? cast<TensorType>(tensor)
                          : joinTensorTypes(current, cast<TensorType>(tensor));
  types.push_back(SequenceType::get(ctx, joined));
  return success();
}

LogicalResult SequenceAtOp::inferReturnTypes(MLIRContext *, OptLoc,
                                             Adaptor adaptor, Types &types) {
  types.push_back(
      cast<SequenceType>(adaptor.getSequence().getType()).getTensorType());
  return success();
}

LogicalResult SequenceEraseOp::inferReturnTypes(MLIRContext *, OptLoc,
                                                Adaptor adaptor, Types &types) {
  types.push_back(adaptor.getSequence().getType());
  return success();
}

LogicalResult SequenceLengthOp::inferReturnTypes(MLIRContext *ctx, OptLoc,
                                                 Adaptor, Types &types) {
  return pushTensor(types, ArrayRef<int64_t>{}, IntegerType::get(ctx, 64));
}

LogicalResult SplitToSequenceOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  auto input = cast<TensorType>(adaptor.getInput().getType());
  TensorType piece = UnrankedTensorType::get(input.getElementType());
  if (auto shape = getTensorShape(adaptor.getInput())) {
    auto axis = normalizeAxis(adaptor.getAxis(), shape->size());
    if (!axis)
      return shapeError(loc, getOperationName(), axis.takeError());
    SmallVector<int64_t> dims(*shape);
    if (adaptor.getSplit())
      dims[*axis] = kDyn;
    else if (adaptor.getKeepdims())
      dims[*axis] = 1;
    else
      dims.erase(dims.begin() + *axis);
    piece = RankedTensorType::get(dims, input.getElementType());
  }
  types.push_back(SequenceType::get(ctx, piece));
  return success();
}

LogicalResult ConcatFromSequenceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                     Adaptor adaptor,
                                                     Types &types) {
  TensorType element =
      cast<SequenceType>(adaptor.getSequence().getType()).getTensorType();
  auto ranked = dyn_cast<RankedTensorType>(element);
  if (!ranked)
    return pushTensor(types, std::nullopt, element.getElementType());
  bool newAxis = adaptor.getNewAxis();
  int64_t rank = ranked.getRank() + (newAxis ? 1 : 0);
  auto axis = normalizeAxis(adaptor.getAxis(), rank);
  if (!axis)
    return shapeError(loc, getOperationName(), axis.takeError());
  SmallVector<int64_t> dims(ranked.getShape());
  if (newAxis)
    dims.insert(dims.begin() + *axis, kDyn);
  else
    dims[*axis] = kDyn;
  return pushTensor(types, ArrayRef<int64_t>(dims), element.getElementType());
}

LogicalResult OptionalOp::verify() {
  Type value = getOutput().getType().getValueType();
  if (!isa<TensorType, SequenceType>(value))
    return emitOpError("holds a tensor or a sequence, not ") << value;
  if (getInput() && !areCompatibleValueTypes(getInput().getType(), value))
    return emitOpError("input ")
           << getInput().getType() << " does not fit " << getOutput().getType();
  return success();
}

LogicalResult OptionalGetElementOp::verify() {
  if (!areCompatibleValueTypes(getInput().getType().getValueType(),
                               getOutput().getType()))
    return emitOpError("result ")
           << getOutput().getType() << " does not fit " << getInput().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult SequenceLengthOp::fold(FoldAdaptor) {
  int64_t length;
  if (auto construct = getSequence().getDefiningOp<SequenceConstructOp>())
    length = construct.getInputs().size();
  else if (getSequence().getDefiningOp<SequenceEmptyOp>())
    length = 0;
  else
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                APInt(64, length, /*isSigned=*/true));
}

OpFoldResult OptionalHasElementOp::fold(FoldAdaptor) {
  auto optional = getInput().getDefiningOp<OptionalOp>();
  if (!optional)
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                static_cast<bool>(optional.getInput()));
}

OpFoldResult OptionalGetElementOp::fold(FoldAdaptor) {
  auto optional = getInput().getDefiningOp<OptionalOp>();
  if (!optional || !optional.getInput() ||
      optional.getInput().getType() != getType())
    return {};
  return optional.getInput();
}

//===----------------------------------------------------------------------===//
// Canonicalizations
//===----------------------------------------------------------------------===//

namespace {
/// The elements of a sequence known at compile time: a SequenceConstruct's
/// inputs or none for a SequenceEmpty.
std::optional<SmallVector<Value>> getKnownElements(Value sequence) {
  if (auto construct = sequence.getDefiningOp<SequenceConstructOp>())
    return llvm::to_vector(construct.getInputs());
  if (sequence.getDefiningOp<SequenceEmptyOp>())
    return SmallVector<Value>();
  return std::nullopt;
}

/// A sequence of `type` holding `elements`: a SequenceConstruct, or a
/// SequenceEmpty when there are none.
Value createSequence(OpBuilder &b, Location loc, Type type,
                     ArrayRef<Value> elements) {
  if (elements.empty())
    return SequenceEmptyOp::create(b, loc, type);
  return SequenceConstructOp::create(b, loc, type, elements);
}

/// Replaces `op`'s sequence result by a SequenceConstruct of `elements` (or
/// a SequenceEmpty) of the same type.
void replaceBySequence(PatternRewriter &rewriter, Operation *op,
                       ArrayRef<Value> elements) {
  rewriter.replaceOp(op, createSequence(rewriter, op->getLoc(),
                                        op->getResult(0).getType(), elements));
}

/// The elements of a sequence known at compile time and a position among
/// them: `position`'s constant value, or `fallback` (from the size) when it
/// is absent; the end (one past the last) only when `allowEnd`.
std::optional<std::pair<SmallVector<Value>, int64_t>>
getKnownPosition(Value sequence, Value position,
                 function_ref<int64_t(int64_t)> fallback, bool allowEnd) {
  std::optional<SmallVector<Value>> elements = getKnownElements(sequence);
  if (!elements)
    return std::nullopt;
  int64_t size = elements->size();
  std::optional<int64_t> at =
      position ? getPosition(position, size) : fallback(size);
  if (!at || *at < 0 || (*at == size && !allowEnd))
    return std::nullopt;
  return std::make_pair(std::move(*elements), *at);
}

struct InsertIntoKnown : OpRewritePattern<SequenceInsertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SequenceInsertOp op,
                                PatternRewriter &rewriter) const override {
    auto known = getKnownPosition(
        op.getSequence(), op.getPosition(), [](int64_t size) { return size; },
        /*allowEnd=*/true);
    if (!known)
      return rewriter.notifyMatchFailure(op, "sequence or position unknown");
    auto &[elements, at] = *known;
    elements.insert(elements.begin() + at, op.getTensor());
    replaceBySequence(rewriter, op, elements);
    return success();
  }
};

struct EraseFromKnown : OpRewritePattern<SequenceEraseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SequenceEraseOp op,
                                PatternRewriter &rewriter) const override {
    auto known = getKnownPosition(
        op.getSequence(), op.getPosition(),
        [](int64_t size) { return size - 1; }, /*allowEnd=*/false);
    if (!known)
      return rewriter.notifyMatchFailure(op, "sequence or position unknown");
    auto &[elements, at] = *known;
    elements.erase(elements.begin() + at);
    replaceBySequence(rewriter, op, elements);
    return success();
  }
};

/// SequenceAt of a known element; the element may be more static than the
/// result, which graph ops accept, so only other users need the same type.
struct AtOfKnown : OpRewritePattern<SequenceAtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SequenceAtOp op,
                                PatternRewriter &rewriter) const override {
    auto known = getKnownPosition(
        op.getSequence(), op.getPosition(), [](int64_t) { return -1; },
        /*allowEnd=*/false);
    if (!known)
      return rewriter.notifyMatchFailure(op, "sequence or position unknown");
    Value element = known->first[known->second];
    if (element.getType() != op.getType() &&
        !llvm::all_of(op->getUsers(), [](Operation *user) {
          return isa<GraphDialect>(user->getDialect());
        }))
      return rewriter.notifyMatchFailure(op, "a user needs the exact type");
    rewriter.replaceOp(op, element);
    return success();
  }
};

/// ConcatFromSequence of known elements: a Concat, of Unsqueezes for
/// `new_axis`.
struct ConcatOfKnown : OpRewritePattern<ConcatFromSequenceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatFromSequenceOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<Value>> elements =
        getKnownElements(op.getSequence());
    if (!elements || elements->empty())
      return rewriter.notifyMatchFailure(op, "sequence not known or empty");
    int64_t axis = op.getAxis();
    if (op.getNewAxis()) {
      auto ranked = dyn_cast<RankedTensorType>(
          cast<SequenceType>(op.getSequence().getType()).getTensorType());
      if (!ranked)
        return rewriter.notifyMatchFailure(op, "elements of unknown rank");
      if (axis < 0)
        axis += ranked.getRank() + 1;
      for (Value &e : *elements)
        e = UnsqueezeOp::create(rewriter, op.getLoc(), e,
                                rewriter.getDenseI64ArrayAttr({axis}));
    }
    rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), *elements,
                                          rewriter.getI64IntegerAttr(axis));
    return success();
  }
};

/// SplitToSequence of a dim known at compile time, with known sizes: a
/// SequenceConstruct of Slices (Squeezed without `keepdims` and `split`).
struct SplitStatic : OpRewritePattern<SplitToSequenceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitToSequenceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "input of unknown rank");
    int64_t axis =
        op.getAxis() < 0 ? op.getAxis() + type.getRank() : op.getAxis();
    int64_t dim = type.getDimSize(axis);
    if (ShapedType::isDynamic(dim))
      return rewriter.notifyMatchFailure(op, "dynamic split dim");
    SmallVector<int64_t> sizes;
    bool squeeze = !op.getSplit() && !op.getKeepdims();
    if (!op.getSplit()) {
      sizes.assign(dim, 1);
    } else {
      std::optional<SmallVector<int64_t>> split =
          getConstantInts(op.getSplit());
      auto splitType = cast<ShapedType>(op.getSplit().getType());
      if (!split)
        return rewriter.notifyMatchFailure(op, "split not known");
      if (splitType.getRank() == 0) {
        int64_t chunk = split->front();
        if (chunk <= 0)
          return rewriter.notifyMatchFailure(op, "non-positive split");
        for (int64_t start = 0; start < dim; start += chunk)
          sizes.push_back(std::min(chunk, dim - start));
      } else {
        sizes = *split;
        int64_t total = 0;
        for (int64_t s : sizes)
          total += s;
        if (total != dim ||
            llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
          return rewriter.notifyMatchFailure(op, "sizes do not cover the dim");
      }
    }
    if (sizes.empty())
      return rewriter.notifyMatchFailure(op, "nothing to split");
    Location loc = op.getLoc();
    auto i64Vector = [&](int64_t v) -> Value {
      auto t = RankedTensorType::get({1}, rewriter.getI64Type());
      return ConstantOp::create(
          rewriter, loc, t, DenseElementsAttr::get(t, ArrayRef<int64_t>{v}));
    };
    Value axes = i64Vector(axis);
    SmallVector<Value> pieces;
    int64_t start = 0;
    for (int64_t size : sizes) {
      Value piece =
          SliceOp::create(rewriter, loc, op.getInput(), i64Vector(start),
                          i64Vector(start + size), axes, Value());
      if (squeeze)
        piece = SqueezeOp::create(rewriter, loc, piece,
                                  rewriter.getDenseI64ArrayAttr({axis}));
      pieces.push_back(piece);
      start += size;
    }
    replaceBySequence(rewriter, op, pieces);
    return success();
  }
};

/// SequenceMap over sequences known at compile time: the body once per
/// element, its yields gathered into SequenceConstructs.
struct UnrollMapOfKnown : OpRewritePattern<SequenceMapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SequenceMapOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<std::optional<SmallVector<Value>>> known;
    std::optional<size_t> length;
    for (Value input : op->getOperands()) {
      if (!isa<SequenceType>(input.getType())) {
        known.push_back(std::nullopt);
        continue;
      }
      known.push_back(getKnownElements(input));
      if (!known.back())
        return rewriter.notifyMatchFailure(op, "a sequence is not known");
      if (length && *length != known.back()->size())
        return rewriter.notifyMatchFailure(op, "sequences differ in length");
      length = known.back()->size();
    }
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (size_t k = 0; k < *length; ++k) {
      IRMapping mapping;
      for (auto [i, arg] : llvm::enumerate(body.getArguments()))
        mapping.map(arg, known[i] ? (*known[i])[k] : op->getOperand(i));
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, mapping);
      for (auto [r, value] : llvm::enumerate(yield.getValues()))
        results[r].push_back(mapping.lookupOrDefault(value));
    }
    SmallVector<Value> replacements;
    for (auto [result, elements] : llvm::zip(op.getResults(), results))
      replacements.push_back(
          createSequence(rewriter, op.getLoc(), result.getType(), elements));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};
} // namespace

void SequenceMapOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<UnrollMapOfKnown>(context);
}

void SequenceInsertOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<InsertIntoKnown>(context);
}

void SequenceEraseOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<EraseFromKnown>(context);
}

void SequenceAtOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<AtOfKnown>(context);
}

void ConcatFromSequenceOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<ConcatOfKnown>(context);
}

void SplitToSequenceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                    MLIRContext *context) {
  results.add<SplitStatic>(context);
}
