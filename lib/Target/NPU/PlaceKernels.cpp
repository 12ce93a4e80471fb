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

#include "mlc/Target/NPU/MatmulProgram.h"
#include "mlc/Target/NPU/Passes.h"

#include "mlc-runtime/NPU/Simulator.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
std::optional<ElementType> getNPUType(Type type) {
  if (type.isInteger(8))
    return ElementType::Int8;
  if (type.isInteger(32))
    return ElementType::Int32;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF16())
    return ElementType::F16;
  if (type.isF32())
    return ElementType::F32;
  return std::nullopt;
}

/// The ONNX node an op came from: the first name in its location.
std::string getNodeName(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// Whether `init` is all zeros (then the NPU overwrites it).
bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// `value` rounded to bf16 at compile time when it is an f32 constant (the
/// NPU's conversion, to nearest even), so that the NPU loads half the bytes
/// and converts nothing; else null.
Value getBF16Constant(OpBuilder &b, Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return nullptr;
  SmallVector<float> floats;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    for (float f : dense.getValues<float>())
      floats.push_back(f);
  } else if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data)
      return nullptr;
    floats.assign(data->begin(), data->end());
  } else {
    return nullptr;
  }
  SmallVector<uint16_t> rounded;
  rounded.reserve(floats.size());
  for (float f : floats)
    rounded.push_back(roundToBF16(f));
  auto type = cast<RankedTensorType>(value.getType()).clone(b.getBF16Type());
  auto data = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(rounded.data()),
                           rounded.size() * sizeof(uint16_t)));
  return arith::ConstantOp::create(b, value.getLoc(), data);
}

struct NPUPlaceKernelsPass
    : mlc::target::impl::NPUPlaceKernelsBase<NPUPlaceKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    std::optional<NPUConfig> config = loadNPUConfig(npu, error);
    if (!config) {
      getOperation().emitError("--npu-config: ") << error;
      return signalPassFailure();
    }
    llvm::StringMap<std::string> forced;
    if (!placementFile.empty() && failed(readPlacements(forced)))
      return signalPassFailure();

    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp m) { matmuls.push_back(m); });
    for (linalg::MatmulOp matmul : matmuls)
      if (failed(place(*config, matmul, forced)))
        return signalPassFailure();
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

  LogicalResult place(const NPUConfig &config, linalg::MatmulOp matmul,
                      const llvm::StringMap<std::string> &forced) {
    std::string node = getNodeName(matmul.getLoc());
    auto report = [&](StringRef device, const std::string &why) {
      if (printPlacement)
        llvm::outs() << "placement: " << (node.empty() ? "(unnamed)" : node)
                     << ": " << device << " (" << why << ")\n";
    };
    auto forcedIt = forced.find(node);
    std::optional<StringRef> force;
    if (forcedIt != forced.end())
      force = forcedIt->second;

    // Legality and tiles from the lowering's own planner.
    std::string why;
    std::optional<MatmulShape> shape = getShape(matmul, why);
    std::optional<MatmulTiles> tiles;
    std::optional<Program> program;
    if (shape)
      tiles = chooseMatmulTiles(config, *shape, why);
    if (tiles)
      program = buildMatmulProgram(config, *shape, *tiles, {0, 0, 0}, why);
    if (!program) {
      if (force == "npu")
        return matmul.emitError("the placement file puts node '")
               << node << "' on the NPU, which cannot run it: " << why;
      report("cpu", why);
      return success();
    }

    int64_t cycles = estimateCycles(config, *program);
    double npuSeconds = double(cycles) / (config.clockMHz * 1e6);
    double cpuSeconds =
        2.0 * double(shape->m) * double(shape->n) * double(shape->k) /
        (cpuGflops * 1e9);
    std::string estimate;
    llvm::raw_string_ostream os(estimate);
    os << "tiles " << tiles->rows << "x" << tiles->cols << " x"
       << tiles->buffers << ", ~" << cycles
       << " cycles = " << llvm::format("%.2f", npuSeconds * 1e6)
       << " us on '" << config.name << "'; CPU ~"
       << llvm::format("%.2f", cpuSeconds * 1e6) << " us";
    if (force == "cpu" || (!force && npuSeconds >= cpuSeconds)) {
      report("cpu", force ? "placement file; " + estimate : estimate);
      return success();
    }
    report("npu", force ? "placement file; " + estimate : estimate);

    OpBuilder b(matmul);
    Value lhs = matmul.getInputs()[0], rhs = matmul.getInputs()[1];
    if (std::optional<ElementType> input =
            getMatmulInputType(config, *shape, why);
        input == ElementType::BF16 && shape->rhs == ElementType::F32)
      if (Value rounded = getBF16Constant(b, rhs))
        rhs = rounded;
    // An overwritten init needs no fill.
    Value init = matmul.getOutputs()[0];
    if (!shape->accumulate)
      init = init.getDefiningOp<linalg::FillOp>().getOutputs()[0];
    auto placed = npu::MatmulOp::create(
        b, matmul.getLoc(), matmul.getResultTypes(), lhs, rhs, init, npu,
        tiles->rows, tiles->cols, tiles->buffers, shape->accumulate);
    matmul->replaceAllUsesWith(placed);
    matmul.erase();
    return success();
  }

  /// The matmul as the planner sees it, or empty with the reason.
  std::optional<MatmulShape> getShape(linalg::MatmulOp matmul,
                                      std::string &why) {
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
        matmul.getIndexingMapsArray() != matmul.getDefaultIndexingMaps(
                                             matmul.getContext())) {
      why = "a matmul with transposed or broadcast operands";
      return std::nullopt;
    }
    auto typeOf = [](Value v) {
      return cast<ShapedType>(v.getType());
    };
    ShapedType a = typeOf(matmul.getInputs()[0]);
    ShapedType b = typeOf(matmul.getInputs()[1]);
    ShapedType c = typeOf(matmul.getOutputs()[0]);
    std::optional<ElementType> lhs = getNPUType(a.getElementType());
    std::optional<ElementType> rhs = getNPUType(b.getElementType());
    std::optional<ElementType> out = getNPUType(c.getElementType());
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
    return shape;
  }
};
} // namespace
