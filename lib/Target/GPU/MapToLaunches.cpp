//===- MapToLaunches.cpp - Loop nests on buffers to GPU launches ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The "do" half of the GPU strategy: every loop nest of a model function
// becomes a launch whose threads compute the chunks its schedule gives
// them. See mlc-gpu-map-to-launches in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Target/GPU/Passes.h"
#include "mlc/Target/Host/ModelFunctions.h"

#include "HostAccess.h"
#include "KernelBodies.h"
#include "LaunchGroups.h"
#include "RegisterAccumulators.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/MathExtras.h"

namespace mlc::target {
#define GEN_PASS_DEF_GPUMAPTOLAUNCHES
#include "mlc/Target/GPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

namespace {
/// How one linalg op is split over threads.
struct Chunking {
  SmallVector<int64_t> ranges;
  SmallVector<bool> parallel;
  /// Per loop: the chunk of a parallel loop one thread computes.
  SmallVector<int64_t> chunks;
  /// Chunks over all parallel loops.
  int64_t total = 1;
};

/// The chunks of `op`'s schedule (level 0, sizes that divide their loops),
/// one element where it has none or the loop's size is known only at run
/// time. Fails with a diagnostic on a count of chunks that does not fit 63
/// bits (`total` counts the loops of known size).
FailureOr<Chunking> getChunking(linalg::LinalgOp op) {
  Chunking c;
  c.ranges = op.getStaticLoopRanges();
  auto schedule = op->getAttrOfType<loop::ScheduleAttr>(
      loop::LoopDialect::getScheduleAttrName());
  ArrayRef<int64_t> given;
  if (schedule && schedule.getNumLevels() > 0 &&
      schedule.getNumLoops() == static_cast<int64_t>(c.ranges.size()))
    given = schedule.getTileLevel(0);
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    int64_t range = c.ranges[d];
    bool parallel = iterator == utils::IteratorType::parallel;
    int64_t chunk = 1;
    if (parallel && !ShapedType::isDynamic(range) && !given.empty() &&
        given[d] > 0 && range % given[d] == 0)
      chunk = given[d];
    c.parallel.push_back(parallel);
    c.chunks.push_back(parallel ? chunk : 0);
    if (parallel && !ShapedType::isDynamic(range) &&
        llvm::MulOverflow(c.total, range / chunk, c.total))
      return op->emitError("more than 2^63 GPU threads");
  }
  return c;
}

/// The most output elements a thread accumulates in registers.
constexpr size_t kMaxRegisterElements = 16;

/// How many loop nests an accumulator init may wait behind for its root.
constexpr size_t kMaxDeferral = 4;

/// Whether `op`'s schedule gives a thread more than one element.
bool hasChunks(linalg::LinalgOp op) {
  auto schedule = op->getAttrOfType<loop::ScheduleAttr>(
      loop::LoopDialect::getScheduleAttrName());
  return schedule && schedule.getNumLevels() > 0 &&
         llvm::any_of(schedule.getTileLevel(0),
                      [](int64_t size) { return size > 1; });
}

/// Whether each thread of `op` accumulates its elements in registers
/// (target::buildRegisterReduction): a reduction with a chunk of at most
/// kMaxRegisterElements elements.
bool usesRegisters(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op.hasDynamicShape() ||
      !target::canBuildRegisterReduction(op))
    return false;
  auto schedule = op->getAttrOfType<loop::ScheduleAttr>(
      loop::LoopDialect::getScheduleAttrName());
  int64_t elements = 1;
  if (schedule && schedule.getNumLevels() > 0)
    for (int64_t size : schedule.getTileLevel(0))
      elements *= std::max<int64_t>(size, 1);
  return elements <= static_cast<int64_t>(kMaxRegisterElements);
}

/// Whether the threads of `op` each own whole elements of its result, so
/// that an accumulator init before it and elementwise epilogues after it
/// can run in its launch: one element each, or a register tile.
bool ownsWholeElements(linalg::LinalgOp op) {
  return !hasChunks(op) || usesRegisters(op);
}

