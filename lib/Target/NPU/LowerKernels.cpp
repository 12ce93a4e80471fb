//===- LowerKernels.cpp - NPU matmuls to command streams and launches -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/MatmulProgram.h"
#include "mlc/Target/NPU/Passes.h"
#include "mlc/Target/NPU/PoolProgram.h"
#include "mlc/Target/NPU/QuantizedAddProgram.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// Each buffer's DRAM offset: one after the other, aligned.
SmallVector<int64_t> getDRAMOffsets(ArrayRef<Value> buffers) {
  SmallVector<int64_t> offsets;
  int64_t end = 0;
  for (Value buffer : buffers) {
    offsets.push_back(end);
    end = (end + getBytes(cast<MemRefType>(buffer.getType())) + kDRAMAlignment -
           1) /
          kDRAMAlignment * kDRAMAlignment;
  }
  return offsets;
}

struct NPULowerKernelsPass
    : mlc::target::impl::NPULowerKernelsBase<NPULowerKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (isa<npu::MatmulOp, npu::QuantizedAddOp, npu::PoolOp>(op))
        kernels.push_back(op);
    });
    llvm::StringMap<NPUConfig> configs;
    for (Operation *op : kernels) {
      // Every kernel is destination-style, its one init written.
      Value init = cast<DestinationStyleOpInterface>(op).getDpsInits()[0];
      if (!isa<MemRefType>(init.getType())) {
        op->emitError("is still on tensors: bufferize first");
        return signalPassFailure();
      }
      std::string npu = op->getAttrOfType<StringAttr>("npu").str();
      auto it = configs.find(npu);
      if (it == configs.end()) {
        std::string error;
        std::optional<NPUConfig> config = loadNPUConfig(npu, error);
        if (!config) {
          op->emitError(error);
          return signalPassFailure();
        }
        it = configs.try_emplace(npu, std::move(*config)).first;
      }
      LogicalResult lowered =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<npu::MatmulOp, npu::QuantizedAddOp, npu::PoolOp>(
                  [&](auto kernel) { return lower(it->second, kernel); });
      if (failed(lowered))
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
    shape.m = out.getDimSize(rank - 2);
    shape.k = rhs.getDimSize(rank - 2);
    shape.n = rhs.getDimSize(rank - 1);
    if (std::optional<ArrayRef<int64_t>> shifts = matmul.getRowShifts())
      shape.rowShifts.assign(shifts->begin(), shifts->end());
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
    // A bf16 init takes the f32 sums rounded.
    if (shape.out == ElementType::BF16 && !matmul.getColumns()) {
      shape.out = ElementType::F32;
      shape.roundResult = true;
    }
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
    if (failed(checkContiguous(matmul, buffers)))
      return failure();

    SmallVector<int64_t> offsets = getDRAMOffsets(buffers);
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

    launch(matmul, matmul.getNpu(), *program, buffers, offsets);
    return success();
  }

  /// Fails, naming the first, when one of `buffers` is not contiguous.
  static LogicalResult checkContiguous(Operation *op, ArrayRef<Value> buffers) {
    for (Value buffer : buffers)
      if (!cast<MemRefType>(buffer.getType()).getLayout().isIdentity())
        return op->emitError("buffer ")
               << buffer.getType() << " is not contiguous: the NPU's DMA "
               << "needs the identity layout";
    return success();
  }

  LogicalResult lower(const NPUConfig &config, npu::QuantizedAddOp sum) {
    SmallVector<Value> buffers{sum.getLhs(), sum.getRhs(), sum.getInit()};
    if (failed(checkContiguous(sum, buffers)))
      return failure();
    QuantizedAddShape shape;
    shape.elements = cast<MemRefType>(sum.getInit().getType()).getNumElements();
    shape.lhsScale = sum.getLhsScale().convertToFloat();
    shape.rhsScale = sum.getRhsScale().convertToFloat();
    shape.resultScale = sum.getResultScale().convertToFloat();
    shape.lhsZeroPoint = sum.getLhsZeroPoint();
    shape.rhsZeroPoint = sum.getRhsZeroPoint();
    shape.zeroPoint = sum.getZeroPoint();
    shape.relu = sum.getRelu();
    SmallVector<int64_t> offsets = getDRAMOffsets(buffers);
    std::string why;
    std::optional<Program> program = buildQuantizedAddProgram(
        config, shape,
        QuantizedAddTiles{int64_t(sum.getTile()), int64_t(sum.getBuffers())},
        {uint64_t(offsets[0]), uint64_t(offsets[1]), uint64_t(offsets[2])},
        why);
    if (!program)
      return sum.emitError("the NPU cannot run this add: ") << why;
    launch(sum, sum.getNpu(), *program, buffers, offsets);
    return success();
  }

  LogicalResult lower(const NPUConfig &config, npu::PoolOp pool) {
    SmallVector<Value> buffers{pool.getInput(), pool.getInit()};
    if (failed(checkContiguous(pool, buffers)))
      return failure();
    auto input = cast<MemRefType>(pool.getInput().getType());
    auto output = cast<MemRefType>(pool.getInit().getType());
    std::optional<ElementType> type = getNPUElementType(input.getElementType());
    if (!type)
      return pool.emitError("an element type the NPU does not have");
    PoolShape shape;
    shape.planes = input.getDimSize(0) * input.getDimSize(1);
    shape.height = input.getDimSize(2);
    shape.width = input.getDimSize(3);
    shape.outHeight = output.getDimSize(2);
    shape.outWidth = output.getDimSize(3);
    shape.window = {pool.getWindow()[0], pool.getWindow()[1]};
    shape.strides = {pool.getStrides()[0], pool.getStrides()[1]};
    shape.pads = {pool.getPads()[0], pool.getPads()[1]};
    shape.type = *type;
    shape.average = pool.getKind() == "average";
    SmallVector<int64_t> offsets = getDRAMOffsets(buffers);
    std::string why;
    std::optional<Program> program = buildPoolProgram(
        config, shape,
        PoolTiles{int64_t(pool.getTile()), int64_t(pool.getBuffers())},
        {uint64_t(offsets[0]), uint64_t(offsets[1])}, why);
    if (!program)
      return pool.emitError("the NPU cannot run this pooling: ") << why;
    launch(pool, pool.getNpu(), *program, buffers, offsets);
    return success();
  }

  /// Puts `program` in a stream at the module's end and replaces `op` by
  /// its launch on `buffers` (at `offsets` of the NPU's DRAM; the last one
  /// written, or the third when a column table follows it).
  void launch(Operation *op, StringRef npu, const Program &program,
              ArrayRef<Value> buffers, ArrayRef<int64_t> offsets) {
    ModuleOp module = getOperation();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto function = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (function ? function.getName().str() : std::string("model")) + "_npu" +
        std::to_string(count++);
    auto programOp = ProgramOp::create(b, op->getLoc(), b.getStringAttr(name),
                                       b.getStringAttr(npu));
    programOp.getBody().emplaceBlock();
    OpBuilder body = OpBuilder::atBlockBegin(&programOp.getBody().front());
    createCommandOps(body, op->getLoc(), program);

    b.setInsertionPoint(op);
    SmallVector<bool> writes(buffers.size(), false);
    writes[std::min<size_t>(buffers.size() - 1, 2)] = true;
    LaunchOp::create(b, op->getLoc(),
                     FlatSymbolRefAttr::get(programOp.getSymNameAttr()),
                     buffers, b.getDenseI64ArrayAttr(offsets),
                     b.getDenseBoolArrayAttr(writes));
    op->erase();
  }
};
} // namespace
