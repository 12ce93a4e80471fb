//===- SeparateBatch.cpp - Compile a symbolic batch dim once --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A symbolic dim that only ever indexes independent samples (a batch) needs
// no code of symbolic size: the model computed for one sample, run once per
// sample on consecutive slices of the inputs and outputs, is the model at
// any batch. This pass proves that of a model, then pins the dim to 1.
//
// The proof has two halves. Shapes: the function is shape-inferred twice,
// with the dim at 1 and at kProbe; a value whose shapes differ in exactly
// one dim, by the factor kProbe, carries the batch there (a multiple k of
// it: the block of sample b is [b*k, (b+1)*k)); a value whose shapes agree
// does not depend on the batch; anything else (N+1 rows, N*N, structure
// that changes with N) is refused. Semantics: per op, given where its
// operands and results carry the batch, a rule says whether the op keeps
// the samples' blocks apart (elementwise ops, convolutions on dim 0, a
// softmax not along the batch, ...). An op without a rule that touches the
// batch refuses the whole model, so the proof fails closed.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHSEPARATEBATCH
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;
using namespace mlc::graph;

namespace {
/// The batch size of the second shape inference: a prime larger than the
/// small dims models spell out (a broadcast of a dim of 7 against the batch
/// would look batch-independent at 7), and small enough that shapes and
/// splat constants at that size stay cheap to infer and fold.
constexpr int64_t kProbe = 1009;

/// How a value relates to the batch.
struct BatchInfo {
  /// The dim that carries the batch, or -1 when the value does not depend
  /// on it.
  int64_t axis = -1;
  /// How samples sit in that dim: it is outer x N x inner (outer x inner at
  /// batch 1), and for each of its `outer` indices sample b owns the
  /// `inner` consecutive indices from b * inner: a reshape of a
  /// sequence-first [S, N, E] to rows [S*N, E] interleaves samples (outer
  /// S). Row-wise ops keep that; ops that need a sample's data in one block
  /// (convolutions, outputs) need outer 1.
  int64_t outer = 1;
  /// The value is a constant that holds the batch size as data (a shape
  /// computed from a batched input): only shape operands may take it.
  bool sizeValue = false;
  bool isBatched() const { return axis >= 0; }
};

std::string describeNode(Operation *op) {
  std::string text;
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    text = ("node '" + name.getName().getValue() + "' ").str();
  return text + "(" + op->getName().getStringRef().str() + ")";
}

/// The integer values of a constant operand, if it is one.
std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  DenseIntElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(llvm::map_range(
      attr.getValues<APInt>(), [](const APInt &x) { return x.getSExtValue(); }));
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

int64_t getRank(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : -1;
}

/// Product of the first `n` dims of `v`'s (static) shape.
int64_t getPrefixProduct(Value v, int64_t n) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t product = 1;
  for (int64_t d = 0; d < n; ++d)
    product *= type.getDimSize(d);
  return product;
}

/// Decides whether ops keep a batch's samples apart.
class BatchRules {
public:
  explicit BatchRules(llvm::DenseMap<Value, BatchInfo> &info) : info(info) {}

  /// Why `op` mixes the samples (or cannot be shown not to); empty when it
  /// keeps them apart.
  std::string check(Operation *op);

private:
  BatchInfo get(Value v) const { return info.lookup(v); }
  int64_t axisOf(Value v) const { return get(v).axis; }

  /// Only operand `index` may carry the batch, only on dim 0.
  std::string onlyFirstDim(Operation *op, unsigned index = 0);
  /// Operands broadcast to the result as in numpy.
  std::string broadcasts(Operation *op);
  /// A reshape keeps each sample's elements at positions of the same
  /// pattern (outer blocks of equal stride); sets the result's `outer`.
  std::string reshapesBlocks(Value input, Value result);
  /// Batched operands agree on `outer`; the results get it.
  std::string keepOuter(Operation *op);
  /// Operand 0 maps to the result element by element; the others (scales,
  /// zero points) do not depend on the batch.
  std::string perElement(Operation *op);
  std::string checkBatch(Operation *op);

  llvm::DenseMap<Value, BatchInfo> &info;
};

