//===- PlanArena.cpp - Static memory plan over one arena ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/BufferCache.h"
#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

#include "mlc/Target/Host/LoopScratch.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTPLANARENA
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// One buffer to place: its allocation, byte size and live range in
/// top-level operation indices (inclusive).
struct Buffer {
  memref::AllocOp alloc;
  int64_t size = 0;
  unsigned start = 0;
  unsigned end = 0;
  int64_t offset = 0;
};

/// The last top-level operation that uses `alloc`'s memory: any user of the
/// buffer or of a value derived from it. Every memref a user produces is
/// treated as a possible alias (conservative: it can only lengthen the
/// range). Fails if the memory escapes through the function's return.
FailureOr<unsigned> getLastUse(memref::AllocOp alloc, Block &body,
                               const DenseMap<Operation *, unsigned> &index) {
  unsigned last = index.lookup(alloc);
  SmallVector<Value> worklist{alloc.getResult()};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      // Returned, or yielded out of the region that holds `body`.
      if (isa<func::ReturnOp>(user) ||
          (user->getBlock() == &body && user->hasTrait<OpTrait::IsTerminator>()))
        return failure();
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        return failure();
      last = std::max(last, index.lookup(top));
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
      // A memref yielded out of a region aliases the parent's results.
      if (user->hasTrait<OpTrait::IsTerminator>() && user != top)
        for (Value result : top->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
    }
  }
  return last;
}

/// Greedy placement: largest buffers first, each at the lowest aligned
/// offset that overlaps no already placed buffer live at the same time.
int64_t place(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::sort(order, [](const Buffer *a, const Buffer *b) {
    return std::make_pair(-a->size, a->start) <
           std::make_pair(-b->size, b->start);
  });
  SmallVector<Buffer *> placed;
  int64_t arenaSize = 0;
  for (Buffer *b : order) {
    SmallVector<Buffer *> live;
    for (Buffer *p : placed)
      if (p->start <= b->end && b->start <= p->end)
        live.push_back(p);
    llvm::sort(live, [](const Buffer *x, const Buffer *y) {
      return x->offset < y->offset;
    });
    int64_t offset = 0;
    for (Buffer *p : live) {
      if (offset + b->size <= p->offset)
        break;
      offset = std::max<int64_t>(
          offset, llvm::alignTo(p->offset + p->size, mlc::abi::kArenaAlignment));
    }
    b->offset = offset;
    arenaSize = std::max(arenaSize, offset + b->size);
    placed.push_back(b);
  }
  return static_cast<int64_t>(
      llvm::alignTo(arenaSize, mlc::abi::kArenaAlignment));
}

/// Buffers allocated inside the branches of `scf.if`s (an ONNX If decided
/// at run time) move before the outermost of those `if`s: the plan gives
/// them their place for the whole `if`, whichever branch runs.
void hoistBranchBuffers(func::FuncOp f, int64_t loopScratchBytes) {
  Block &body = f.front();
  SmallVector<std::pair<memref::AllocOp, Operation *>> moves;
  f.walk([&](memref::AllocOp alloc) {
    if (alloc->getBlock() == &body || alloc->getNumOperands() != 0 ||
        mlc::host::isLoopScratch(alloc, loopScratchBytes))
      return;
    Operation *top = nullptr;
    for (Operation *parent = alloc->getParentOp(); parent != f;
         parent = parent->getParentOp()) {
      if (!isa<scf::IfOp>(parent))
        return;
      top = parent;
    }
    if (top)
      moves.emplace_back(alloc, top);
  });
  for (auto [alloc, top] : moves)
    alloc->moveBefore(top);
}

/// `memref.dim` of a view or cast made with explicit sizes
/// (`memref.reinterpret_cast`, `memref.view`, a subview that keeps the
/// rank): the size it was made with.
struct DimOfSizedView : OpRewritePattern<memref::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::DimOp dim,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> index = dim.getConstantIndex();
    Operation *source = dim.getSource().getDefiningOp();
    if (!index || !source)
      return failure();
    SmallVector<OpFoldResult> sizes;
    if (auto view = dyn_cast<memref::ViewOp>(source)) {
      unsigned next = 0;
      for (int64_t size : view.getType().getShape())
        sizes.push_back(ShapedType::isDynamic(size)
                            ? OpFoldResult(view.getSizes()[next++])
                            : OpFoldResult(rewriter.getIndexAttr(size)));
    }
    else if (auto sized = dyn_cast<OffsetSizeAndStrideOpInterface>(source);
             sized && isa<memref::ReinterpretCastOp, memref::SubViewOp>(source) &&
             sized.getMixedSizes().size() ==
                 size_t(cast<MemRefType>(dim.getSource().getType()).getRank()))
      sizes = sized.getMixedSizes();
    if (*index < 0 || size_t(*index) >= sizes.size())
      return failure();
    rewriter.replaceOp(dim, getValueOrCreateConstantIndexOp(
                                rewriter, dim.getLoc(), sizes[*index]));
    return success();
  }
};

