//===- LoopsToSCF.cpp - Scan and Loop with static trip counts as scf.for --===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A Scan, and a Loop whose trip count is a constant and whose condition
// stays true, become an scf.for over tensors (any other Loop without scan
// outputs an scf.while that checks its count and condition): the carried values
// (Scan states, Loop-carried values) are iteration arguments, each scan input
// is read with tensor.extract_slice and each scan output written into an
// iteration argument with tensor.insert_slice. The body's ops are moved
// into the loop and lowered like any other. A carried value is copied into
// its iteration argument at the end of the body so that one-shot
// bufferization can keep it in one buffer.
//
//===----------------------------------------------------------------------===//

#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::extractScalar;
using mlc::detail::getStaticType;

namespace {
/// The slice of `type` at one position of `axis`: offsets 0 but `index` on
/// the axis, size 1 there and the full dims elsewhere.
void getSlice(OpBuilder &b, RankedTensorType type, int64_t axis, Value index,
              SmallVectorImpl<OpFoldResult> &offsets,
              SmallVectorImpl<OpFoldResult> &sizes,
              SmallVectorImpl<OpFoldResult> &strides) {
  for (int64_t d = 0; d < type.getRank(); ++d) {
    offsets.push_back(d == axis ? OpFoldResult(index) : b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(d == axis ? 1 : type.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
  }
}

/// `type` without dim `axis`.
RankedTensorType dropDim(RankedTensorType type, int64_t axis) {
  SmallVector<int64_t> dims(type.getShape());
  dims.erase(dims.begin() + axis);
  return RankedTensorType::get(dims, type.getElementType());
}

/// The entry of a per-input attribute (axes, directions), 0 when absent,
/// normalized against `rank` when `isAxis`.
int64_t getEntry(std::optional<ArrayRef<int64_t>> values, size_t i,
                 int64_t rank, bool isAxis) {
  int64_t v = values && i < values->size() ? (*values)[i] : 0;
  return isAxis && v < 0 ? v + rank : v;
}

/// Ends `forBody` (holding the moved graph body, whose yield is `yield`):
/// carried values copied into their iteration arguments, each scan output
/// inserted into its iteration argument at `outIndex(k)` along `outAxis(k)`.
void finishBody(ConversionPatternRewriter &rewriter, Location loc,
                Block *forBody, ValueRange carriedArgs, ValueRange outArgs,
                ValueRange carried, ValueRange scanned,
                function_ref<Value(size_t)> outIndex,
                function_ref<int64_t(size_t)> outAxis) {
  rewriter.setInsertionPointToEnd(forBody);
  SmallVector<Value> next;
  for (auto [value, arg] : llvm::zip(carried, carriedArgs))
    next.push_back(
        linalg::CopyOp::create(rewriter, loc, value, arg).getResult(0));
  for (auto [k, pair] : llvm::enumerate(llvm::zip(scanned, outArgs))) {
    auto [value, arg] = pair;
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    getSlice(rewriter, type, outAxis(k), outIndex(k), offsets, sizes, strides);
    next.push_back(tensor::InsertSliceOp::create(rewriter, loc, value, arg,
                                                 offsets, sizes, strides));
  }
  scf::YieldOp::create(rewriter, loc, next);
}

/// `scf.for` from 0 to `count` whose iteration arguments are `carried`,
/// then one empty tensor per scan output (`scanResults`' types).
scf::ForOp createLoop(ConversionPatternRewriter &rewriter, Location loc,
                      int64_t count, ValueRange carried,
                      ValueRange scanResults) {
  SmallVector<Value> init(carried);
  for (Value r : scanResults) {
    auto type = getStaticType(r);
    init.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType()));
  }
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value end = arith::ConstantIndexOp::create(rewriter, loc, count);
  return scf::ForOp::create(rewriter, loc, zero, end, one, init);
}

struct ScanToSCF : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value v : llvm::concat<Value>(op.getInputs(), op.getResults()))
      if (!getStaticType(v))
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    int64_t states = op.getNumStates();
    for (int64_t i = 0; i < states; ++i)
      if (body.getArgument(i).getType() != op.getInputs()[i].getType() ||
          yield.getValues()[i].getType() != op.getInputs()[i].getType())
        return rewriter.notifyMatchFailure(op, "a state changes type");
    for (auto [arg, value] : llvm::zip(body.getArguments().drop_front(states),
                                       op.getInputs().drop_front(states)))
      if (!getStaticType(arg))
        return rewriter.notifyMatchFailure(op, "dynamic body argument");
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    // The scan length: every scan input's extent along its axis.
    std::optional<ArrayRef<int64_t>> inAxes = op.getScanInputAxes(),
                                     inDirs = op.getScanInputDirections(),
                                     outAxes = op.getScanOutputAxes(),
                                     outDirs = op.getScanOutputDirections();
    int64_t length = -1, scanInputs = op.getNumScanInputs();
    for (int64_t j = 0; j < scanInputs; ++j) {
      auto type = cast<RankedTensorType>(inputs[states + j].getType());
      int64_t n = type.getDimSize(getEntry(inAxes, j, type.getRank(), true));
      if (length >= 0 && n != length)
        return rewriter.notifyMatchFailure(op, "scan lengths differ");
      length = n;
    }
    ResultRange scanResults = op.getResults().drop_front(states);
    Value last = arith::ConstantIndexOp::create(rewriter, loc, length - 1);
    scf::ForOp loop = createLoop(rewriter, loc, length,
                                 inputs.take_front(states), scanResults);
    Block *forBody = loop.getBody();
    rewriter.setInsertionPointToStart(forBody);
    Value iv = loop.getInductionVar();
    Value reversed = arith::SubIOp::create(rewriter, loc, last, iv);
    SmallVector<Value> args(loop.getRegionIterArgs().take_front(states));
    for (int64_t j = 0; j < scanInputs; ++j) {
      auto type = cast<RankedTensorType>(inputs[states + j].getType());
      int64_t axis = getEntry(inAxes, j, type.getRank(), true);
      Value index = getEntry(inDirs, j, 0, false) ? reversed : iv;
      SmallVector<OpFoldResult> offsets, sizes, strides;
      getSlice(rewriter, type, axis, index, offsets, sizes, strides);
      args.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, dropDim(type, axis), inputs[states + j], offsets,
          sizes, strides));
    }
    SmallVector<Value> carried(yield.getValues().take_front(states));
    SmallVector<Value> scanned(yield.getValues().drop_front(states));
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, forBody, forBody->end(), args);
    finishBody(
        rewriter, loc, forBody, loop.getRegionIterArgs().take_front(states),
        loop.getRegionIterArgs().drop_front(states), carried, scanned,
        [&](size_t k) {
          return getEntry(outDirs, k, 0, false) ? reversed : iv;
        },
        [&](size_t k) {
          return getEntry(outAxes, k, getStaticType(scanResults[k]).getRank(),
                          true);
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

/// True when `v` is a constant whose every element is true.
bool isConstantTrue(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) ||
      !attr.getElementType().isInteger(1))
    return false;
  return llvm::all_of(attr.getValues<bool>(), [](bool b) { return b; });
}