struct GPUMapToLaunchesPass
    : mlc::target::impl::GPUMapToLaunchesBase<GPUMapToLaunchesPass> {
  using Base::Base;

  /// Builds the loops over blocks and threads (`emulate`) or the launch of
  /// `grid` blocks of `block` threads before `op`, and returns the linear
  /// number of the thread, with `b` inside the body.
  Value buildLaunch(OpBuilder &b, Operation *op, Value gridSize, int64_t block,
                    StringRef kernelName) {
    Location loc = op->getLoc();
    Value blockSize = arith::ConstantIndexOp::create(b, loc, block);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value blockId, threadId;
    if (emulate) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      auto blocks = scf::ForOp::create(b, loc, zero, gridSize, one);
      b.setInsertionPointToStart(blocks.getBody());
      auto threads = scf::ForOp::create(b, loc, zero, blockSize, one);
      b.setInsertionPointToStart(threads.getBody());
      blockId = blocks.getInductionVar();
      threadId = threads.getInductionVar();
    } else {
      auto launch = gpu::LaunchOp::create(
          b, loc, gridSize, one, one, blockSize, one, one,
          /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
          /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
          /*privateAttributions=*/{}, nullptr, nullptr, nullptr,
          FlatSymbolRefAttr::get(b.getContext(), moduleName),
          FlatSymbolRefAttr::get(b.getContext(), kernelName));
      launches.push_back(launch);
      Block &body = launch.getBody().front();
      b.setInsertionPointToEnd(&body);
      gpu::TerminatorOp::create(b, loc);
      b.setInsertionPointToStart(&body);
      blockId = launch.getBlockIds().x;
      threadId = launch.getThreadIds().x;
    }
    // The kernel's constants are its own, not arguments.
    Value threads = arith::ConstantIndexOp::create(b, loc, block);
    Value first = arith::MulIOp::create(b, loc, blockId, threads);
    return arith::AddIOp::create(b, loc, first, threadId);
  }

  /// Replaces the linalg ops of `group` on buffers by one launch. A loop
  /// nest with no iterations is erased.
  LogicalResult mapGroup(const target::LaunchGroup &group,
                         StringRef kernelName) {
    linalg::LinalgOp op = group.root;
    SmallVector<linalg::LinalgOp> members{op};
    if (group.init)
      members.push_back(group.init);
    llvm::append_range(members, group.epilogues);
    FailureOr<Chunking> chunking = getChunking(op);
    if (failed(chunking))
      return failure();
    Chunking &c = *chunking;
    if (llvm::is_contained(c.ranges, 0)) {
      for (linalg::LinalgOp member : members)
        member->erase();
      return success();
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    // Loops whose sizes the host knows only when it runs: their sizes are
    // the operands' (memref.dim), the grid covers their product, and a
    // launch of nothing is skipped.
    bool dynamic = llvm::any_of(c.ranges, ShapedType::isDynamic);
    int64_t block = std::min<int64_t>(threadsPerBlock, c.total);
    Value grid;
    SmallVector<Value> hostSizes;
    Value hostTotal;
    if (dynamic) {
      block = threadsPerBlock;
      for (Range range : op.createLoopRanges(b, loc))
        hostSizes.push_back(
            getValueOrCreateConstantIndexOp(b, loc, range.size));
      hostTotal = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d = 0; d < static_cast<int64_t>(c.ranges.size()); ++d)
        if (c.parallel[d])
          hostTotal =
              arith::MulIOp::create(b, loc, hostTotal,
                                    ShapedType::isDynamic(c.ranges[d])
                                        ? hostSizes[d]
                                        : arith::ConstantIndexOp::create(
                                              b, loc, c.ranges[d] / c.chunks[d])
                                              .getResult());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                        hostTotal, zero);
      auto some = scf::IfOp::create(b, loc, any, /*withElse=*/false);
      b.setInsertionPointToStart(&some.getThenRegion().front());
      grid = arith::CeilDivUIOp::create(
          b, loc, hostTotal, arith::ConstantIndexOp::create(b, loc, block));
    } else {
      int64_t blocks = llvm::divideCeil(c.total, block);
      if (blocks > std::numeric_limits<int32_t>::max())
        return op->emitError() << "needs " << blocks
                               << " GPU blocks, more than a launch can have";
      grid = arith::ConstantIndexOp::create(b, loc, blocks);
    }
    Value linear = buildLaunch(b, op, grid, block, kernelName);
    // The views and scalars the op reads, made once per thread.
    IRMapping mapping;
    SetVector<Value> captured;
    for (linalg::LinalgOp member : members)
      collectCaptured(member, captured);
    for (Value value : captured)
      cloneIntoBody(value, mapping, b, readOnly);
    // The loop sizes as the thread sees them.
    SmallVector<Value> sizes;
    for (Value size : hostSizes)
      sizes.push_back(cloneIntoBody(size, mapping, b, readOnly));
    if (dynamic || c.total % block != 0) {
      Value total =
          dynamic ? cloneIntoBody(hostTotal, mapping, b, readOnly)
                  : arith::ConstantIndexOp::create(b, loc, c.total).getResult();
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            linear, total);
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
    }
    // The thread's chunk: row-major over the parallel loops, the innermost
    // fastest, so that neighbouring threads touch neighbouring elements.
    int64_t numLoops = c.ranges.size();
    SmallVector<Value> starts(numLoops);
    Value rest = linear;
    int64_t outermost = llvm::find(c.parallel, true) - c.parallel.begin();
    for (int64_t d = numLoops - 1; d >= 0; --d) {
      if (!c.parallel[d])
        continue;
      bool unknown = ShapedType::isDynamic(c.ranges[d]);
      int64_t count = unknown ? 2 : c.ranges[d] / c.chunks[d];
      Value index = arith::ConstantIndexOp::create(b, loc, 0);
      if (d == outermost && count > 1) {
        // What is left is below `count`: the thread is in range.
        index = rest;
      } else if (count > 1) {
        Value countValue =
            unknown ? sizes[d]
                    : arith::ConstantIndexOp::create(b, loc, count).getResult();
        index = arith::RemUIOp::create(b, loc, rest, countValue);
        rest = arith::DivUIOp::create(b, loc, rest, countValue);
      }
      starts[d] = c.chunks[d] == 1
                      ? index
                      : arith::MulIOp::create(
                            b, loc, index,
                            arith::ConstantIndexOp::create(b, loc, c.chunks[d]))
                            .getResult();
    }
    // The root's result element at the loop values `ivs`: with a group,
    // each thread owns its elements of the root's result, the init writes
    // them first, the epilogues run on them after.
    auto resultElement = [&](ArrayRef<Value> ivs) {
      SmallVector<Value> element;
      for (AffineExpr e :
           op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          element.push_back(ivs[dim.getPosition()]);
      return element;
    };
    auto runElementwise = [&](linalg::LinalgOp member,
                              ArrayRef<Value> element) {
      // A mapping of its own: the clone's region values are erased with it.
      IRMapping local = mapping;
      Operation *clone = b.clone(*member, local);
      LogicalResult done = cast<TilingInterface>(clone)
                               .generateScalarImplementation(b, loc, element);
      clone->erase();
      return done;
    };
    // A reduction: the accumulators of the thread's elements in registers.
    if (usesRegisters(op)) {
      SmallVector<SmallVector<Value>> elements{starts};
      for (int64_t d = 0; d < numLoops; ++d) {
        if (!c.parallel[d] || c.chunks[d] == 1)
          continue;
        SmallVector<SmallVector<Value>> more;
        for (int64_t offset = 0; offset < c.chunks[d]; ++offset)
          for (const SmallVector<Value> &element : elements) {
            more.push_back(element);
            if (offset > 0)
              more.back()[d] = arith::AddIOp::create(
                  b, loc, element[d],
                  arith::ConstantIndexOp::create(b, loc, offset));
          }
        elements = std::move(more);
      }
      if (group.init)
        for (const SmallVector<Value> &ivs : elements)
          if (failed(runElementwise(group.init, resultElement(ivs))))
            return op->emitError("cannot generate the GPU thread's code");
      // A mapping of its own: the clone's region values are erased with it.
      IRMapping attempt = mapping;
      auto clone = cast<linalg::LinalgOp>(b.clone(*op, attempt));
      LogicalResult built =
          target::buildRegisterReduction(b, loc, clone, elements);
      clone->erase();
      if (failed(built))
        return op->emitError("cannot generate the GPU thread's code");
      for (linalg::LinalgOp epilogue : group.epilogues)
        for (const SmallVector<Value> &ivs : elements)
          if (failed(runElementwise(epilogue, resultElement(ivs))))
            return op->emitError("cannot generate the GPU thread's code");
      for (linalg::LinalgOp member : members)
        member->erase();
      return success();
    }
    SmallVector<Value> element = resultElement(starts);
    if (group.init && failed(runElementwise(group.init, element)))
      return op->emitError("cannot generate the GPU thread's code");
    Block *after = b.getInsertionBlock();
    Block::iterator afterPoint = b.getInsertionPoint();
    // Loops over the chunk and the reduction loops, in the op's order.
    SmallVector<Value> ivs;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < numLoops; ++d) {
      int64_t extent = c.parallel[d] ? c.chunks[d] : c.ranges[d];
      if (extent == 1) {
        ivs.push_back(c.parallel[d] ? starts[d] : zero);
        continue;
      }
      Value upper =
          ShapedType::isDynamic(extent)
              ? sizes[d]
              : arith::ConstantIndexOp::create(b, loc, extent).getResult();
      auto loop = scf::ForOp::create(b, loc, zero, upper, one);
      b.setInsertionPointToStart(loop.getBody());
      Value iv = loop.getInductionVar();
      ivs.push_back(c.parallel[d]
                        ? arith::AddIOp::create(b, loc, starts[d], iv)
                              .getResult()
                        : iv);
    }
    Operation *clone = b.clone(*op, mapping);
    if (failed(cast<TilingInterface>(clone).generateScalarImplementation(
            b, loc, ivs)))
      return op->emitError("cannot generate the GPU thread's code");
    clone->erase();
    b.setInsertionPoint(after, afterPoint);
    for (linalg::LinalgOp epilogue : group.epilogues)
      if (failed(runElementwise(epilogue, element)))
        return op->emitError("cannot generate the GPU thread's code");
    for (linalg::LinalgOp member : members)
      member->erase();
    return success();
  }

  /// Whether `yielded`, a buffer a loop's body yields, is its iteration
  /// argument `arg` (directly or through the branches of an `if`).
  static bool isSameBuffer(Value yielded, Value arg) {
    if (yielded == arg)
      return true;
    // A loop that yields the buffer it was given.
    if (auto loop = yielded.getDefiningOp<scf::ForOp>()) {
      unsigned number = cast<OpResult>(yielded).getResultNumber();
      return isSameBuffer(loop.getInitArgs()[number], arg) &&
             isSameBuffer(loop.getYieldedValues()[number],
                          loop.getRegionIterArgs()[number]);
    }
    auto branch = yielded.getDefiningOp<scf::IfOp>();
    if (!branch || branch.getElseRegion().empty())
      return false;
    unsigned number = cast<OpResult>(yielded).getResultNumber();
    return isSameBuffer(branch.thenYield().getOperand(number), arg) &&
           isSameBuffer(branch.elseYield().getOperand(number), arg);
  }

  /// Runs `op`, which touches memory but is no loop nest of its own (a
  /// sequential loop, an `if`), as a launch of one thread.
  LogicalResult mapSingleThread(Operation *op, StringRef kernelName) {
    // On the host, it runs where it is.
    if (emulate)
      return success();
    // A loop on buffers that yields the buffers it was given updated them
    // in place: its results are those buffers.
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (auto [result, init, arg, yielded] :
           llvm::zip(loop.getResults(), loop.getInitArgs(),
                     loop.getRegionIterArgs(), loop.getYieldedValues()))
        if (isa<BaseMemRefType>(result.getType()) && isSameBuffer(yielded, arg))
          result.replaceAllUsesWith(init);
    if (!op->use_empty() && !hostAccess)
      return op->emitError("its results would be needed on the host, which "
                           "does not run on the GPU target's data");
    // Results the host needs (a count that sizes a buffer) go through
    // one-element buffers it reads after the launch.
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<Value> slots;
    for (Value result : op->getResults()) {
      if (result.use_empty()) {
        slots.push_back(nullptr);
        continue;
      }
      if (!MemRefType::isValidElementType(result.getType()) ||
          isa<BaseMemRefType>(result.getType()))
        return op->emitError("its result of type ")
               << result.getType()
               << " would be needed on the host, which the GPU target "
                  "cannot pass back";
      slots.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get({}, result.getType())));
    }
    buildLaunch(b, op, arith::ConstantIndexOp::create(b, loc, 1), 1,
                kernelName);
    IRMapping mapping;
    SetVector<Value> captured;
    collectCaptured(op, captured);
    for (Value value : captured)
      cloneIntoBody(value, mapping, b, readOnly);
    Operation *clone = b.clone(*op, mapping);
    scratchOnStack(clone);
    for (auto [result, slot] : llvm::zip(clone->getResults(), slots))
      if (slot)
        memref::StoreOp::create(b, loc, result, slot);
    b.setInsertionPoint(op);
    for (auto [result, slot] : llvm::zip(op->getResults(), slots)) {
      if (!slot)
        continue;
      result.replaceAllUsesWith(memref::LoadOp::create(b, loc, slot));
      memref::DeallocOp::create(b, loc, slot);
    }
    op->erase();
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Sizes the data decides, run-time checks, outputs the model
    // allocates: the host reads memory the kernels write (which the runtime
    // allocates host-visible) and runs the loads and stores of scalars.
    hostAccess = !emulate && needsHostAccess(func);
    reshapesAsViews(func);
    readOnly = getReadOnlyBuffers(func);
    reads.clear();
    launches.clear();
    kernelIndex = 0;
    if (hostAccess)
      copyHandedOnConstants(func);
    if (failed(mapBlock(func.getBody().front())))
      return signalPassFailure();
    // What the kernels took copies of.
    for (Operation &op : llvm::make_early_inc_range(
             llvm::reverse(func.getBody().front())))
      if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() &&
          isMemoryEffectFree(&op))
        op.erase();
    for (Operation *read : llvm::reverse(reads)) {
      if (!read->use_empty() && hostAccess)
        continue;
      if (!read->use_empty()) {
        read->emitError("its result would be needed on the host, which does "
                        "not run on the GPU target's data");
        return signalPassFailure();
      }
      read->erase();
    }
    for (gpu::LaunchOp launch : launches)
      if (failed(passHostValues(launch)))
        return signalPassFailure();
    if (hostAccess) {
      insertHostWaits(func);
      func->setAttr("mlc_loop.gpu_host_access", UnitAttr::get(&getContext()));
    }
  }

  /// Maps the ops of `block` (the function's body, or a branch the host
  /// takes) to launches.
  LogicalResult mapBlock(Block &block) {
    func::FuncOp func = getOperation();
    // The ops that touch memory, in order; copies as linalg copies.
    SmallVector<Operation *> ops;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>() || isMemoryEffectFree(&op) ||
          isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
        continue;
      // Each kernel that needs the value loads it again.
      if (!emulate && isClonable(&op, readOnly)) {
        reads.push_back(&op);
        continue;
      }
      if (hostAccess &&
          isa<memref::LoadOp, memref::StoreOp, memref::ReshapeOp>(op))
        continue;
      // An `if` on a value the host has (an ONNX If, a Dropout's training
      // mode, a failed check's update of the status word): the host takes
      // the branch, whose ops become launches.
      if (auto branch = dyn_cast<scf::IfOp>(op); branch && hostAccess) {
        for (Region &region : branch->getRegions())
          if (!region.empty() && failed(mapBlock(region.front())))
            return failure();
        continue;
      }
      // A loop whose condition the data decides (an ONNX Loop): the host
      // runs it, its body's ops become launches.
      if (auto loop = dyn_cast<scf::WhileOp>(op); loop && hostAccess) {
        if (failed(mapBlock(loop.getBefore().front())) ||
            failed(mapBlock(loop.getAfter().front())))
          return failure();
        continue;
      }
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        OpBuilder b(copy);
        ops.push_back(linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                                             copy.getTarget()));
        copy->erase();
        continue;
      }
      ops.push_back(&op);
    }
    // An accumulator init a few nests before its root (a convolution's bias
    // before the padding of its input) waits for the root, when the nests
    // between are independent of it, and runs in the root's threads.
    llvm::DenseMap<Operation *, linalg::LinalgOp> deferredInits;
    for (size_t i = 0; i < ops.size(); ++i) {
      Operation *op = ops[i];
      if (auto init = dyn_cast<linalg::LinalgOp>(op);
          init && !hasChunks(init) && !deferredInits.count(op)) {
        linalg::LinalgOp root;
        for (size_t j = i + 2; j < ops.size() && j <= i + kMaxDeferral; ++j) {
          auto candidate = dyn_cast<linalg::LinalgOp>(ops[j]);
          auto between = dyn_cast<linalg::LinalgOp>(ops[j - 1]);
          if (!candidate || !between || !target::canSwap(init, between))
            break;
          if (ownsWholeElements(candidate) && !deferredInits.count(candidate) &&
              target::ownsResultElements(candidate) &&
              target::canStartAccumulator(init, candidate)) {
            root = candidate;
            break;
          }
        }
        if (root) {
          deferredInits[root] = init;
          continue;
        }
      }
      // `<function>_k<N>_<node>`, after the node of the op that decides the
      // launch.
      auto nameAfter = [&](Operation *named) {
        std::string name =
            (func.getSymName() + "_k" + Twine(kernelIndex++)).str();
        std::string suffix = host::getNodeSymbolSuffix(named->getLoc());
        return suffix.empty() ? name : name + "_" + suffix;
      };
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp || !linalgOp.hasPureBufferSemantics()) {
        if (failed(mapSingleThread(op, nameAfter(op))))
          return failure();
        continue;
      }
      // The loop nests this one's threads can run too.
      target::LaunchGroup group;
      group.root = linalgOp;
      group.init = deferredInits.lookup(op);
      if (!hasChunks(linalgOp) && !group.init) {
        auto next = dyn_cast_or_null<linalg::LinalgOp>(
            i + 1 < ops.size() ? ops[i + 1] : nullptr);
        if (next && ownsWholeElements(next) && !deferredInits.count(next) &&
            target::ownsResultElements(next) &&
            target::canStartAccumulator(linalgOp, next)) {
          group.init = linalgOp;
          group.root = next;
          ++i;
        }
      }
      if (ownsWholeElements(group.root) &&
          target::ownsResultElements(group.root)) {
        while (i + 1 < ops.size()) {
          auto after = dyn_cast<linalg::LinalgOp>(ops[i + 1]);
          if (!after || hasChunks(after) || deferredInits.count(after) ||
              !target::canRunAfter(after, group))
            break;
          group.epilogues.push_back(after);
          ++i;
        }
      }
      if (failed(mapGroup(group, nameAfter(group.root))))
        return failure();
    }
    return success();
  }

  /// Whether the host code reads memory the kernels write.
  bool hostAccess = false;
  /// The number of the next kernel.
  int64_t kernelIndex = 0;
  /// The launches built.
  SmallVector<gpu::LaunchOp> launches;

  /// The buffers of the function no op writes.
  llvm::DenseSet<Value> readOnly;
  /// Their top-level loads, cloned into the kernels that use them.
  SmallVector<Operation *> reads;
};
} // namespace
