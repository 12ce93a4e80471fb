//===- NPUOps.cpp - mlc_npu accelerator dialect ---------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlc-runtime/NPU/Simulator.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlc::npu;

#include "mlc/Dialect/NPU/IR/NPUDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mlc/Dialect/NPU/IR/NPUAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "mlc/Dialect/NPU/IR/NPUOps.cpp.inc"

void NPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlc/Dialect/NPU/IR/NPUOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlc/Dialect/NPU/IR/NPUAttrs.cpp.inc"
      >();
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t localMemoryBytes, int64_t arrayRows,
                                 int64_t arrayCols, int64_t dmaChannels) {
  if (localMemoryBytes <= 0 || arrayRows <= 0 || arrayCols <= 0 ||
      dmaChannels <= 0)
    return emitError()
           << "NPU resources must be positive (local_memory_bytes = "
           << localMemoryBytes << ", array = " << arrayRows << "x" << arrayCols
           << ", dma_channels = " << dmaChannels << ")";
  return success();
}

LogicalResult DmaCopyOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (source.getElementType() != target.getElementType())
    return emitOpError("copies ")
           << source.getElementType() << " into " << target.getElementType();
  if (failed(verifyCompatibleShape(source.getShape(), target.getShape())))
    return emitOpError("source shape ")
           << source << " differs from target shape " << target;
  return success();
}

namespace {
/// A copy of a buffer onto itself does nothing.
struct EraseSelfCopy : OpRewritePattern<DmaCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaCopyOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getSource() != op.getTarget())
      return rewriter.notifyMatchFailure(op, "distinct buffers");
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void DmaCopyOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<EraseSelfCopy>(context);
}

LogicalResult MatmulOp::verify() {
  auto a = cast<MemRefType>(getLhs().getType());
  auto b = cast<MemRefType>(getRhs().getType());
  auto c = cast<MemRefType>(getAcc().getType());
  auto conflict = [](int64_t x, int64_t y) {
    return !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y;
  };
  if (conflict(a.getDimSize(1), b.getDimSize(0)))
    return emitOpError("lhs ")
           << a << " and rhs " << b << " disagree on the contracting dim";
  if (conflict(a.getDimSize(0), c.getDimSize(0)) ||
      conflict(b.getDimSize(1), c.getDimSize(1)))
    return emitOpError("accumulator ")
           << c << " is not [M, N] of lhs " << a << " and rhs " << b;
  if (a.getElementType() != b.getElementType())
    return emitOpError("lhs and rhs element types differ");
  return success();
}

//===----------------------------------------------------------------------===//
// Command streams
//===----------------------------------------------------------------------===//