/// True when every Loop-carried value is static and keeps its type as the
/// body's argument and yield.
bool hasStaticCarriedValues(LoopOp op) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [i, initial] : llvm::enumerate(op.getInitial())) {
    Type type = initial.getType();
    if (!getStaticType(initial) || body.getArgument(i + 2).getType() != type ||
        yield.getValues()[i + 1].getType() != type)
      return false;
  }
  return true;
}

/// True when every Loop-carried value starts static and its body argument
/// and yield have types it can be cast to: the shape is then checked at run
/// time to stay the same in each iteration.
bool hasCastableCarriedValues(LoopOp op) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [i, initial] : llvm::enumerate(op.getInitial())) {
    Type type = initial.getType();
    if (!getStaticType(initial) ||
        !tensor::CastOp::areCastCompatible(type,
                                           body.getArgument(i + 2).getType()) ||
        !tensor::CastOp::areCastCompatible(type,
                                           yield.getValues()[i + 1].getType()))
      return false;
  }
  return true;
}

/// `value` as the static `type`, with a run-time check that its dynamic
/// dims have `type`'s sizes (`message` when they do not, and then
/// `fallback`, of `type`, instead).
Value castChecked(OpBuilder &b, Location loc, Value value,
                  RankedTensorType type, Value fallback,
                  const std::string &message) {
  if (value.getType() == type)
    return value;
  auto from = cast<RankedTensorType>(value.getType());
  mlc::detail::DimBuilder c(b, loc);
  for (int64_t d = 0; d < from.getRank(); ++d)
    if (from.isDynamicDim(d))
      c.require(c.eq(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)),
                     tensor::DimOp::create(b, loc, value, d)));
  cf::AssertOp::create(b, loc, c.ok, message);
  auto choice = scf::IfOp::create(b, loc, TypeRange{type}, c.ok,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  // A slice of static sizes rather than a tensor.cast: canonicalization
  // takes a cast to static sizes as a fact about the value everywhere (and
  // would fold the check away), a slice only where it runs.
  b.setInsertionPointToStart(choice.thenBlock());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1)), sizes;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  scf::YieldOp::create(b, loc,
                       ValueRange{tensor::ExtractSliceOp::create(
                           b, loc, type, value, offsets, sizes, strides)});
  b.setInsertionPointToStart(choice.elseBlock());
  scf::YieldOp::create(b, loc, fallback);
  return choice.getResult(0);
}