std::string BatchRules::onlyFirstDim(Operation *op, unsigned index) {
  for (OpOperand &operand : op->getOpOperands()) {
    int64_t axis = axisOf(operand.get());
    if (axis < 0)
      continue;
    if (operand.getOperandNumber() != index)
      return "its operand " + std::to_string(operand.getOperandNumber()) +
             " depends on the batch";
    if (axis != 0)
      return "it carries the batch on dim " + std::to_string(axis) +
             ", where the op combines elements";
    if (get(operand.get()).outer != 1)
      return "its samples are interleaved in dim 0";
  }
  for (Value r : op->getResults())
    if (axisOf(r) > 0)
      return "its result carries the batch on dim " +
             std::to_string(axisOf(r));
  return "";
}

std::string BatchRules::broadcasts(Operation *op) {
  for (Value result : op->getResults()) {
    int64_t rank = getRank(result), axis = axisOf(result);
    for (Value operand : op->getOperands()) {
      int64_t a = axisOf(operand);
      if (a >= 0 && a + rank - getRank(operand) != axis)
        return "an operand carries the batch on another dim than its result";
    }
  }
  return "";
}

std::string BatchRules::reshapesBlocks(Value input, Value result) {
  // Sample b of the input sits at linear positions p * N * K + b * K + i
  // (p < before, i < K); the result's batched dim b' must split as
  // before / prod(dims before b') x N x the rest.
  BatchInfo in = get(input);
  int64_t out = axisOf(result);
  int64_t before = getPrefixProduct(input, in.axis) * in.outer;
  int64_t prefix = getPrefixProduct(result, out);
  int64_t dim = cast<RankedTensorType>(result.getType()).getDimSize(out);
  if (prefix == 0 || before % prefix != 0 || dim % (before / prefix) != 0)
    return "the reshape moves elements across samples";
  info[result].outer = before / prefix;
  return "";
}

std::string BatchRules::keepOuter(Operation *op) {
  std::optional<int64_t> outer;
  for (Value v : op->getOperands()) {
    if (!get(v).isBatched())
      continue;
    if (outer && *outer != get(v).outer)
      return "its operands interleave samples differently";
    outer = get(v).outer;
  }
  for (Value r : op->getResults())
    if (get(r).isBatched())
      info[r].outer = outer.value_or(1);
  return "";
}

std::string BatchRules::check(Operation *op) {
  // Operands that hold the batch size as data: only shape operands take it.
  SmallVector<unsigned> shapeOperands =
      TypeSwitch<Operation *, SmallVector<unsigned>>(op)
          .Case<ReshapeOp, ExpandOp, TileOp>(
              [](auto) { return SmallVector<unsigned>{1}; })
          .Case<ConstantOfShapeOp>([](auto) { return SmallVector<unsigned>{0}; })
          .Case<SliceOp>([](auto) { return SmallVector<unsigned>{1, 2}; })
          .Case<ResizeOp>([&](auto) {
            return llvm::to_vector(llvm::seq<unsigned>(1, op->getNumOperands()));
          })
          .Default([](auto) { return SmallVector<unsigned>{}; });
  for (OpOperand &operand : op->getOpOperands())
    if (get(operand.get()).sizeValue &&
        !llvm::is_contained(shapeOperands, operand.getOperandNumber()))
      return "it uses the batch size as a value (operand " +
             std::to_string(operand.getOperandNumber()) + ")";
  if (std::string why = checkBatch(op); !why.empty())
    return why;
  if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op) &&
      get(op->getOperand(0)).isBatched())
    return "";
  return keepOuter(op);
}

std::string BatchRules::perElement(Operation *op) {
  for (unsigned i = 1; i < op->getNumOperands(); ++i)
    if (axisOf(op->getOperand(i)) >= 0)
      return "its operand " + std::to_string(i) + " depends on the batch";
  for (Value r : op->getResults())
    if (axisOf(r) != axisOf(op->getOperand(0)))
      return "its result carries the batch on another dim";
  return "";
}