/// The most bytes each buffer of `f`'s body whose sizes are known at run
/// time takes, where they are bounded (symbols bounded by `--dim-max`,
/// clamped by mlc-host-symbolic-inputs, and sizes computed from them).
/// Upstream's integer range analysis bounds the sizes, on a copy of `f` in
/// which each `memref.dim` of a view, reshape, buffer or loop-carried
/// buffer is the size it was made with and affine maps are arithmetic
/// (what the analysis reads).
DenseMap<Operation *, int64_t> boundRunTimeBuffers(func::FuncOp f) {
  DenseMap<Operation *, int64_t> bytes;
  Block &body = f.front();
  SmallVector<memref::AllocOp> allocs;
  for (auto alloc : body.getOps<memref::AllocOp>())
    if (!alloc.getType().hasStaticShape() &&
        alloc.getType().getLayout().isIdentity() &&
        !alloc->hasAttr("mlc_loop.caller_owned"))
      allocs.push_back(alloc);
  if (allocs.empty())
    return bytes;
  MLIRContext *context = f.getContext();
  constexpr StringLiteral kTag = "mlc_loop.bounded_buffer";
  for (auto [i, alloc] : llvm::enumerate(allocs))
    alloc->setAttr(kTag, IntegerAttr::get(IntegerType::get(context, 64), i));
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(f->clone());
  for (memref::AllocOp alloc : allocs)
    alloc->removeAttr(kTag);

  RewritePatternSet patterns(context);
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  memref::populateResolveShapedTypeResultDimsPatterns(patterns);
  memref::DimOp::getCanonicalizationPatterns(patterns, context);
  patterns.add<DimOfSizedView>(context);
  scf::populateSCFForLoopCanonicalizationPatterns(patterns);
  populateAffineToStdConversionPatterns(patterns);
  if (failed(applyPatternsGreedily(copy->getOperation(), std::move(patterns))))
    return bytes;
  DataFlowSolver solver;
  dataflow::loadBaselineAnalyses(solver);
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(copy->getOperation())))
    return bytes;
  copy->walk([&](memref::AllocOp alloc) {
    auto tag = alloc->getAttrOfType<IntegerAttr>(kTag);
    if (!tag)
      return;
    MemRefType type = alloc.getType();
    int64_t elements = 1;
    unsigned next = 0;
    for (int64_t size : type.getShape()) {
      if (ShapedType::isDynamic(size)) {
        auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(
            alloc.getDynamicSizes()[next++]);
        if (!lattice || lattice->getValue().isUninitialized())
          return;
        const ConstantIntRanges &range = lattice->getValue().getValue();
        if (range.smin().isNegative() || range.smax().getActiveBits() > 40)
          return;
        size = range.smax().getSExtValue();
      }
      if (size != 0 && elements > (int64_t(1) << 48) / size)
        return;
      elements *= size;
    }
    bytes[allocs[tag.getInt()]] =
        elements * mlc::host::getElementBytes(type.getElementType());
  });
  return bytes;
}