struct LoopToSCF : OpConversionPattern<LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    DenseElementsAttr trips;
    if (!op.getMaxTripCount() ||
        !matchPattern(op.getMaxTripCount(), m_Constant(&trips)) ||
        trips.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "trip count is not a constant");
    int64_t count = (*trips.getValues<APInt>().begin()).getSExtValue();
    if (count < 0)
      count = 0;
    if (op.getCondition() && !isConstantTrue(op.getCondition()))
      return rewriter.notifyMatchFailure(op, "condition is not constant true");
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    Value nextCondition = yield.getValues().front();
    if (nextCondition != body.getArgument(1) && !isConstantTrue(nextCondition))
      return rewriter.notifyMatchFailure(op, "the body may stop early");
    size_t carried = op.getInitial().size();
    if (!hasStaticCarriedValues(op))
      return rewriter.notifyMatchFailure(op, "a carried value changes type");
    for (Value r : op.getResults())
      if (!getStaticType(r))
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    scf::ForOp loop = createLoop(rewriter, loc, count, adaptor.getInitial(),
                                 op.getResults().drop_front(carried));
    Block *forBody = loop.getBody();
    rewriter.setInsertionPointToStart(forBody);
    Value iv = loop.getInductionVar();
    Value iteration = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, rewriter.getI64Type()),
        ValueRange{arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getI64Type(), iv)});
    Value alwaysTrue = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, rewriter.getI1Type()),
                               true));
    SmallVector<Value> args = {iteration, alwaysTrue};
    llvm::append_range(args, loop.getRegionIterArgs().take_front(carried));
    SmallVector<Value> next(
        yield.getValues().drop_front(1).take_front(carried));
    SmallVector<Value> scanned(yield.getValues().drop_front(1 + carried));
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, forBody, forBody->end(), args);
    finishBody(
        rewriter, loc, forBody, loop.getRegionIterArgs().take_front(carried),
        loop.getRegionIterArgs().drop_front(carried), next, scanned,
        [&](size_t) { return iv; }, [](size_t) { return int64_t(0); });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};
