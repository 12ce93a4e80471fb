//===- FormKernels.cpp - Group linalg ops into mlc_loop.kernel ops --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Kernel formation and dissolution (KernelFormation.h). Groups are built in
// one walk over a block: an op either joins the kernel whose last result it
// alone consumes (an epilogue), or roots a kernel of its own, taking its
// single-use data-movement producers with it. Each group becomes a kernel at
// the place of its last op, so every value it reads is defined before it.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlc::loop {
#define GEN_PASS_DEF_LOOPFORMKERNELS
#define GEN_PASS_DEF_LOOPDISSOLVEKERNELS
#include "mlc/Dialect/Loop/Transforms/Passes.h.inc"
} // namespace mlc::loop

using namespace mlir;
using namespace mlc::loop;

std::string mlc::loop::getKernelName(Location loc) {
  std::string name = "?";
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

Operation *mlc::loop::getKernelRoot(KernelOp kernel) {
  for (Operation &op : kernel.getBody().front())
    if (op.hasAttr(LoopDialect::RootAttrHelper::getNameStr()))
      return &op;
  return nullptr;
}

namespace {
/// A linalg op on tensors with one result.
linalg::LinalgOp asKernelOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp->getNumResults() == 0)
    return nullptr;
  return linalgOp;
}

/// All loops parallel, every operand read through a projected permutation,
/// the result written in loop order: an op that can run on each element of
/// a result as soon as it is computed.
bool isElementwise(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1)
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return false;
  return op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity();
}

/// All loops parallel and the body yields one of the inputs unchanged: a
/// copy, transpose or gather.
bool isDataMovement(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return false;
  Block *body = op.getBlock();
  if (!llvm::hasSingleElement(*body))
    return false;
  auto yielded = dyn_cast<BlockArgument>(body->getTerminator()->getOperand(0));
  return yielded && yielded.getOwner() == body &&
         yielded.getArgNumber() < op.getNumDpsInputs();
}

/// A reshape or slice: a view of its source.
bool isView(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp>(op);
}

/// Whether every use of `value`, directly or through views, is as a
/// destination.
bool isOnlyDestination(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isView(user) && use.getOperandNumber() == 0) {
      if (!isOnlyDestination(user->getResult(0)))
        return false;
      continue;
    }
    auto dps = dyn_cast<DestinationStyleOpInterface>(user);
    if (!dps || !dps.isDpsInit(&use))
      return false;
  }
  return true;
}

} // namespace

bool mlc::loop::isDestinationInitialization(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  // A fill or a broadcast (the body only yields): what mlc-loop-verify-
  // kernels accepts outside kernels. An init that computes (a bias plus a
  // constant that elementwise fusion moved into it) is a kernel of its own.
  if (!linalgOp || op->getNumResults() != 1 ||
      !(isa<linalg::FillOp>(op) ||
        (isElementwise(linalgOp) && op->getNumRegions() == 1 &&
         !op->getRegion(0).empty() &&
         llvm::hasSingleElement(*linalgOp.getBlock()))))
    return false;
  return isOnlyDestination(op->getResult(0));
}

namespace {

struct Group {
  Operation *root;
  /// Members in block order once sorted.
  SmallVector<Operation *> ops;
  /// The value the group last produced, which a consumer may extend.
  Value tail;
};

/// Whether `value` is defined by one of `members` or inside one.
bool isInside(Value value, const llvm::SmallPtrSetImpl<Operation *> &members) {
  Operation *owner = value.getDefiningOp();
  if (!owner)
    owner = value.getParentBlock()->getParentOp();
  for (Operation *op = owner; op; op = op->getParentOp())
    if (members.contains(op))
      return true;
  return false;
}

/// Turns `group` into a kernel named `name`. Returns false (and changes
/// nothing) when a yielded result has no destination from outside.
bool buildKernel(RewriterBase &rewriter, Group &group, StringRef name) {
  llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(),
                                            group.ops.end());
  // Results used outside, and their destinations.
  SmallVector<Value> yielded;
  SmallVector<OpOperand *> destinations;
  for (Operation *op : group.ops)
    for (OpResult result : op->getResults()) {
      if (llvm::all_of(result.getUsers(), [&](Operation *user) {
            for (Operation *o = user; o; o = o->getParentOp())
              if (members.contains(o))
                return true;
            return false;
          }))
        continue;
      auto dps = dyn_cast<DestinationStyleOpInterface>(op);
      if (!dps)
        return false;
      OpOperand *init = dps.getTiedOpOperand(result);
      if (!init || isInside(init->get(), members))
        return false;
      yielded.push_back(result);
      destinations.push_back(init);
    }
  if (yielded.empty())
    return false;