LogicalResult planFunction(func::FuncOp f, int64_t loopScratchBytes,
                           bool cacheHeapBuffers) {
  hoistBranchBuffers(f, loopScratchBytes);
  DenseMap<Operation *, int64_t> bounded = boundRunTimeBuffers(f);
  Block &body = f.front();
  DenseMap<Operation *, unsigned> index;
  for (auto [i, op] : llvm::enumerate(body))
    index[&op] = i;

  SmallVector<Buffer> buffers;
  SmallVector<std::pair<memref::AllocOp, Operation *>> heap;
  // Operation indices of the blocks nested buffers of run-time sizes are in.
  DenseMap<Block *, DenseMap<Operation *, unsigned>> nestedIndex;
  WalkResult walk = f.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    // Scratch the backend places, and outputs the caller will own.
    if (mlc::host::isLoopScratch(alloc, loopScratchBytes) ||
        alloc->hasAttr("mlc_loop.caller_owned"))
      return WalkResult::advance();
    // A buffer whose size is known only at run time (a NonZero's count, a
    // slice inside a Loop's body) stays on the heap, freed after its last
    // use in the block it is allocated in.
    auto bound = bounded.find(alloc);
    if (!type.hasStaticShape() && type.getLayout().isIdentity() &&
        bound == bounded.end()) {
      Block *block = alloc->getBlock();
      DenseMap<Operation *, unsigned> &blockIndex =
          block == &body ? index : nestedIndex[block];
      if (blockIndex.empty())
        for (auto [i, op] : llvm::enumerate(*block))
          blockIndex[&op] = i;
      FailureOr<unsigned> last = getLastUse(alloc, *block, blockIndex);
      if (failed(last))
        return alloc.emitError("buffer ")
                   << type
                   << (block == &body
                           ? " escapes the function; it cannot be freed"
                           : " escapes the loop or branch it is allocated "
                             "in; it cannot be freed"),
               WalkResult::interrupt();
      heap.push_back({alloc, &*std::next(block->begin(), *last)});
      return WalkResult::advance();
    }
    if (alloc->getBlock() != &body)
      return alloc.emitError("buffer ")
                 << type
                 << " is allocated inside a loop or branch; the static "
                    "memory plan cannot place it",
             WalkResult::interrupt();
    if ((!type.hasStaticShape() && bound == bounded.end()) ||
        !type.getLayout().isIdentity())
      return alloc.emitError("buffer ")
                 << type
                 << " has a dynamic size or a strided layout; the static "
                    "memory plan cannot place it",
             WalkResult::interrupt();
    FailureOr<unsigned> last = getLastUse(alloc, body, index);
    if (failed(last))
      return alloc.emitError("buffer ")
                 << type << " escapes the function; it cannot live in the arena",
             WalkResult::interrupt();
    Buffer b;
    b.alloc = alloc;
    // A buffer of run-time size takes its place at its bound.
    b.size = std::max<int64_t>(
        bound != bounded.end()
            ? bound->second
            : type.getNumElements() * mlc::host::getElementBytes(type.getElementType()),
        1);
    b.start = index.lookup(alloc);
    // The status word of run-time checks is read after the run.
    b.end = alloc->hasAttr("mlc_loop.status") ? body.getOperations().size()
                                              : *last;
    buffers.push_back(b);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // The cache of run-time-sized buffers (BufferCache.h) lives in the arena
  // from the start to the end of the function.
  memref::AllocOp cache;
  if (cacheHeapBuffers && !heap.empty()) {
    OpBuilder b(&body, body.begin());
    cache = memref::AllocOp::create(b, f.getLoc(),
                                    mlc::host::getBufferCacheType(f.getContext()));
    buffers.push_back(Buffer{cache, mlc::abi::kBufferCacheBytes, 0,
                             unsigned(body.getOperations().size())});
  } else {
    for (auto [alloc, last] : heap) {
      OpBuilder after(last->getBlock(), std::next(last->getIterator()));
      memref::DeallocOp::create(after, alloc.getLoc(), alloc);
    }
  }
  int64_t arenaSize = place(buffers);
  MLIRContext *context = f.getContext();
  auto arenaType = MemRefType::get({arenaSize}, IntegerType::get(context, 8));
  if (failed(f.insertArgument(0, arenaType,
                              DictionaryAttr::get(
                                  context, {NamedAttribute(
                                               StringAttr::get(context,
                                                               "mlc_graph.name"),
                                               StringAttr::get(context,
                                                               "arena"))}),
                              f.getLoc())))
    return f.emitError("cannot add the arena argument");
  Value arena = f.getArgument(0);
  Value cacheRows;
  for (Buffer &b : buffers) {
    if (b.alloc->hasAttr("mlc_loop.status"))
      f->setAttr("mlc_loop.status_offset",
                 IntegerAttr::get(IntegerType::get(context, 64), b.offset));
    if (b.alloc == cache)
      f->setAttr("mlc_loop.buffer_cache_offset",
                 IntegerAttr::get(IntegerType::get(context, 64), b.offset));
    OpBuilder builder(b.alloc);
    Location loc = b.alloc.getLoc();
    Value offset = arith::ConstantIndexOp::create(builder, loc, b.offset);
    Value view = memref::ViewOp::create(builder, loc, b.alloc.getType(), arena,
                                        offset, b.alloc.getDynamicSizes());
    for (Operation *user : llvm::make_early_inc_range(b.alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    if (b.alloc == cache)
      cacheRows = view;
    b.alloc.replaceAllUsesWith(view);
    b.alloc.erase();
  }
  if (cacheRows)
    for (auto [alloc, last] : heap)
      mlc::host::takeFromBufferCache(alloc, cacheRows, last);
  f->setAttr("mlc_loop.arena_size",
             IntegerAttr::get(IntegerType::get(context, 64), arenaSize));
  return success();
}

struct HostPlanArenaPass
    : mlc::host::impl::HostPlanArenaBase<HostPlanArenaPass> {
  using Base::Base;
  void runOnOperation() override {
    bool cached = false;
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>()) {
      if (f.isExternal() || !f.isPublic())
        continue;
      if (failed(planFunction(f, loopScratchBytes, cacheHeapBuffers)))
        return signalPassFailure();
      cached |= f->hasAttr("mlc_loop.buffer_cache_offset");
    }
    if (cached && failed(mlc::host::addBufferCacheFunctions(getOperation())))
      return signalPassFailure();
  }
};
} // namespace