namespace {
FailureOr<ElementType> getElementType(Operation *op, Type type) {
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
  return op->emitOpError("element type ")
         << type << " is not one of i8, i32, bf16, f16, f32";
}

FailureOr<Memory> getMemory(Operation *op, StringRef name) {
  if (name == "scratchpad")
    return Memory::Scratchpad;
  if (name == "accumulator")
    return Memory::Accumulator;
  return op->emitOpError("memory '") << name
                                     << "' is not scratchpad or accumulator";
}

/// A non-negative integer attribute that fits `T`.
template <typename T>
FailureOr<T> getField(Operation *op, StringRef name, int64_t value) {
  if (value < 0 || uint64_t(value) > uint64_t(std::numeric_limits<T>::max()))
    return op->emitOpError() << name << " = " << value
                             << " does not fit the command's field";
  return T(value);
}

LogicalResult setTokens(Operation *op, ArrayAttr wait, int64_t signal,
                        Command &c) {
  for (Attribute a : wait) {
    int64_t t = cast<IntegerAttr>(a).getInt();
    if (t < 0 || t >= int64_t(kNumTokens))
      return op->emitOpError("waits for token ")
             << t << ", not one of 0-" << kNumTokens - 1;
    c.waitMask |= uint16_t(1u << t);
  }
  if (signal < -1 || signal >= int64_t(kNumTokens))
    return op->emitOpError("signals token ")
           << signal << ", not one of 0-" << kNumTokens - 1;
  c.signal = int8_t(signal);
  return success();
}

/// Load and store share their fields.
template <typename TransferOp>
FailureOr<Command> getTransfer(TransferOp op, Opcode opcode) {
  Command c;
  c.opcode = opcode;
  FailureOr<ElementType> type = getElementType(op, op.getElementType());
  FailureOr<Memory> memory = getMemory(op, op.getMemory());
  FailureOr<uint64_t> dram = getField<uint64_t>(op, "dram", op.getDram());
  FailureOr<uint32_t> local = getField<uint32_t>(op, "local", op.getLocal());
  FailureOr<uint32_t> rows = getField<uint32_t>(op, "rows", op.getRows());
  FailureOr<uint32_t> cols = getField<uint32_t>(op, "cols", op.getCols());
  FailureOr<uint32_t> stride =
      getField<uint32_t>(op, "dram_stride", op.getDramStride());
  if (failed(type) || failed(memory) || failed(dram) || failed(local) ||
      failed(rows) || failed(cols) || failed(stride))
    return failure();
  c.type = *type;
  c.memory = *memory;
  c.dram = *dram;
  c.local = *local;
  c.rows = *rows;
  c.cols = *cols;
  c.dramStride = *stride;
  return c;
}

FailureOr<Command> getCommand(Operation *op) {
  FailureOr<Command> c;
  if (auto load = dyn_cast<LoadOp>(op))
    c = getTransfer(load, Opcode::Load);
  else if (auto store = dyn_cast<StoreOp>(op))
    c = getTransfer(store, Opcode::Store);
  else if (auto mma = dyn_cast<MmaOp>(op)) {
    Command m;
    m.opcode = Opcode::Matmul;
    FailureOr<ElementType> type = getElementType(op, mma.getElementType());
    FailureOr<uint32_t> a = getField<uint32_t>(op, "a", mma.getA());
    FailureOr<uint32_t> b = getField<uint32_t>(op, "b", mma.getB());
    FailureOr<uint32_t> out = getField<uint32_t>(op, "c", mma.getC());
    FailureOr<uint32_t> rows = getField<uint32_t>(op, "rows", mma.getRows());
    FailureOr<uint32_t> cols = getField<uint32_t>(op, "cols", mma.getCols());
    FailureOr<uint32_t> depth =
        getField<uint32_t>(op, "depth", mma.getDepth());
    if (failed(type) || failed(a) || failed(b) || failed(out) ||
        failed(rows) || failed(cols) || failed(depth))
      return failure();
    m.type = *type;
    m.local = *a;
    m.local2 = *b;
    m.local3 = *out;
    m.rows = *rows;
    m.cols = *cols;
    m.depth = *depth;
    m.accumulate = mma.getAccumulate();
    c = m;
  } else if (auto vector = dyn_cast<VectorOp>(op)) {
    Command v;
    v.opcode = Opcode::Vector;
    std::optional<VectorKind> kind =
        llvm::StringSwitch<std::optional<VectorKind>>(vector.getOp())
            .Case("relu", VectorKind::Relu)
            .Case("add", VectorKind::Add)
            .Case("requantize", VectorKind::Requantize)
            .Case("copy", VectorKind::Copy)
            .Default(std::nullopt);
    if (!kind)
      return op->emitOpError("op '")
             << vector.getOp() << "' is not relu, add, requantize or copy";
    FailureOr<ElementType> type = getElementType(op, vector.getElementType());
    FailureOr<ElementType> resultType =
        getElementType(op, vector.getResultType());
    FailureOr<Memory> memory = getMemory(op, vector.getMemory());
    FailureOr<Memory> resultMemory = getMemory(op, vector.getResultMemory());
    FailureOr<uint32_t> source =
        getField<uint32_t>(op, "source", vector.getSource());
    FailureOr<uint32_t> source2 =
        getField<uint32_t>(op, "source2", vector.getSource2());
    FailureOr<uint32_t> result =
        getField<uint32_t>(op, "result", vector.getResult());
    FailureOr<uint32_t> rows = getField<uint32_t>(op, "rows", vector.getRows());
    FailureOr<uint32_t> cols = getField<uint32_t>(op, "cols", vector.getCols());
    if (failed(type) || failed(resultType) || failed(memory) ||
        failed(resultMemory) || failed(source) || failed(source2) ||
        failed(result) || failed(rows) || failed(cols))
      return failure();
    int64_t zeroPoint = vector.getZeroPoint();
    if (zeroPoint < INT32_MIN || zeroPoint > INT32_MAX)
      return op->emitOpError("zero_point ") << zeroPoint << " is not an i32";
    v.vectorOp = *kind;
    v.type = *type;
    v.dstType = *resultType;
    v.memory = *memory;
    v.dstMemory = *resultMemory;
    v.local = *source;
    v.local2 = *source2;
    v.local3 = *result;
    v.rows = *rows;
    v.cols = *cols;
    v.scale = vector.getScale().convertToFloat();
    v.zeroPoint = int32_t(zeroPoint);
    c = v;
  } else {
    return op->emitOpError("is not an NPU command");
  }
  if (failed(c) || failed(setTokens(op, op->getAttrOfType<ArrayAttr>("wait"),
                                    op->getAttrOfType<IntegerAttr>("signal")
                                        .getInt(),
                                    *c)))
    return failure();
  return c;
}
} // namespace

FailureOr<Program> mlc::npu::getCommands(ProgramOp program) {
  Program commands;
  for (Operation &op : program.getBody().front()) {
    FailureOr<Command> command = getCommand(&op);
    if (failed(command))
      return failure();
    commands.commands.push_back(*command);
  }
  return commands;
}

LogicalResult ProgramOp::verifyRegions() {
  std::string error;
  std::optional<NPUConfig> config = loadNPUConfig(getNpu().str(), error);
  if (!config)
    return emitOpError(error);
  for (Operation &op : getBody().front()) {
    FailureOr<Command> command = getCommand(&op);
    if (failed(command))
      return failure();
    std::string problem = validateCommand(*config, *command);
    if (!problem.empty())
      return op.emitOpError() << "on '" << config->name << "': " << problem;
  }
  return success();
}