  // Everything else read from outside: constants are cloned in, other
  // values become inputs.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> constants;
  llvm::SmallPtrSet<OpOperand *, 4> destinationSet(destinations.begin(),
                                                   destinations.end());
  for (Operation *op : group.ops)
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands()) {
        if (destinationSet.contains(&operand) ||
            isInside(operand.get(), members))
          continue;
        Operation *def = operand.get().getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          constants.insert(def);
        else
          inputs.insert(operand.get());
      }
    });

  Operation *last = group.ops.back();
  rewriter.setInsertionPoint(last);
  SmallVector<Value> outs;
  SmallVector<Type> resultTypes;
  for (auto [value, init] : llvm::zip(yielded, destinations)) {
    outs.push_back(init->get());
    resultTypes.push_back(value.getType());
  }
  auto kernel = KernelOp::create(rewriter, group.root->getLoc(), resultTypes,
                                 name, inputs.getArrayRef(), outs,
                                 ScheduleAttr());
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value v : kernel->getOperands()) {
    argTypes.push_back(v.getType());
    argLocs.push_back(v.getLoc());
  }
  Block *body = rewriter.createBlock(&kernel.getBody(), {}, argTypes, argLocs);
  rewriter.setInsertionPointToStart(body);
  DenseMap<Operation *, Operation *> clones;
  for (Operation *constant : constants)
    clones[constant] = rewriter.clone(*constant);
  for (Operation *op : group.ops)
    op->moveBefore(body, body->end());
  rewriter.setInsertionPointToEnd(body);
  YieldOp::create(rewriter, kernel.getLoc(), yielded);

  // Reads inside the kernel go through its arguments and clones.
  unsigned numIns = inputs.size();
  for (auto [i, init] : llvm::enumerate(destinations))
    init->set(body->getArgument(numIns + i));
  auto inKernel = [&](OpOperand &use) {
    return kernel->isProperAncestor(use.getOwner());
  };
  for (auto [i, value] : llvm::enumerate(inputs))
    rewriter.replaceUsesWithIf(value, body->getArgument(i), inKernel);
  for (Operation *constant : constants)
    for (auto [from, to] : llvm::zip(constant->getResults(),
                                     clones[constant]->getResults()))
      rewriter.replaceUsesWithIf(from, to, inKernel);
  // Reads outside go to the kernel's results.
  for (auto [value, result] : llvm::zip(yielded, kernel.getResults()))
    rewriter.replaceUsesWithIf(value, result, [&](OpOperand &use) {
      return !kernel->isAncestor(use.getOwner());
    });
  group.root->setAttr(LoopDialect::RootAttrHelper::getNameStr(),
                      rewriter.getUnitAttr());
  return true;
}

/// The single user of `value`, or null.
Operation *getSingleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