std::string BatchRules::checkBatch(Operation *op) {
  bool batchedOperand = llvm::any_of(op->getOperands(), [&](Value v) {
    return get(v).isBatched();
  });
  bool batchedResult = llvm::any_of(op->getResults(), [&](Value v) {
    return get(v).isBatched();
  });
  if (!batchedOperand && !batchedResult)
    return "";
  // Data of several samples reaching one element of a result that no
  // longer has the batch (a reduction or contraction over it).
  for (Value r : op->getResults())
    if (batchedOperand && !get(r).isBatched())
      return "its result does not keep the batch (it reduces or contracts "
             "over it)";
  if (op->getNumRegions() != 0)
    return "the batch reaches a subgraph";

  if (op->hasTrait<mlc::graph::OpTrait::Elementwise>())
    return broadcasts(op);
  return TypeSwitch<Operation *, std::string>(op)
      // Window and per-sample normalization ops: the batch is dim 0 of the
      // data, which they never combine.
      .Case<ConvOp, ConvTransposeOp, MaxPoolOp, MaxPoolIndicesOp,
            AveragePoolOp, GlobalAveragePoolOp, GlobalMaxPoolOp,
            InstanceNormOp, LRNOp, DepthToSpaceOp, SpaceToDepthOp, ResizeOp,
            ConvIntegerOp>([&](Operation *) { return onlyFirstDim(op); })
      .Case<QuantizeLinearOp, DequantizeLinearOp, BatchNormOp>(
          [&](Operation *) { return perElement(op); })
      .Case<QLinearConvOp>([&](Operation *) { return onlyFirstDim(op); })
      .Case<GridSampleOp>([&](GridSampleOp) -> std::string {
        if (axisOf(op->getOperand(0)) != 0 || axisOf(op->getOperand(1)) != 0 ||
            get(op->getOperand(0)).outer != 1 ||
            get(op->getOperand(1)).outer != 1)
          return "the image and the grid must both carry the batch on dim 0";
        return "";
      })
      // Contractions: a contracted batch has no result dim left (refused
      // above); any other dim of the operands keeps its samples apart.
      .Case<MatMulOp, GemmOp, MatMulIntegerOp, QLinearMatMulOp, EinsumOp>(
          [](Operation *) { return std::string(); })
      .Case<SoftmaxOp, LogSoftmaxOp, HardmaxOp>([&](auto s) -> std::string {
        if (normalizeAxis(s.getAxis(), getRank(s.getInput())) ==
            axisOf(s.getInput()))
          return "it normalizes along the batch";
        return "";
      })
      .Case<LayerNormOp>([&](LayerNormOp n) -> std::string {
        if (std::string why = perElement(op); !why.empty())
          return why;
        if (axisOf(n.getInput()) >=
            normalizeAxis(n.getAxis(), getRank(n.getInput())))
          return "it normalizes over the batch";
        return "";
      })
      .Case<CumSumOp>([&](CumSumOp c) -> std::string {
        std::optional<SmallVector<int64_t>> axis = getConstantInts(c.getAxis());
        if (!axis || axis->size() != 1 ||
            normalizeAxis((*axis)[0], getRank(c.getInput())) ==
                axisOf(c.getInput()))
          return "it may sum along the batch";
        return "";
      })
      .Case<TopKOp>([&](TopKOp t) -> std::string {
        if (normalizeAxis(t.getAxis(), getRank(t.getInput())) ==
            axisOf(t.getInput()))
          return "it selects along the batch";
        return "";
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceL2Op, ReduceLogSumExpOp, ReduceLogSumOp, ReduceL1Op,
            ReduceSumSquareOp, ArgMaxOp, ArgMinOp>(
          [](Operation *) { return std::string(); })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
          [&](Operation *) -> std::string {
            if (axisOf(op->getOperand(0)) < 0)
              return "";
            return reshapesBlocks(op->getOperand(0), op->getResult(0));
          })
      .Case<TransposeOp>([](auto) { return std::string(); })
      .Case<ConcatOp>([&](ConcatOp c) -> std::string {
        if (normalizeAxis(c.getAxis(), getRank(c.getOutput())) ==
            axisOf(c.getOutput()))
          return "it concatenates along the batch";
        return "";
      })
      .Case<SliceOp>([&](SliceOp s) -> std::string {
        int64_t rank = getRank(s.getInput()), axis = axisOf(s.getInput());
        if (axis < 0)
          return "";
        std::optional<SmallVector<int64_t>> axes =
            s.getAxes() ? getConstantInts(s.getAxes())
                        : std::optional<SmallVector<int64_t>>(
                              llvm::to_vector(llvm::seq<int64_t>(0, rank)));
        std::optional<SmallVector<int64_t>> steps =
            s.getSteps() ? getConstantInts(s.getSteps()) : std::nullopt;
        if (!axes)
          return "its axes are not constants";
        for (auto [i, a] : llvm::enumerate(*axes))
          if (normalizeAxis(a, rank) == axis &&
              (s.getSteps() && (!steps || i >= steps->size() ||
                                (*steps)[i] != 1)))
            return "it steps along the batch";
        return "";
      })
      .Case<GatherOp>([&](GatherOp g) -> std::string {
        int64_t axis = axisOf(g.getData());
        if (axis >= 0 &&
            normalizeAxis(g.getAxis(), getRank(g.getData())) == axis)
          return "it gathers along the batch";
        return "";
      })
      .Case<GatherElementsOp>([&](GatherElementsOp g) -> std::string {
        int64_t axis = axisOf(g.getData());
        if (axis != axisOf(g.getIndices()) || axis != axisOf(g.getOutput()) ||
            normalizeAxis(g.getAxis(), getRank(g.getData())) == axis)
          return "it gathers along the batch";
        return "";
      })
      .Case<ExpandOp>([&](Operation *) { return broadcasts(op); })
      .Case<ConstantOfShapeOp>([](auto) { return std::string(); })
      // A constant folded from the batch size, whose blocks the caller
      // checked are all equal (a splat).
      .Case<ConstantOp>([](auto) { return std::string(); })
      .Case<TileOp>([&](TileOp t) -> std::string {
        int64_t axis = axisOf(t.getInput());
        if (axis < 0)
          return "";
        std::optional<SmallVector<int64_t>> repeats =
            getConstantInts(t.getRepeats());
        if (!repeats || axis >= static_cast<int64_t>(repeats->size()) ||
            (*repeats)[axis] != 1)
          return "it repeats along the batch";
        return "";
      })
      .Case<PadOp>([&](PadOp p) -> std::string {
        for (unsigned i = 1; i < op->getNumOperands(); ++i)
          if (axisOf(op->getOperand(i)) >= 0)
            return "its pads depend on the batch";
        return "";
      })
      .Case<TriluOp>([&](TriluOp t) -> std::string {
        if (axisOf(t.getInput()) >= getRank(t.getInput()) - 2)
          return "it masks along the batch";
        return "";
      })
      .Default([](Operation *) {
        return std::string(
            "mlc does not know that it keeps the samples of a batch apart");
      });
}

struct GraphSeparateBatchPass
    : mlc::graph::impl::GraphSeparateBatchBase<GraphSeparateBatchPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> functions;
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic())
        functions.push_back(f);
    for (func::FuncOp f : functions)
      if (failed(separate(f)))
        return signalPassFailure();
  }

  /// The symbolic dims of `f`'s inputs: (input, dim) -> name.
  struct SymbolicDim {
    unsigned input;
    int64_t dim;
    std::string name;
  };
  SmallVector<SymbolicDim> getSymbolicDims(func::FuncOp f) {
    SmallVector<SymbolicDim> dims;
    for (auto [i, type] : llvm::enumerate(f.getArgumentTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        continue;
      auto names = f.getArgAttrOfType<ArrayAttr>(i, "mlc_graph.dim_names");
      for (int64_t d = 0; d < tensor.getRank(); ++d) {
        if (!tensor.isDynamicDim(d))
          continue;
        std::string name;
        if (names && d < static_cast<int64_t>(names.size()))
          if (auto s = dyn_cast<StringAttr>(names[d]))
            name = s.str();
        if (name.empty())
          name = "input" + std::to_string(i) + "_dim" + std::to_string(d);
        dims.push_back({static_cast<unsigned>(i), d, name});
      }
    }
    return dims;
  }

  StringRef getInputName(func::FuncOp f, unsigned i) {
    auto name = f.getArgAttrOfType<StringAttr>(i, "mlc_graph.name");
    return name ? name.getValue() : StringRef("?");
  }

  /// Sets the symbolic dims named `symbol` of `f`'s inputs to `value`.
  void pin(func::FuncOp f, ArrayRef<SymbolicDim> dims, int64_t value) {
    SmallVector<Type> inputs(f.getArgumentTypes());
    for (const SymbolicDim &d : dims) {
      auto type = cast<RankedTensorType>(inputs[d.input]);
      SmallVector<int64_t> shape(type.getShape());
      shape[d.dim] = value;
      inputs[d.input] = type.clone(shape);
    }
    for (auto [arg, type] : llvm::zip(f.getArguments(), inputs))
      arg.setType(type);
    f.setType(FunctionType::get(f.getContext(), inputs, f.getResultTypes()));
  }

  /// Where `a` (batch 1) and `b` (batch kProbe) put the batch; failure when
  /// their shapes differ in another way.
  FailureOr<int64_t> compareTypes(Type a, Type b) {
    if (a == b)
      return -1;
    auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getRank() != tb.getRank() ||
        ta.getElementType() != tb.getElementType())
      return failure();
    int64_t axis = -1;
    for (int64_t d = 0; d < ta.getRank(); ++d) {
      int64_t x = ta.getDimSize(d), y = tb.getDimSize(d);
      if (x == y)
        continue;
      if (axis >= 0 || ShapedType::isDynamic(x) || ShapedType::isDynamic(y) ||
          y != x * kProbe)
        return failure();
      axis = d;
    }
    return axis;
  }

  LogicalResult separate(func::FuncOp f) {
    SmallVector<SymbolicDim> dims = getSymbolicDims(f);
    if (dims.empty())
      return success();
    // Refuses before `f` changes: an error, or nothing when not strict.
    auto fail = [&](const Twine &message) -> LogicalResult {
      if (strict)
        return emitError(f.getLoc(), message);
      return success();
    };
    if (!keepBatch) {
      if (!strict)
        return success();
      const SymbolicDim &d = dims.front();
      return emitError(f.getLoc())
             << "input '" << getInputName(f, d.input) << "' has symbolic dim "
             << d.dim << " ('" << d.name
             << "'); this target compiles static shapes only: pin it with "
                "--dim "
             << d.name << "=N (or --shape)";
    }
    // A batch is dim 0 of every input that has it, under one name.
    StringRef symbol = dims.front().name;
    for (const SymbolicDim &d : dims) {
      if (d.dim != 0 || d.name != symbol) {
        // Other symbols: all stay, for code that takes dims at run time.
        if (!strict || dynamicDims)
          return success();
        const SymbolicDim &other = d.dim != 0 ? d : dims.front();
        return emitError(f.getLoc())
               << "input '" << getInputName(f, other.input) << "' has symbolic "
               << "dim " << other.dim << " ('" << other.name
               << "'); mlc compiles one symbolic dim, the batch: dim 0 of the "
                  "inputs, which no op may mix. Pin the others with --dim "
               << (d.dim != 0 ? d.name : dims.front().name)
               << "=N (or --shape)";
      }
    }
    // Shape-infer a copy at the probe size and this function at 1.
    ModuleOp module = getOperation();
    func::FuncOp probe = f.clone();
    probe.setName(f.getName().str() + ".batch_probe");
    SymbolTable(module).insert(probe);
    llvm::scope_exit cleanup([&] { probe.erase(); });
    pin(probe, dims, kProbe);
    OpPassManager infer(func::FuncOp::getOperationName());
    infer.addPass(createGraphInferShapes());
    // The probe's own diagnostics (about a copy, at a made-up size) are
    // folded into one message about the batch.
    std::string probeError;
    LogicalResult probed = success();
    {
      ScopedDiagnosticHandler quiet(&getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error && probeError.empty())
          probeError = d.str();
        return success();
      });
      probed = runPipeline(infer, probe);
    }
    if (failed(probed))
      return fail("symbolic dim '" + symbol +
                  "' cannot stay symbolic: the model does not shape-check "
                  "at batch " + Twine(kProbe) + " (" + probeError +
                  "); pin it with --dim " + symbol + "=N");
    func::FuncOp unpinned = f.clone();
    llvm::scope_exit restore([&] { unpinned.erase(); });
    pin(f, dims, 1);
    if (failed(runPipeline(infer, f)))
      return failure();

    llvm::DenseMap<Value, BatchInfo> info;
    for (const SymbolicDim &d : dims)
      info[f.getArgument(d.input)].axis = 0;
    SmallVector<Operation *> ops, probeOps;
    f.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    probe.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { probeOps.push_back(op); });
    BatchRules rules(info);
    std::string reason;
    Operation *culprit = nullptr;
    if (ops.size() != probeOps.size()) {
      culprit = f;
      reason = "the model's ops change with the batch size";
    }
    for (auto [op, other] : llvm::zip(ops, probeOps)) {
      if (culprit)
        break;
      if (op == f.getOperation() || isa<func::ReturnOp>(op))
        continue;
      if (op->getName() != other->getName() ||
          op->getNumResults() != other->getNumResults()) {
        culprit = op;
        reason = "the model's ops change with the batch size";
        break;
      }
      // Region arguments of ops inside the walk.
      for (Region &region : op->getRegions())
        for (auto [block, otherBlock] :
             llvm::zip(region.getBlocks(), other->getRegion(
                                               region.getRegionNumber())))
          for (auto [arg, otherArg] :
               llvm::zip(block.getArguments(), otherBlock.getArguments())) {
            FailureOr<int64_t> axis =
                compareTypes(arg.getType(), otherArg.getType());
            if (failed(axis) || *axis >= 0) {
              culprit = op;
              reason = "the batch reaches a subgraph";
            }
          }
      if (culprit)
        break;
      for (auto [r, otherR] : llvm::zip(op->getResults(), other->getResults())) {
        FailureOr<int64_t> axis = compareTypes(r.getType(), otherR.getType());
        if (failed(axis)) {
          culprit = op;
          reason = "its result's size is not a multiple of the batch";
          break;
        }
        info[r].axis = *axis;
      }
      if (culprit)
        break;
      if (isa<ConstantOp>(op) &&
          op->getAttr("value") != other->getAttr("value")) {
        Value result = op->getResult(0);
        auto mine = dyn_cast<DenseElementsAttr>(op->getAttr("value"));
        auto theirs = dyn_cast<DenseElementsAttr>(other->getAttr("value"));
        bool sameSplat = mine && theirs && mine.isSplat() &&
                         theirs.isSplat() &&
                         mine.getSplatValue<Attribute>() ==
                             theirs.getSplatValue<Attribute>();
        // Folded from the batch size with a batched shape: each sample sees
        // one block, which is right only when all blocks are equal (a
        // ConstantOfShape, not a Range over the batch).
        if (info[result].isBatched() && !sameSplat) {
          culprit = op;
          reason = "its values depend on the batch size";
          break;
        }
        // A shape computed from a batched input holds the size as data.
        if (!info[result].isBatched())
          info[result].sizeValue = true;
      }
      reason = rules.check(op);
      if (!reason.empty()) {
        culprit = op;
        break;
      }
    }
    // Outputs: the batch on dim 0, or none.
    SmallVector<bool> batchedResults;
    if (!culprit)
      f.walk([&](func::ReturnOp ret) {
        if (ret->getParentOp() != f.getOperation())
          return;
        for (OpOperand &operand : ret->getOpOperands()) {
          BatchInfo b = info.lookup(operand.get());
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (b.sizeValue || b.axis > 0 || (b.axis == 0 && b.outer != 1) ||
              (b.axis == 0 && (!type || !type.hasStaticShape()))) {
            culprit = ret;
            reason = b.sizeValue
                         ? "output " + std::to_string(operand.getOperandNumber()) +
                               " holds the batch size as data"
                         : "output " + std::to_string(operand.getOperandNumber()) +
                               (b.axis > 0 ? " carries the batch on dim " +
                                                 std::to_string(b.axis) +
                                                 ", not dim 0"
                                : b.outer != 1
                                    ? " interleaves the samples in dim 0"
                                    : " has a size the data decides");
          }
          batchedResults.push_back(b.axis == 0);
        }
      });
    if (culprit) {
      if (!strict) {
        // Leave the function as it was imported.
        f.getBody().takeBody(unpinned.getBody());
        f.setType(unpinned.getFunctionType());
        return success();
      }
      return emitError(culprit->getLoc())
             << "symbolic dim '" << symbol << "' (dim 0 of input '"
             << getInputName(f, dims.front().input)
             << "') cannot stay symbolic: " << describeNode(culprit) << ": "
             << reason
             << ". mlc compiles a symbolic batch once when no op mixes its "
                "samples; pin it with --dim "
             << symbol << "=N";
    }
    MLIRContext *ctx = f.getContext();
    f->setAttr("mlc_graph.batch_symbol", StringAttr::get(ctx, symbol));
    for (const SymbolicDim &d : dims)
      f.setArgAttr(d.input, "mlc_graph.batched", UnitAttr::get(ctx));
    for (auto [i, batched] : llvm::enumerate(batchedResults))
      if (batched)
        f.setResultAttr(i, "mlc_graph.batched", UnitAttr::get(ctx));
    return success();
  }
};
} // namespace