/// A Loop whose trip count or condition is known at run time only: an
/// scf.while that checks both before each iteration. Scan outputs need a
/// trip count: each is a buffer of that many slices (checked against the
/// run-time tensor limit), and the result is its first slices, as many as
/// iterations ran.
struct LoopToWhile : OpConversionPattern<LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    size_t carried = op.getInitial().size();
    size_t numScans = op.getNumResults() - carried;
    if (numScans && !op.getMaxTripCount())
      return rewriter.notifyMatchFailure(op, "scan outputs of unknown length");
    if (!op.getMaxTripCount() && !op.getCondition())
      return rewriter.notifyMatchFailure(op, "no trip count or condition");
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    if (!hasCastableCarriedValues(op))
      return rewriter.notifyMatchFailure(op, "a carried value changes type");
    for (Value v : {adaptor.getMaxTripCount(), adaptor.getCondition()}) {
      auto type = v ? getStaticType(v) : RankedTensorType();
      if (v && (!type || type.getNumElements() != 1))
        return rewriter.notifyMatchFailure(op, "needs one-element operands");
    }
    // Each scan output stacks slices of one static type: the slice's own,
    // else that of the carried value it is (checked at run time), else the
    // result's.
    SmallVector<RankedTensorType> slices;
    for (auto [k, v] : llvm::enumerate(yield.getValues().drop_front(1 + carried))) {
      auto type = getStaticType(v);
      for (size_t i = 0; !type && i < carried; ++i)
        if (yield.getValues()[i + 1] == v)
          type = getStaticType(op.getInitial()[i]);
      auto result = cast<RankedTensorType>(op.getResult(carried + k).getType());
      if (!type && result.getRank() >= 1) {
        auto slice = dropDim(result, 0);
        if (slice.hasStaticShape() &&
            tensor::CastOp::areCastCompatible(slice, v.getType()))
          type = slice;
      }
      if (!type)
        return rewriter.notifyMatchFailure(op, "a scan slice is not static");
      slices.push_back(type);
    }
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    Value start = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value go = adaptor.getCondition()
                   ? extractScalar(rewriter, loc, adaptor.getCondition())
                   : arith::ConstantIntOp::create(rewriter, loc, i1, 1);
    Value bound = adaptor.getMaxTripCount()
                      ? extractScalar(rewriter, loc, adaptor.getMaxTripCount())
                      : Value();
    if (bound && !bound.getType().isInteger(64))
      bound = mlc::detail::toI64(rewriter, loc, bound,
                                 getElementTypeOrSelf(bound.getType()));
    // Scan buffers of `bound` slices; a bound they cannot hold fails the
    // run and runs no iteration.
    SmallVector<Value> buffers;
    SmallVector<RankedTensorType> stacked;
    if (numScans) {
      mlc::detail::DimBuilder c(rewriter, loc);
      Value zero = c.i64(0);
      Value count = arith::MaxSIOp::create(rewriter, loc, bound, zero);
      for (RankedTensorType slice : slices) {
        SmallVector<Value> dims = {count};
        for (int64_t d : slice.getShape())
          dims.push_back(c.i64(d));
        int64_t maxCount;
        mlc::detail::requireElementsFit(c, dims, slice.getElementType(),
                                        maxCount);
        SmallVector<int64_t> shape = {ShapedType::kDynamic};
        llvm::append_range(shape, slice.getShape());
        stacked.push_back(RankedTensorType::get(shape, slice.getElementType()));
      }
      SmallVector<Value> dims = {count};
      Value safe = mlc::detail::checkedDims(
          c, RankedTensorType::get({ShapedType::kDynamic}, i64), dims,
          mlc::detail::describe(op, "Loop") +
              ": its trip count makes a scan output larger than 4 GiB")[0];
      bound = safe;
      Value size = arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getIndexType(), safe);
      for (RankedTensorType type : stacked)
        buffers.push_back(tensor::EmptyOp::create(
            rewriter, loc, type.getShape(), type.getElementType(),
            ValueRange{size}));
    }
    // The carried tensors come first: one-shot bufferization matches
    // scf.condition's and scf.yield's operands to the block arguments by
    // position, and canonicalization may drop an unused trailing scalar.
    SmallVector<Value> init(adaptor.getInitial());
    llvm::append_range(init, buffers);
    init.append({start, go});
    SmallVector<Type> types(ValueRange(adaptor.getInitial()).getTypes());
    llvm::append_range(types, ValueRange(buffers).getTypes());
    types.append({i64, i1});
    // The iteration number and condition follow the tensors.
    size_t counter = carried + numScans;
    SmallVector<Location> locs(types.size(), loc);
    auto loop = scf::WhileOp::create(rewriter, loc, types, init);
    // Before: continue while the condition holds and the count is below
    // the bound.
    Block *before = rewriter.createBlock(&loop.getBefore(), {}, types, locs);
    Value count = before->getArgument(counter);
    Value keep = before->getArgument(counter + 1);
    if (bound)
      keep = arith::AndIOp::create(
          rewriter, loc, keep,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, count,
                                bound));
    scf::ConditionOp::create(rewriter, loc, keep, before->getArguments());
    // After: the body, on the iteration number as a tensor and the carried
    // values; it yields the next carried values, the scan buffers with this
    // iteration's slices, count and condition.
    Block *after = rewriter.createBlock(&loop.getAfter(), {}, types, locs);
    Value iteration = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, i64),
        ValueRange{after->getArgument(counter)});
    Value condition = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, i1),
        ValueRange{after->getArgument(counter + 1)});
    SmallVector<Value> args = {iteration, condition};
    for (auto [i, arg] :
         llvm::enumerate(after->getArguments().take_front(carried))) {
      Type wanted = body.getArgument(i + 2).getType();
      args.push_back(arg.getType() == wanted
                         ? Value(arg)
                         : tensor::CastOp::create(rewriter, loc, wanted, arg));
    }
    SmallVector<Value> next(yield.getValues().drop_front(1).take_front(carried));
    SmallVector<Value> scanned(yield.getValues().drop_front(1 + carried));
    Value nextCondition = yield.getValues().front();
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, after, after->end(), args);
    rewriter.setInsertionPointToEnd(after);
    // A carried value or scan slice of a size known at run time keeps the
    // shape it started with, or the run fails naming the Loop.
    std::string changed = mlc::detail::describe(op, "Loop") +
                          ": a carried value or scan output changes shape "
                          "between iterations";
    for (auto [i, value] : llvm::enumerate(next))
      value = castChecked(rewriter, loc, value,
                          cast<RankedTensorType>(types[i]),
                          after->getArgument(i), changed);
    for (auto [k, value] : llvm::enumerate(scanned))
      if (value.getType() != slices[k])
        value = castChecked(rewriter, loc, value, slices[k],
                            tensor::EmptyOp::create(rewriter, loc,
                                                    slices[k].getShape(),
                                                    slices[k].getElementType()),
                            changed);
    // The slices first: a scan output may be a carried value before its
    // update (which the copies below write in place).
    Value at = arith::IndexCastOp::create(rewriter, loc,
                                          rewriter.getIndexType(),
                                          after->getArgument(counter));
    SmallVector<Value> inserted;
    for (auto [k, value] : llvm::enumerate(scanned)) {
      Value buffer = after->getArgument(carried + k);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      getSlice(rewriter, stacked[k], 0, at, offsets, sizes, strides);
      inserted.push_back(tensor::InsertSliceOp::create(
          rewriter, loc, value, buffer, offsets, sizes, strides));
    }
    SmallVector<Value> results;
    for (auto [value, arg] :
         llvm::zip(next, after->getArguments().take_front(carried)))
      results.push_back(
          linalg::CopyOp::create(rewriter, loc, value, arg).getResult(0));
    llvm::append_range(results, inserted);
    results.push_back(arith::AddIOp::create(
        rewriter, loc, after->getArgument(counter),
        arith::ConstantIntOp::create(rewriter, loc, i64, 1)));
    results.push_back(extractScalar(rewriter, loc, nextCondition));
    scf::YieldOp::create(rewriter, loc, results);
    rewriter.setInsertionPointAfter(loop);
    // The scan outputs: the slices the iterations that ran wrote.
    SmallVector<Value> replacements;
    for (auto [value, result] : llvm::zip(loop.getResults().take_front(carried),
                                          op.getResults().take_front(carried)))
      replacements.push_back(
          value.getType() == result.getType()
              ? Value(value)
              : tensor::CastOp::create(rewriter, loc, result.getType(), value)
                    .getResult());
    Value ran = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getIndexType(),
                                           loop.getResult(counter));
    for (size_t k = 0; k < numScans; ++k) {
      RankedTensorType type = stacked[k];
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = {ran};
      for (int64_t d : type.getShape().drop_front())
        sizes.push_back(rewriter.getIndexAttr(d));
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      Value result = tensor::ExtractSliceOp::create(
          rewriter, loc, type, loop.getResult(carried + k), offsets, sizes,
          strides);
      Type wanted = op.getResult(carried + k).getType();
      if (result.getType() != wanted)
        result = tensor::CastOp::create(rewriter, loc, wanted, result);
      replacements.push_back(result);
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};
} // namespace

void mlc::populateGraphLoopsToSCFPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanToSCF, LoopToWhile>(patterns.getContext());
  // A constant trip count that runs to the end is an scf.for.
  patterns.add<LoopToSCF>(patterns.getContext(), /*benefit=*/2);
}
