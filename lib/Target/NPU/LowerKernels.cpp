//===- LowerKernels.cpp - NPU matmuls to command streams and launches -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/MatmulProgram.h"
#include "mlc/Target/NPU/Passes.h"

#include "llvm/ADT/StringMap.h"

namespace mlc::target {
#define GEN_PASS_DEF_NPULOWERKERNELS
#include "mlc/Target/NPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;
using namespace mlc::npu;

namespace {
/// DRAM buffers start on this many bytes.
constexpr int64_t kDRAMAlignment = 64;

int64_t getBytes(MemRefType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

struct NPULowerKernelsPass
    : mlc::target::impl::NPULowerKernelsBase<NPULowerKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<npu::MatmulOp> matmuls;
    module.walk([&](npu::MatmulOp m) { matmuls.push_back(m); });
    llvm::StringMap<NPUConfig> configs;
    for (npu::MatmulOp matmul : matmuls) {
      if (!isa<MemRefType>(matmul.getInit().getType())) {
        matmul.emitError("is still on tensors: bufferize first");
        return signalPassFailure();
      }
      std::string npu = matmul.getNpu().str();
      auto it = configs.find(npu);
      if (it == configs.end()) {
        std::string error;
        std::optional<NPUConfig> config = loadNPUConfig(npu, error);
        if (!config) {
          matmul.emitError(error);
          return signalPassFailure();
        }
        it = configs.try_emplace(npu, std::move(*config)).first;
      }
      if (failed(lower(it->second, matmul)))
        return signalPassFailure();
    }
  }

  /// Programs made so far, for their names.
  unsigned count = 0;

  LogicalResult lower(const NPUConfig &config, npu::MatmulOp matmul) {
    auto lhs = cast<MemRefType>(matmul.getLhs().getType());
    auto rhs = cast<MemRefType>(matmul.getRhs().getType());
    auto out = cast<MemRefType>(matmul.getInit().getType());
    MatmulShape shape;
    int64_t rank = lhs.getRank();
    shape.batch = rank == 3 ? lhs.getDimSize(0) : 1;
    shape.m = lhs.getDimSize(rank - 2);
    shape.k = lhs.getDimSize(rank - 1);
    shape.n = rhs.getDimSize(rank - 1);
    std::optional<ElementType> lhsType =
        getNPUElementType(lhs.getElementType());
    std::optional<ElementType> rhsType =
        getNPUElementType(rhs.getElementType());
    std::optional<ElementType> outType =
        getNPUElementType(out.getElementType());
    if (!lhsType || !rhsType || !outType)
      return matmul.emitError("element types the NPU does not have");
    shape.lhs = *lhsType;
    shape.rhs = *rhsType;
    shape.out = *outType;
    shape.accumulate = matmul.getAccumulate();
    // The buffers in DRAM order: lhs, rhs, out[, column table].
    SmallVector<Value> buffers{matmul.getLhs(), matmul.getRhs(),
                               matmul.getInit()};
    if (matmul.getColumns()) {
      shape.out = ElementType::Int32;
      shape.requantize = true;
      shape.relu = matmul.getRelu();
      shape.zeroPoint = matmul.getZeroPoint();
      buffers.push_back(matmul.getColumns());
    }
    for (Value buffer : buffers)
      if (!cast<MemRefType>(buffer.getType()).getLayout().isIdentity())
        return matmul.emitError("buffer ")
               << buffer.getType() << " is not contiguous: the NPU's DMA "
               << "needs the identity layout";

    SmallVector<int64_t> offsets;
    int64_t end = 0;
    for (Value buffer : buffers) {
      offsets.push_back(end);
      end = (end + getBytes(cast<MemRefType>(buffer.getType())) +
             kDRAMAlignment - 1) /
            kDRAMAlignment * kDRAMAlignment;
    }
    std::array<uint64_t, 4> dram{};
    for (size_t i = 0; i < offsets.size(); ++i)
      dram[i] = uint64_t(offsets[i]);
    std::string why;
    std::optional<Program> program = buildMatmulProgram(
        config, shape,
        MatmulTiles{int64_t(matmul.getTileRows()),
                    int64_t(matmul.getTileCols()), int64_t(matmul.getBuffers()),
                    int64_t(matmul.getTileDepth())},
        dram, why);
    if (!program)
      return matmul.emitError("the NPU cannot run this matmul: ") << why;

    // The stream at the module's end, then the launch in place of the op.
    ModuleOp module = getOperation();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto function = matmul->getParentOfType<FunctionOpInterface>();
    std::string name =
        (function ? function.getName().str() : std::string("model")) + "_npu" +
        std::to_string(count++);
    auto programOp = ProgramOp::create(b, matmul.getLoc(),
                                       b.getStringAttr(name), matmul.getNpu());
    programOp.getBody().emplaceBlock();
    OpBuilder body = OpBuilder::atBlockBegin(&programOp.getBody().front());
    createCommandOps(body, matmul.getLoc(), *program);

    b.setInsertionPoint(matmul);
    SmallVector<bool> writes(buffers.size(), false);
    writes[2] = true;
    LaunchOp::create(b, matmul.getLoc(),
                     FlatSymbolRefAttr::get(programOp.getSymNameAttr()),
                     buffers, b.getDenseI64ArrayAttr(offsets),
                     b.getDenseBoolArrayAttr(writes));
    matmul.erase();
    return success();
  }
};
} // namespace
