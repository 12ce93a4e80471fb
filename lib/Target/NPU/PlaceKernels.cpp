//===- PlaceKernels.cpp - Which matmuls run on the NPU --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The NPU target's placement (mlc-npu-place-kernels in Passes.td): legality
// and cycles from the NPU lowering's own planner, a time comparison with the
// CPU, and a JSON file that overrides either.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionAsMatmul.h"
#include "DirectConvolution.h"
#include "Pool.h"
#include "QuantizedAdd.h"
#include "QuantizedMatmul.h"
#include "Requantization.h"
#include "mlc/Target/Host/ModelFunctions.h"
#include "mlc/Target/NPU/MatmulProgram.h"
#include "mlc/Target/NPU/Passes.h"

#include "mlc-runtime/NPU/Simulator.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlc::target {
#define GEN_PASS_DEF_NPUPLACEKERNELS
#include "mlc/Target/NPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {

/// A bf16 constant of `type` holding `floats` rounded to nearest even.
Value createBF16Constant(OpBuilder &b, Location loc, RankedTensorType type,
                         ArrayRef<float> floats) {
  SmallVector<uint16_t> rounded;
  rounded.reserve(floats.size());
  for (float f : floats)
    rounded.push_back(roundToBF16(f));
  auto data = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(rounded.data()),
                           rounded.size() * sizeof(uint16_t)));
  return arith::ConstantOp::create(b, loc, data);
}

/// `value` rounded to bf16 at compile time when it is an f32 constant (the
/// NPU's conversion, to nearest even), so that the NPU loads half the bytes
/// and converts nothing; else null.
Value getBF16Constant(OpBuilder &b, Value value) {
  std::optional<SmallVector<float>> floats = getFloats(value);
  if (!floats)
    return nullptr;
  auto type = cast<RankedTensorType>(value.getType()).clone(b.getBF16Type());
  return createBF16Constant(b, value.getLoc(), type, *floats);
}

constexpr const char *kFloatOnCPU =
    "f32 kernels stay on the CPU (float-kernels=cpu)";