void formKernelsInBlock(RewriterBase &rewriter, Block &block,
                        const KernelFusionPolicy &policy,
                        llvm::StringMap<unsigned> &names) {
  std::vector<std::unique_ptr<Group>> groups;
  DenseMap<Operation *, Group *> groupOf;
  // Data movement read by one later linalg op waits for that op to take it
  // as a producer; what no root takes becomes a kernel of its own.
  llvm::SetVector<Operation *> deferred;
  auto readerOf = [&](Operation *producer) -> Operation * {
    Value value = producer->getResult(0);
    Operation *user = getSingleUser(value);
    while (user && isView(user) && user->getBlock() == &block)
      user = getSingleUser(user->getResult(0));
    return user && user->getBlock() == &block && asKernelOp(user) ? user
                                                                  : nullptr;
  };
  for (Operation &op : block) {
    if (groupOf.count(&op))
      continue;
    linalg::LinalgOp linalgOp = asKernelOp(&op);
    if (!linalgOp || isDestinationInitialization(&op))
      continue;
    if (op.getNumResults() == 1 && isDataMovement(linalgOp) && readerOf(&op)) {
      deferred.insert(&op);
      continue;
    }

    // An epilogue: the only reader of a kernel's last result, directly or
    // through a reshape that nothing else reads.
    if (isElementwise(linalgOp)) {
      Group *joined = nullptr;
      Operation *reshape = nullptr;
      for (Value input : linalgOp.getDpsInputs()) {
        Operation *def = input.getDefiningOp();
        Operation *via = nullptr;
        if (def && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) &&
            def->getBlock() == &block && getSingleUser(input) == &op) {
          via = def;
          input = def->getOperand(0);
          def = input.getDefiningOp();
        }
        Group *group = def ? groupOf.lookup(def) : nullptr;
        if (!group || group->tail != input ||
            getSingleUser(input) != (via ? via : &op))
          continue;
        auto root = cast<linalg::LinalgOp>(group->root);
        if (root.getNumReductionLoops() == 0)
          continue;
        if (policy.fuseConsumer && !policy.fuseConsumer(&op, group->root))
          continue;
        joined = group;
        reshape = via;
        break;
      }
      if (joined) {
        if (reshape) {
          joined->ops.push_back(reshape);
          groupOf[reshape] = joined;
        }
        joined->ops.push_back(&op);
        joined->tail = op.getResult(0);
        groupOf[&op] = joined;
        continue;
      }
    }

    // A root, with the data movement and padding only it reads.
    auto group = std::make_unique<Group>();
    group->root = &op;
    // The padded copy that only `reader` reads (a convolution's or a
    // window's input with its border).
    auto takePad = [&](Operation *reader, Value value) {
      auto pad = value.getDefiningOp<tensor::PadOp>();
      if (!pad || pad->getBlock() != &block || groupOf.count(pad) ||
          getSingleUser(value) != reader ||
          (policy.fuseProducer && !policy.fuseProducer(pad, &op)))
        return;
      group->ops.push_back(pad);
      groupOf[pad] = group.get();
    };
    for (Value input : linalgOp.getDpsInputs()) {
      takePad(&op, input);
      // Through single-use views (a gather's matrix seen with fewer dims).
      SmallVector<Operation *> views;
      Operation *user = &op;
      Operation *def = input.getDefiningOp();
      while (def && isView(def) && def->getBlock() == &block &&
             getSingleUser(input) == user && !groupOf.count(def)) {
        views.push_back(def);
        user = def;
        input = def->getOperand(0);
        def = input.getDefiningOp();
      }
      linalg::LinalgOp producer = def ? asKernelOp(def) : nullptr;
      if (!producer || def->getBlock() != &block || groupOf.count(def) ||
          !deferred.contains(def) ||
          getSingleUser(input) != user || !isDataMovement(producer) ||
          (policy.fuseProducer && !policy.fuseProducer(def, &op)))
        continue;
      group->ops.push_back(def);
      groupOf[def] = group.get();
      for (Operation *view : views) {
        group->ops.push_back(view);
        groupOf[view] = group.get();
      }
      for (Value producerInput : producer.getDpsInputs())
        takePad(def, producerInput);
    }
    group->ops.push_back(&op);
    group->tail = op.getNumResults() == 1 ? op.getResult(0) : Value();
    groupOf[&op] = group.get();
    groups.push_back(std::move(group));
  }

  for (Operation *op : deferred) {
    if (groupOf.count(op))
      continue;
    auto group = std::make_unique<Group>();
    group->root = op;
    group->ops.push_back(op);
    group->tail = op->getResult(0);
    groupOf[op] = group.get();
    groups.push_back(std::move(group));
  }
  llvm::stable_sort(groups, [](const std::unique_ptr<Group> &a,
                               const std::unique_ptr<Group> &b) {
    return a->root->isBeforeInBlock(b->root);
  });
  for (std::unique_ptr<Group> &group : groups) {
    llvm::sort(group->ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    std::string name = getKernelName(group->root->getLoc());
    if (unsigned earlier = names[name]++)
      name += "#" + std::to_string(earlier);
    (void)buildKernel(rewriter, *group, name);
  }
}
} // namespace

void mlc::loop::formKernels(RewriterBase &rewriter, func::FuncOp func,
                            const KernelFusionPolicy &policy) {
  // Blocks outside linalg ops and kernels, outer ones first.
  SmallVector<Block *> blocks;
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<linalg::LinalgOp, KernelOp>(op))
      return WalkResult::skip();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        blocks.push_back(&block);
    return WalkResult::advance();
  });
  llvm::StringMap<unsigned> names;
  for (Block *block : blocks)
    formKernelsInBlock(rewriter, *block, policy, names);
}

void mlc::loop::dissolveKernel(RewriterBase &rewriter, KernelOp kernel) {
  Block &body = kernel.getBody().front();
  if (Operation *root = getKernelRoot(kernel)) {
    root->removeAttr(LoopDialect::RootAttrHelper::getNameStr());
    if (ScheduleAttr schedule = kernel.getScheduleAttr())
      root->setAttr(LoopDialect::getScheduleAttrName(), schedule);
  }
  for (auto [arg, operand] :
       llvm::zip(body.getArguments(), kernel->getOperands()))
    rewriter.replaceAllUsesWith(arg, operand);
  SmallVector<Value> yielded = llvm::to_vector(kernel.getYield().getValues());
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    op.moveBefore(kernel);
  rewriter.replaceOp(kernel, yielded);
}

namespace {
struct LoopFormKernelsPass
    : mlc::loop::impl::LoopFormKernelsBase<LoopFormKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    formKernels(rewriter, getOperation());
  }
};

struct LoopDissolveKernelsPass
    : mlc::loop::impl::LoopDissolveKernelsBase<LoopDissolveKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    for (KernelOp kernel : kernels)
      dissolveKernel(rewriter, kernel);
  }
};
} // namespace

void mlc::loop::printKernelSchedule(llvm::raw_ostream &os, StringRef name,
                                    ArrayRef<int64_t> ranges,
                                    Attribute schedule) {
  os << '"' << name << "\" loops = [";
  llvm::interleaveComma(ranges, os, [&](int64_t range) {
    if (ShapedType::isDynamic(range))
      os << '?';
    else
      os << range;
  });
  os << "] " << schedule << "\n";
}