struct NPUPlaceKernelsPass
    : mlc::target::impl::NPUPlaceKernelsBase<NPUPlaceKernelsPass> {
  using Base::Base;

  /// Whether f32 kernels may run on the NPU (as bf16).
  bool floatOnNPU() const { return floatKernels != "cpu"; }

  void runOnOperation() override {
    if (floatKernels != "bf16" && floatKernels != "cpu") {
      getOperation().emitError("float-kernels must be bf16 or cpu, not '")
          << floatKernels << "'";
      return signalPassFailure();
    }
    std::string error;
    std::optional<NPUConfig> config = loadNPUConfig(npu, error);
    if (!config) {
      getOperation().emitError("--npu-config: ") << error;
      return signalPassFailure();
    }
    llvm::StringMap<std::string> forced;
    if (!placementFile.empty() && failed(readPlacements(forced)))
      return signalPassFailure();

    SmallVector<Operation *> kernels;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::Conv2DNchwFchwOp>(op) ||
          (isa<linalg::GenericOp>(op) &&
           isBatchedMatmul(cast<linalg::GenericOp>(op))))
        kernels.push_back(op);
    });
    for (Operation *op : kernels) {
      LogicalResult placed = success();
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
        placed = place(*config, matmul, forced);
      else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        placed = place(*config, conv, forced);
      else
        placed = place(*config, cast<linalg::GenericOp>(op), forced);
      if (failed(placed))
        return signalPassFailure();
    }
    // Then the residual adds of quantized models, on the vector unit (after
    // the contractions, whose requantization may have taken the
    // QuantizeLinears their operands come from).
    // Each is matched again when placed: placing one replaces the
    // QuantizeLinear another's operand may come from.
    SmallVector<linalg::GenericOp> adds;
    getOperation().walk([&](linalg::GenericOp op) {
      std::string ignored;
      if (matchQuantizedAdd(op, ignored))
        adds.push_back(op);
    });
    for (linalg::GenericOp op : adds) {
      std::string why;
      std::optional<QuantizedAdd> q = matchQuantizedAdd(op, why);
      if (!q) {
        report(host::getNodeName(op->getLoc()), "cpu", why);
        continue;
      }
      if (failed(placeAdd(*config, op, *q, forced)))
        return signalPassFailure();
    }
    // And max and average poolings, on the vector unit too.
    auto matchPool = [](Operation *op,
                        std::string &why) -> std::optional<Pool> {
      if (auto max = dyn_cast<linalg::PoolingNchwMaxOp>(op))
        return matchMaxPool(max, why);
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic)
        return std::nullopt;
      if (std::optional<Pool> global = matchGlobalAveragePool(generic, why))
        return global;
      return matchAveragePool(generic, why);
    };
    // (Every max pooling and every generic that reads a sum pooling is
    // reported, those the NPU does not run with the reason.)
    SmallVector<Operation *> pools;
    getOperation().walk([&](Operation *op) {
      std::string ignored;
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (isa<linalg::PoolingNchwMaxOp>(op) || matchPool(op, ignored) ||
          (generic && generic.getNumDpsInputs() > 0 &&
           generic.getDpsInputs()[0].getDefiningOp<linalg::PoolingNchwSumOp>()))
        pools.push_back(op);
    });
    for (Operation *op : pools) {
      std::string why;
      std::optional<Pool> pool = matchPool(op, why);
      if (failed(placePool(*config, op, pool, why, forced)))
        return signalPassFailure();
    }
  }

  /// Operations an element of a quantized add takes on the CPU (two
  /// dequantizations, the add, the quantization's divide, round, add and
  /// clamp), at half its multiply-add rate, for its time estimate.
  static constexpr double kCPUOperationsPerAdd = 12;

  /// A quantized add goes to the NPU's vector unit when it can run it and
  /// the simulated time beats the CPU's estimate (or the placement file
  /// says so).
  LogicalResult placeAdd(const NPUConfig &config, linalg::GenericOp op,
                         const QuantizedAdd &q,
                         const llvm::StringMap<std::string> &forced) {
    std::string why;
    int64_t cycles = -1;
    std::optional<QuantizedAddTiles> tiles =
        chooseQuantizedAddTiles(config, q.shape, why, &cycles);
    std::string what;
    if (tiles)
      what = "int8 add, requantized, tiles of " +
             std::to_string(tiles->elements) + " x" +
             std::to_string(tiles->buffers);
    double cpuSeconds =
        double(q.shape.elements) * kCPUOperationsPerAdd / (cpuGflops / 2 * 1e9);
    FailureOr<bool> onNPU = decideVector(config, op, forced, tiles.has_value(),
                                         why, what, cycles, cpuSeconds);
    if (failed(onNPU) || !*onNPU)
      return failure(failed(onNPU));
    linalg::GenericOp quantize = q.requantization.ops.back();
    OpBuilder b(quantize);
    Value result = buildQuantizedNPUAdd(b, op.getLoc(), q, npu, *tiles);
    quantize.getResult(0).replaceAllUsesWith(result);
    for (linalg::GenericOp generic : llvm::reverse(q.requantization.ops))
      generic.erase();
    op.erase();
    return success();
  }

  /// A pooling goes to the NPU's vector unit likewise, its CPU estimate
  /// one operation per element of each window at half the CPU's
  /// multiply-add rate.
  LogicalResult placePool(const NPUConfig &config, Operation *op,
                          const std::optional<Pool> &pool, std::string why,
                          const llvm::StringMap<std::string> &forced) {
    int64_t cycles = -1;
    std::optional<PoolTiles> tiles =
        pool ? choosePoolTiles(config, pool->shape, why, &cycles)
             : std::nullopt;
    std::string what;
    double cpuSeconds = 0;
    if (tiles) {
      const PoolShape &s = pool->shape;
      what = std::string(s.average ? "average" : "max") + " pool, tiles of " +
             std::to_string(tiles->planes) + " planes x" +
             std::to_string(tiles->buffers);
      cpuSeconds = double(s.planes * s.outHeight * s.outWidth * s.window[0] *
                          s.window[1]) /
                   (cpuGflops / 2 * 1e9);
    }
    FailureOr<bool> onNPU = decideVector(config, op, forced, tiles.has_value(),
                                         why, what, cycles, cpuSeconds);
    if (failed(onNPU) || !*onNPU)
      return failure(failed(onNPU));
    OpBuilder b(op);
    replaceWithNPUPool(b, *pool, npu, *tiles);
    return success();
  }

  /// The decision for a kernel of the vector unit (`what`, `cycles`
  /// simulated, when `legal`; else the reason in `why`) against
  /// `cpuSeconds` on the CPU: true when it goes to the NPU; failure when
  /// the placement file forces what cannot be.
  FailureOr<bool> decideVector(const NPUConfig &config, Operation *op,
                               const llvm::StringMap<std::string> &forced,
                               bool legal, const std::string &why,
                               const std::string &what, int64_t cycles,
                               double cpuSeconds) {
    std::string node = host::getNodeName(op->getLoc());
    auto [force, named] = getForced(node, forced);
    if (!legal) {
      if (force == "npu" && named)
        return op->emitError("the placement file puts node '")
               << node << "' on the NPU, which cannot run it: " << why;
      report(node, "cpu", why);
      return false;
    }
    double npuSeconds = double(cycles) / (config.clockMHz * 1e6);
    std::string estimate;
    llvm::raw_string_ostream os(estimate);
    os << what << ", ~" << cycles
       << " cycles = " << llvm::format("%.2f", npuSeconds * 1e6) << " us on '"
       << config.name << "'; CPU ~" << llvm::format("%.2f", cpuSeconds * 1e6)
       << " us";
    bool onNPU = force ? *force == "npu" : npuSeconds < cpuSeconds;
    report(node, onNPU ? "npu" : "cpu",
           force ? "placement file; " + estimate : estimate);
    return onNPU;
  }

  /// What the placement file says of `node`: its own entry, else the
  /// file's default ("*"), which puts what the NPU cannot run on the CPU
  /// without complaint; and whether the node was named.
  static std::pair<std::optional<StringRef>, bool>
  getForced(const std::string &node,
            const llvm::StringMap<std::string> &forced) {
    auto it = forced.find(node);
    bool named = it != forced.end();
    if (!named)
      it = forced.find("*");
    if (it == forced.end())
      return {std::nullopt, named};
    return {StringRef(it->second), named};
  }

  /// With --print-placement, says where `node` goes and why.
  void report(const std::string &node, StringRef device,
              const std::string &reason) {
    if (printPlacement)
      llvm::outs() << "placement: " << (node.empty() ? "(unnamed)" : node)
                   << ": " << device << " (" << reason << ")\n";
  }

  /// A batch of matmuls: a static f32 contraction generic reading
  /// A[b..., m, k] and B[b..., k, n] into C[b..., m, n] (attention's), as
  /// N-D MatMul lowers.
  static bool isBatchedMatmul(linalg::GenericOp op) {
    if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
        !llvm::all_of(op->getOperands(), [](Value v) {
          auto t = cast<ShapedType>(v.getType());
          return t.hasStaticShape() && t.getElementType().isF32();
        }))
      return false;
    unsigned loops = op.getNumLoops();
    if (loops < 4)
      return false;
    unsigned batch = loops - 3;
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> b;
    for (unsigned i = 0; i < batch; ++i)
      b.push_back(getAffineDimExpr(i, ctx));
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(batch + 1, ctx),
               k = getAffineDimExpr(batch + 2, ctx);
    auto map = [&](AffineExpr x, AffineExpr y) {
      SmallVector<AffineExpr> results(b);
      results.append({x, y});
      return AffineMap::get(loops, 0, results, ctx);
    };
    return op.getIndexingMapsArray() ==
           SmallVector<AffineMap>{map(m, k), map(k, n), map(m, n)};
  }

  /// A batch of matmuls goes to the NPU as one stream over the batch, its
  /// batch dims collapsed into one.
  LogicalResult place(const NPUConfig &config, linalg::GenericOp op,
                      const llvm::StringMap<std::string> &forced) {
    auto a = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto b = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    auto c = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    int64_t rank = a.getRank();
    MatmulShape shape;
    shape.batch = 1;
    for (int64_t i = 0; i < rank - 2; ++i)
      shape.batch *= a.getDimSize(i);
    shape.m = a.getDimSize(rank - 2);
    shape.k = a.getDimSize(rank - 1);
    shape.n = b.getDimSize(rank - 1);
    shape.accumulate = !isZeroFill(op.getDpsInits()[0]);
    std::string why;
    // The f32 operands are rounded to bf16 on the CPU when the NPU
    // multiplies bf16.
    bool round = false;
    if (getMatmulInputType(config, shape, why) == ElementType::BF16) {
      shape.lhs = shape.rhs = ElementType::BF16;
      round = true;
    }
    why.clear();
    std::optional<MatmulShape> planned = shape;
    if (!floatOnNPU()) {
      why = kFloatOnCPU;
      planned.reset();
    }
    FailureOr<std::optional<MatmulTiles>> tiles =
        decide(config, op, planned, why, forced);
    if (failed(tiles))
      return failure();
    if (!*tiles)
      return success();
    OpBuilder builder(op);
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> collapse{{}, {rank - 2}, {rank - 1}};
    for (int64_t i = 0; i < rank - 2; ++i)
      collapse[0].push_back(i);
    auto flat = [&](Value v, RankedTensorType type) -> Value {
      auto to = RankedTensorType::get(
          {shape.batch, type.getDimSize(rank - 2), type.getDimSize(rank - 1)},
          type.getElementType());
      return tensor::CollapseShapeOp::create(builder, loc, to, v, collapse);
    };
    Value init = op.getDpsInits()[0];
    if (!shape.accumulate)
      init = init.getDefiningOp<linalg::FillOp>().getOutputs()[0];
    Value flatInit = flat(init, c);
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
    if (round) {
      lhs = buildBF16Copy(builder, lhs);
      rhs = buildBF16Copy(builder, rhs);
      a = cast<RankedTensorType>(lhs.getType());
      b = cast<RankedTensorType>(rhs.getType());
    }
    Value product =
        npu::MatmulOp::create(builder, loc, TypeRange{flatInit.getType()},
                              flat(lhs, a), flat(rhs, b), flatInit, Value(), npu,
                              (*tiles)->rows, (*tiles)->cols, (*tiles)->buffers,
                              (*tiles)->depth, shape.accumulate)
            .getResult()[0];
    Value result =
        tensor::ExpandShapeOp::create(builder, loc, c, product, collapse);
    op->getResult(0).replaceAllUsesWith(result);
    op.erase();
    return success();
  }

  /// Places the integer form `quantized` of `op` (when it matched and the
  /// NPU has an int8 unit) and, when it goes to the NPU, replaces `op` by
  /// what `build` makes. True when that decided `op`'s placement; false
  /// when the float path is to decide.
  template <typename Quantized, typename Build>
  FailureOr<bool> placeQuantized(const NPUConfig &config, Operation *op,
                                 const std::optional<Quantized> &quantized,
                                 const llvm::StringMap<std::string> &forced,
                                 Build build) {
    if (!quantized)
      return false;
    std::string why;
    MatmulShape shape = npu::getShape(*quantized);
    if (getMatmulInputType(config, shape, why) != ElementType::Int8)
      return false;
    FailureOr<std::optional<MatmulTiles>> tiles =
        decide(config, op, shape, why, forced, "int8");
    if (failed(tiles))
      return failure();
    if (*tiles) {
      OpBuilder b(op);
      Value result = build(b, *quantized, **tiles);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
    return true;
  }

  /// Places the integer form `q` of `op` (a convolution or matmul)
  /// requantized on the NPU, when only a bias, a relu or clip and a
  /// QuantizeLinear follow it and the NPU can requantize; the result of
  /// `build(builder, product, tiles)` then replaces the QuantizeLinear's.
  /// True when that decided the placement.
  template <typename Quantized, typename Build>
  FailureOr<bool> placeRequantized(const NPUConfig &config, Operation *op,
                                   const std::optional<Quantized> &q,
                                   const llvm::StringMap<std::string> &forced,
                                   Build build) {
    std::string why;
    if (!q || q->integerResult || !isZeroFill(op->getOperand(2)))
      return false;
    std::optional<Requantization> r =
        matchRequantization(op->getResult(0), why);
    RequantizedProduct product{npu::getShape(*q), {}, {}, {}};
    MatmulShape &shape = product.shape;
    if (!r || getMatmulInputType(config, shape, why) != ElementType::Int8 ||
        !getRequantizedShape(*q, *r, product, why))
      return false;
    int64_t cycles = -1;
    std::optional<MatmulTiles> chosen =
        chooseMatmulTiles(config, shape, why, &cycles);
    if (!chosen)
      return false; // the product alone may still fit
    // Requantizing adds vector-unit work: where that loses to the CPU, the
    // product alone may still win.
    bool lost = false;
    FailureOr<std::optional<MatmulTiles>> tiles =
        decide(config, op, shape, why, forced, "int8, requantized", chosen,
               cycles, &lost);
    if (failed(tiles))
      return failure();
    if (lost)
      return false;
    if (!*tiles)
      return true;
    OpBuilder b(op);
    linalg::GenericOp quantize = r->ops.back();
    product.resultType =
        cast<RankedTensorType>(quantize.getResult(0).getType());
    Value result = build(b, product, **tiles);
    quantize.getResult(0).replaceAllUsesWith(result);
    for (linalg::GenericOp generic : llvm::reverse(r->ops))
      generic.erase();
    op->erase();
    return true;
  }

  /// A convolution goes to the NPU as a matmul of its im2col matrix (pixels
  /// as rows, gathered and rounded to bf16 on the CPU) and its filter
  /// (transposed and rounded to bf16 when compiling), transposed back to NCHW
  /// on the CPU.
  LogicalResult place(const NPUConfig &config, linalg::Conv2DNchwFchwOp conv,
                      const llvm::StringMap<std::string> &forced) {
    // Dequantized integers are multiplied as integers when the NPU can,
    // and requantized there when only a QuantizeLinear follows.
    std::string why;
    std::optional<QuantizedConvolution> quantized =
        matchQuantizedConvolution(conv, why);
    FailureOr<bool> requantized = placeRequantized(
        config, conv, quantized, forced,
        [&](OpBuilder &b, const RequantizedProduct &p,
            const MatmulTiles &tiles) {
          return buildRequantizedNPUConvolution(b, conv, *quantized, p, npu,
                                                tiles);
        });
    if (failed(requantized) || *requantized)
      return failure(failed(requantized));
    FailureOr<bool> placed = placeQuantized(
        config, conv, quantized, forced,
        [&](OpBuilder &b, const QuantizedConvolution &q,
            const MatmulTiles &tiles) {
          return buildQuantizedNPUConvolution(b, conv, q, npu, tiles);
        });
    if (failed(placed) || *placed)
      return failure(failed(placed));
    why.clear();
    std::optional<ConvolutionAsMatmul> plan = getConvolutionAsMatmul(conv, why);
    std::optional<MatmulShape> shape;
    if (plan && !floatOnNPU()) {
      why = kFloatOnCPU;
      plan.reset();
    }
    if (plan) {
      shape = MatmulShape{
          plan->pixels,      plan->filters,    plan->depth, ElementType::BF16,
          ElementType::BF16, ElementType::F32, false};
      if (getMatmulInputType(config, *shape, why) != ElementType::BF16) {
        if (why.empty())
          why = "'" + config.name + "' has no bf16 matrix unit";
        shape.reset();
      } else {
        // The sums leave as bf16, as the next convolution would round them
        // (after the CPU's bias and activation in f32): half the bytes to
        // store, which bound ResNet's 1x1 convolutions.
        shape->roundResult = config.supportsVector("copy");
      }
    }
    // A stride-1 convolution may run direct (its input loaded once, each
    // tap a shifted matrix command) where that is faster than im2col.
    std::string ignored;
    std::optional<DirectConvolution> direct =
        shape ? getDirectConvolution(conv, ignored) : std::nullopt;
    std::optional<MatmulTiles> chosen;
    int64_t cycles = -1;
    StringRef how;
    if (shape) {
      chosen = chooseMatmulTiles(config, *shape, why, &cycles);
      if (direct) {
        int64_t directCycles = -1;
        MatmulShape directShape = direct->getShape();
        std::optional<MatmulTiles> directTiles =
            chooseMatmulTiles(config, directShape, ignored, &directCycles);
        if (directTiles && (!chosen || directCycles < cycles)) {
          chosen = directTiles;
          cycles = directCycles;
          shape = directShape;
          how = "direct";
        } else {
          direct.reset();
        }
      }
      if (!chosen)
        shape.reset();
    }
    FailureOr<std::optional<MatmulTiles>> tiles =
        decide(config, conv, shape, why, forced, how, chosen, cycles);
    if (failed(tiles))
      return failure();
    if (!*tiles)
      return success();
    OpBuilder b(conv);
    if (direct) {
      Value result = buildDirectNPUConvolution(b, conv, *direct, npu, **tiles);
      conv->getResult(0).replaceAllUsesWith(result);
      conv.erase();
      return success();
    }
    auto weightsType =
        RankedTensorType::get({plan->depth, plan->filters}, b.getBF16Type());
    Value weights = plan->transposedFilter.empty()
                        ? Value()
                        : createBF16Constant(b, conv.getLoc(), weightsType,
                                             plan->transposedFilter);
    Value result = buildConvolutionAsNPUMatmul(b, conv, *plan, weights, npu,
                                               **tiles, shape->roundResult);
    conv->getResult(0).replaceAllUsesWith(result);
    conv.erase();
    return success();
  }

  LogicalResult readPlacements(llvm::StringMap<std::string> &forced) {
    auto file = llvm::MemoryBuffer::getFile(placementFile);
    if (!file)
      return getOperation().emitError("cannot read the placement file ")
             << placementFile << ": " << file.getError().message();
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*file)->getBuffer());
    if (!json)
      return getOperation().emitError("placement file ")
             << placementFile << ": " << llvm::toString(json.takeError());
    const llvm::json::Object *object = json->getAsObject();
    if (!object)
      return getOperation().emitError("placement file ")
             << placementFile
             << " must hold an object from node names to \"cpu\" or \"npu\"";
    for (const auto &[node, device] : *object) {
      std::optional<StringRef> name = device.getAsString();
      if (!name || (*name != "cpu" && *name != "npu"))
        return getOperation().emitError("placement file ")
               << placementFile << ": node '" << node.str()
               << "' must map to \"cpu\" or \"npu\"";
      forced[node.str()] = name->str();
    }
    return success();
  }

  /// The decision for one matmul-shaped kernel of ONNX node `node`: its
  /// tiles when it goes to the NPU; nothing when it stays on the CPU;
  /// failure when the placement file forces what cannot be. With `lost`,
  /// a kernel that the time comparison alone leaves on the CPU is not
  /// reported: `*lost` is set, for the caller to try another form.
  FailureOr<std::optional<MatmulTiles>>
  decide(const NPUConfig &config, Operation *op,
         const std::optional<MatmulShape> &shape, std::string why,
         const llvm::StringMap<std::string> &forced, StringRef how = "",
         std::optional<MatmulTiles> tiles = std::nullopt, int64_t cycles = -1,
         bool *lost = nullptr) {
    std::string node = host::getNodeName(op->getLoc());
    auto [force, named] = getForced(node, forced);

    // Legality and tiles from the lowering's own planner.
    // (`tiles` and their `cycles`, when given, are the planner's choice for
    // `shape` already.)
    if (shape && !tiles)
      tiles = chooseMatmulTiles(config, *shape, why, &cycles);
    if (tiles && cycles < 0) {
      std::optional<Program> program =
          buildMatmulProgram(config, *shape, *tiles, {0, 0, 0}, why);
      if (program)
        cycles = getProgramCycles(config, *program);
    }
    if (!tiles || cycles < 0) {
      if (force == "npu" && named)
        return op->emitError("the placement file puts node '")
               << node << "' on the NPU, which cannot run it: " << why;
      report(node, "cpu", why);
      return std::optional<MatmulTiles>();
    }

    double npuSeconds = double(cycles) / (config.clockMHz * 1e6);
    double cpuSeconds = 2.0 * double(shape->batch) * double(shape->m) *
                        double(shape->n) * double(shape->k) /
                        (cpuGflops * 1e9);
    std::string estimate;
    llvm::raw_string_ostream os(estimate);
    if (!how.empty())
      os << how << ", ";
    os << "tiles " << tiles->rows << "x" << tiles->cols;
    if (tiles->getDepth(*shape) < shape->k)
      os << " by K chunks of " << tiles->getDepth(*shape);
    os << " x" << tiles->buffers << ", ~" << cycles
       << " cycles = " << llvm::format("%.2f", npuSeconds * 1e6) << " us on '"
       << config.name << "'; CPU ~" << llvm::format("%.2f", cpuSeconds * 1e6)
       << " us";
    if (lost && !force && npuSeconds >= cpuSeconds) {
      *lost = true;
      return std::optional<MatmulTiles>();
    }
    if (force == "cpu" || (!force && npuSeconds >= cpuSeconds)) {
      report(node, "cpu", force ? "placement file; " + estimate : estimate);
      return std::optional<MatmulTiles>();
    }
    report(node, "npu", force ? "placement file; " + estimate : estimate);
    return tiles;
  }

  LogicalResult place(const NPUConfig &config, linalg::MatmulOp matmul,
                      const llvm::StringMap<std::string> &forced) {
    // Dequantized integers are multiplied as integers when the NPU can,
    // and requantized there when only a QuantizeLinear follows.
    std::string why;
    std::optional<QuantizedMatmul> quantized =
        matchQuantizedMatmul(matmul, why);
    FailureOr<bool> requantized = placeRequantized(
        config, matmul, quantized, forced,
        [&](OpBuilder &b, const RequantizedProduct &p,
            const MatmulTiles &tiles) {
          return buildRequantizedNPUMatmul(b, matmul, *quantized, p, npu,
                                           tiles);
        });
    if (failed(requantized) || *requantized)
      return failure(failed(requantized));
    FailureOr<bool> placed = placeQuantized(
        config, matmul, quantized, forced,
        [&](OpBuilder &b, const QuantizedMatmul &q, const MatmulTiles &tiles) {
          return buildQuantizedNPUMatmul(b, matmul, q, npu, tiles);
        });
    if (failed(placed) || *placed)
      return failure(failed(placed));
    why.clear();
    std::optional<MatmulShape> shape = getShape(config, matmul, why);
    if (shape && shape->out == ElementType::F32 && !floatOnNPU()) {
      why = kFloatOnCPU;
      shape.reset();
    }
    FailureOr<std::optional<MatmulTiles>> tiles =
        decide(config, matmul, shape, why, forced);
    if (failed(tiles))
      return failure();
    if (!*tiles)
      return success();

    OpBuilder b(matmul);
    Value lhs = matmul.getInputs()[0], rhs = matmul.getInputs()[1];
    if (shape->lhs == ElementType::BF16 &&
        getElementTypeOrSelf(lhs.getType()).isF32())
      lhs = buildBF16Copy(b, lhs);
    if (shape->rhs == ElementType::BF16 &&
        getElementTypeOrSelf(rhs.getType()).isF32()) {
      Value constant = getBF16Constant(b, rhs);
      rhs = constant ? constant : buildBF16Copy(b, rhs);
    }
    // An overwritten init needs no fill.
    Value init = matmul.getOutputs()[0];
    if (!shape->accumulate)
      init = init.getDefiningOp<linalg::FillOp>().getOutputs()[0];
    auto onNPU = npu::MatmulOp::create(
        b, matmul.getLoc(), matmul.getResultTypes(), lhs, rhs, init, Value(),
        npu,
        (*tiles)->rows, (*tiles)->cols, (*tiles)->buffers, (*tiles)->depth,
        shape->accumulate);
    matmul->replaceAllUsesWith(onNPU);
    matmul.erase();
    return success();
  }

  /// The matmul as the planner sees it, or empty with the reason.
  std::optional<MatmulShape>
  getShape(const NPUConfig &config, linalg::MatmulOp matmul, std::string &why) {
    auto isStatic = [](Value v) {
      return cast<ShapedType>(v.getType()).hasStaticShape();
    };
    if (!matmul.hasPureTensorSemantics() ||
        !llvm::all_of(matmul->getOperands(), isStatic) ||
        matmul.getInputs().size() != 2) {
      why = "not a statically shaped matmul on tensors";
      return std::nullopt;
    }
    if (!matmul.getIndexingMaps().getValue().empty() &&
        matmul.getIndexingMapsArray() !=
            matmul.getDefaultIndexingMaps(matmul.getContext())) {
      why = "a matmul with transposed or broadcast operands";
      return std::nullopt;
    }
    auto typeOf = [](Value v) { return cast<ShapedType>(v.getType()); };
    ShapedType a = typeOf(matmul.getInputs()[0]);
    ShapedType b = typeOf(matmul.getInputs()[1]);
    ShapedType c = typeOf(matmul.getOutputs()[0]);
    std::optional<ElementType> lhs = getNPUElementType(a.getElementType());
    std::optional<ElementType> rhs = getNPUElementType(b.getElementType());
    std::optional<ElementType> out = getNPUElementType(c.getElementType());
    if (!lhs || !rhs || !out) {
      why = "element types the NPU does not have";
      return std::nullopt;
    }
    MatmulShape shape;
    shape.m = a.getDimSize(0);
    shape.k = a.getDimSize(1);
    shape.n = b.getDimSize(1);
    shape.lhs = *lhs;
    shape.rhs = *rhs;
    shape.out = *out;
    shape.accumulate = !isZeroFill(matmul.getOutputs()[0]);
    // f32 operands go to a bf16 unit as bf16: constant weights rounded
    // when compiling, other operands by the CPU before the NPU loads them.
    std::string ignored;
    if (getMatmulInputType(config, shape, ignored) == ElementType::BF16) {
      if (shape.lhs == ElementType::F32)
        shape.lhs = ElementType::BF16;
      if (shape.rhs == ElementType::F32)
        shape.rhs = ElementType::BF16;
    }
    return shape;
  }
};
} // namespace
