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

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlc::npu;

#include "mlc/Dialect/NPU/IR/NPUDialect.cpp.inc"
#define GET_OP_CLASSES
#include "mlc/Dialect/NPU/IR/NPUOps.cpp.inc"

void NPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlc/Dialect/NPU/IR/NPUOps.cpp.inc"
      >();
}

std::optional<ElementType> mlc::npu::getNPUElementType(Type type) {
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

namespace {
/// The static [rows, cols] of a matrix or of each matrix of a batch, with
/// the batch size (1 for a matrix).
std::optional<std::pair<int64_t, int64_t>> getMatrixShape(Type type,
                                                          int64_t *batch) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() || shaped.getRank() < 2 ||
      shaped.getRank() > 3)
    return std::nullopt;
  *batch = shaped.getRank() == 3 ? shaped.getDimSize(0) : 1;
  int64_t r = shaped.getRank();
  return std::make_pair(shaped.getDimSize(r - 2), shaped.getDimSize(r - 1));
}
} // namespace

LogicalResult MatmulOp::verify() {
  int64_t batchA, batchB, batchC;
  auto a = getMatrixShape(getLhs().getType(), &batchA);
  auto b = getMatrixShape(getRhs().getType(), &batchB);
  auto c = getMatrixShape(getInit().getType(), &batchC);
  if (!a || !b || !c)
    return emitOpError(
        "operands must be statically shaped matrices or batches of them");
  auto rank = [](Value v) { return cast<ShapedType>(v.getType()).getRank(); };
  if (rank(getLhs()) != rank(getRhs()) || rank(getLhs()) != rank(getInit()) ||
      batchA != batchB || batchA != batchC)
    return emitOpError("operands must be batches of the same size");
  int64_t taps = 1, maxShift = 0;
  if (std::optional<ArrayRef<int64_t>> shifts = getRowShifts()) {
    taps = int64_t(shifts->size());
    if (shifts->empty() || batchA != 1 ||
        llvm::any_of(*shifts, [](int64_t s) { return s < 0; }))
      return emitOpError("row shifts must be one or more, none negative, "
                         "without a batch");
    maxShift = *llvm::max_element(*shifts);
  }
  if (a->second * taps != b->first)
    return emitOpError("lhs ")
           << getLhs().getType() << " and rhs " << getRhs().getType()
           << " disagree on the contracting dim";
  if (a->first != c->first + maxShift || b->second != c->second)
    return emitOpError("init ")
           << getInit().getType() << " is not [M, N] of lhs "
           << getLhs().getType() << " and rhs " << getRhs().getType();
  bool tensors = isa<RankedTensorType>(getInit().getType());
  if (tensors != (getNumResults() == 1) ||
      (tensors && getResult()[0].getType() != getInit().getType()))
    return emitOpError("yields the init's type on tensors and nothing on "
                       "buffers");
  if (getTileRows() < 1 || getTileCols() < 1)
    return emitOpError("tiles must be positive, not ")
           << getTileRows() << "x" << getTileCols();
  if (getTileDepth() < 0)
    return emitOpError("tile depth must not be negative, not ")
           << getTileDepth();
  if (getBuffers() < 2)
    return emitOpError("needs at least two buffers of each tile, not ")
           << getBuffers();
  if (Value columns = getColumns()) {
    auto type = cast<ShapedType>(columns.getType());
    if (!type.hasStaticShape() || type.getRank() != 2 ||
        type.getDimSize(0) != c->second || type.getDimSize(1) != 2 ||
        !type.getElementType().isInteger(32) ||
        !getElementTypeOrSelf(getInit().getType()).isInteger(8) ||
        !getElementTypeOrSelf(getLhs().getType()).isInteger(8) ||
        getAccumulate())
      return emitOpError("requantizes int8 operands into an i8 init that "
                         "it overwrites, with a column table of [N = ")
             << c->second << ", 2] i32";
  } else if (getRelu() || getZeroPoint() != 0) {
    return emitOpError("has a relu or zero point only when it requantizes");
  } else if (getElementTypeOrSelf(getInit().getType()).isBF16() &&
             (getAccumulate() ||
              getElementTypeOrSelf(getLhs().getType()).isInteger(8))) {
    return emitOpError("rounds float sums into a bf16 init that it "
                       "overwrites");
  }
  return success();
}

namespace {
/// A kernel on buffers reads its other operands and writes `init` (reading
/// it too when `readsInit`); on tensors it has no effects.
void getKernelEffects(
    Operation *op, OpOperand &init, bool readsInit,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(init.get().getType()))
    return;
  for (OpOperand &operand : op->getOpOperands())
    if (&operand != &init && isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  if (readsInit)
    effects.emplace_back(MemoryEffects::Read::get(), &init,
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &init,
                       SideEffects::DefaultResource::get());
}

/// What every vector-unit kernel checks: a result of the init's type on
/// tensors and none on buffers, positive tiles, two buffers or more.
LogicalResult verifyVectorKernel(Operation *op, Value init, int64_t tile,
                                 int64_t buffers) {
  bool tensors = isa<RankedTensorType>(init.getType());
  if (tensors != (op->getNumResults() == 1) ||
      (tensors && op->getResult(0).getType() != init.getType()))
    return op->emitOpError("yields the init's type on tensors and nothing on "
                           "buffers");
  if (tile < 1)
    return op->emitOpError("tiles must be positive, not ") << tile;
  if (buffers < 2)
    return op->emitOpError("needs at least two buffers of each tile, not ")
           << buffers;
  return success();
}
} // namespace

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getKernelEffects(*this, getInitMutable(), /*readsInit=*/true, effects);
}

LogicalResult QuantizedAddOp::verify() {
  for (Value v : {getLhs(), getRhs(), getInit()}) {
    auto type = cast<ShapedType>(v.getType());
    if (!type.hasStaticShape() || !type.getElementType().isInteger(8) ||
        type.getShape() != cast<ShapedType>(getInit().getType()).getShape())
      return emitOpError("operands must be i8 arrays of one static shape, "
                         "not ")
             << v.getType();
  }
  for (float scale :
       {getLhsScale().convertToFloat(), getRhsScale().convertToFloat(),
        getResultScale().convertToFloat()})
    if (!(scale > 0) || !std::isfinite(scale))
      return emitOpError("scales must be positive and finite, not ") << scale;
  return verifyVectorKernel(*this, getInit(), getTile(), getBuffers());
}

void QuantizedAddOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getKernelEffects(*this, getInitMutable(), /*readsInit=*/false, effects);
}

LogicalResult PoolOp::verify() {
  auto input = cast<ShapedType>(getInput().getType());
  auto init = cast<ShapedType>(getInit().getType());
  if (!input.hasStaticShape() || !init.hasStaticShape() ||
      input.getRank() != 4 || init.getRank() != 4 ||
      input.getElementType() != init.getElementType() ||
      input.getDimSize(0) != init.getDimSize(0) ||
      input.getDimSize(1) != init.getDimSize(1))
    return emitOpError("input and init must be static NCHW arrays of one "
                       "element type, images and channels, not ")
           << input << " and " << init;
  if (getKind() != "max" && getKind() != "average")
    return emitOpError("kind must be \"max\" or \"average\", not \"")
           << getKind() << "\"";
  if (getKind() == "average" && !isa<FloatType>(input.getElementType()))
    return emitOpError("averages floats, not ") << input.getElementType();
  ArrayRef<int64_t> window = getWindow(), strides = getStrides(),
                    pads = getPads();
  if (window.size() != 2 || strides.size() != 2 || pads.size() != 2)
    return emitOpError("window, strides and pads are pairs (rows, columns)");
  for (int d = 0; d < 2; ++d) {
    int64_t in = input.getDimSize(2 + d), out = init.getDimSize(2 + d);
    // Every window reaches into the input.
    if (window[d] < 1 || strides[d] < 1 || pads[d] < 0 ||
        pads[d] >= window[d] || (out - 1) * strides[d] - pads[d] >= in)
      return emitOpError("a window of ")
             << window[d] << " every " << strides[d] << " from " << -pads[d]
             << " does not give " << out << " outputs within " << in;
  }
  return verifyVectorKernel(*this, getInit(), getTile(), getBuffers());
}

void PoolOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getKernelEffects(*this, getInitMutable(), /*readsInit=*/false, effects);
}

LogicalResult LaunchOp::verify() {
  size_t n = getBuffers().size();
  if (getDramOffsets().size() != n || getWrites().size() != n)
    return emitOpError("needs one DRAM offset and one write flag per buffer");
  for (Value buffer : getBuffers()) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return emitOpError("buffer ")
             << type << " must have a static shape and the identity layout";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Command streams
//===----------------------------------------------------------------------===//

namespace {
FailureOr<ElementType> getElementType(Operation *op, Type type) {
  if (std::optional<ElementType> t = getNPUElementType(type))
    return *t;
  return op->emitOpError("element type ")
         << type << " is not one of i8, i32, bf16, f16, f32";
}

FailureOr<Memory> getMemory(Operation *op, StringRef name) {
  if (name == "scratchpad")
    return Memory::Scratchpad;
  if (name == "accumulator")
    return Memory::Accumulator;
  return op->emitOpError("memory '")
         << name << "' is not scratchpad or accumulator";
}

/// A non-negative integer attribute that fits `T`.
template <typename T>
FailureOr<T> getField(Operation *op, StringRef name, int64_t value) {
  if (value < 0 || uint64_t(value) > uint64_t(std::numeric_limits<T>::max()))
    return op->emitOpError()
           << name << " = " << value << " does not fit the command's field";
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

/// A max_pool command's plane rows and window: pairs that fit their
/// fields (bytes for the window, its steps and pads; 16 bits for the result
/// plane).
LogicalResult getPoolWindow(VectorOp vector, Command &c) {
  FailureOr<uint32_t> planeRows =
      getField<uint32_t>(vector, "plane_rows", vector.getPlaneRows());
  if (failed(planeRows))
    return failure();
  c.depth = *planeRows;
  auto pair = [&](StringRef name, ArrayRef<int64_t> values, int64_t max,
                  auto &first, auto &second) -> LogicalResult {
    if (values.size() != 2 ||
        llvm::any_of(values, [&](int64_t v) { return v < 0 || v > max; }))
      return vector.emitOpError(name)
             << " must be two integers in [0, " << max << "]";
    first = std::remove_reference_t<decltype(first)>(values[0]);
    second = std::remove_reference_t<decltype(second)>(values[1]);
    return success();
  };
  Window &w = c.window;
  return success(
      succeeded(pair("window", vector.getWindow(), 255, w.rows, w.cols)) &&
      succeeded(pair("window_strides", vector.getWindowStrides(), 255,
                     w.strideRows, w.strideCols)) &&
      succeeded(pair("window_pads", vector.getWindowPads(), 255, w.padTop,
                     w.padLeft)) &&
      succeeded(pair("result_plane", vector.getResultPlane(), 65535, w.outRows,
                     w.outCols)));
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
    FailureOr<uint32_t> depth = getField<uint32_t>(op, "depth", mma.getDepth());
    if (failed(type) || failed(a) || failed(b) || failed(out) || failed(rows) ||
        failed(cols) || failed(depth))
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
            .Case("requantize_columns", VectorKind::RequantizeColumns)
            .Case("requantize_columns_relu", VectorKind::RequantizeColumnsRelu)
            .Case("dequantize", VectorKind::Dequantize)
            .Case("max_pool", VectorKind::MaxPool)
            .Case("average_pool", VectorKind::AveragePool)
            .Default(std::nullopt);
    if (!kind)
      return op->emitOpError("op '")
             << vector.getOp()
             << "' is not relu, add, requantize, copy, requantize_columns, "
                "requantize_columns_relu, dequantize, max_pool or "
                "average_pool";
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
    if (*kind == VectorKind::MaxPool || *kind == VectorKind::AveragePool) {
      if (failed(getPoolWindow(vector, v)))
        return failure();
    } else if (!vector.getWindow().empty() ||
               !vector.getWindowStrides().empty() ||
               !vector.getWindowPads().empty() ||
               !vector.getResultPlane().empty() || vector.getPlaneRows()) {
      return op->emitOpError("only a pooling has a window");
    }
    c = v;
  } else {
    return op->emitOpError("is not an NPU command");
  }
  if (failed(c) ||
      failed(setTokens(op, op->getAttrOfType<ArrayAttr>("wait"),
                       op->getAttrOfType<IntegerAttr>("signal").getInt(), *c)))
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

namespace {
Type getMLIRType(Builder &b, ElementType type) {
  switch (type) {
  case ElementType::Int8:
    return b.getIntegerType(8);
  case ElementType::Int32:
    return b.getIntegerType(32);
  case ElementType::BF16:
    return b.getBF16Type();
  case ElementType::F16:
    return b.getF16Type();
  case ElementType::F32:
    return b.getF32Type();
  }
  return b.getF32Type();
}

StringRef getMemoryName(Memory memory) {
  return memory == Memory::Accumulator ? "accumulator" : "scratchpad";
}

StringRef getVectorName(VectorKind kind) {
  switch (kind) {
  case VectorKind::Relu:
    return "relu";
  case VectorKind::Add:
    return "add";
  case VectorKind::Requantize:
    return "requantize";
  case VectorKind::Copy:
    return "copy";
  case VectorKind::RequantizeColumns:
    return "requantize_columns";
  case VectorKind::RequantizeColumnsRelu:
    return "requantize_columns_relu";
  case VectorKind::Dequantize:
    return "dequantize";
  case VectorKind::MaxPool:
    return "max_pool";
  case VectorKind::AveragePool:
    return "average_pool";
  }
  return "copy";
}
} // namespace

void mlc::npu::createCommandOps(OpBuilder &b, Location loc,
                                const Program &program) {
  for (const Command &c : program.commands) {
    SmallVector<int64_t> wait;
    for (unsigned t = 0; t < kNumTokens; ++t)
      if (c.waitMask & (1u << t))
        wait.push_back(t);
    ArrayAttr waitAttr = b.getI64ArrayAttr(wait);
    IntegerAttr signal = b.getI64IntegerAttr(c.signal);
    TypeAttr type = TypeAttr::get(getMLIRType(b, c.type));
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    switch (c.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      auto memory = b.getStringAttr(getMemoryName(c.memory));
      if (c.opcode == Opcode::Load)
        LoadOp::create(b, loc, type, i64(c.dram), i64(c.local), i64(c.rows),
                       i64(c.cols), i64(c.dramStride), memory, waitAttr,
                       signal);
      else
        StoreOp::create(b, loc, type, i64(c.dram), i64(c.local), i64(c.rows),
                        i64(c.cols), i64(c.dramStride), memory, waitAttr,
                        signal);
      break;
    }
    case Opcode::Matmul:
      MmaOp::create(b, loc, type, i64(c.local), i64(c.local2), i64(c.local3),
                    i64(c.rows), i64(c.cols), i64(c.depth),
                    c.accumulate ? b.getUnitAttr() : UnitAttr(), waitAttr,
                    signal);
      break;
    case Opcode::Vector: {
      const Window &w = c.window;
      bool pool = c.vectorOp == VectorKind::MaxPool ||
                  c.vectorOp == VectorKind::AveragePool;
      auto pair = [&](int64_t first, int64_t second) {
        return b.getDenseI64ArrayAttr(pool ? ArrayRef<int64_t>{first, second}
                                           : ArrayRef<int64_t>{});
      };
      VectorOp::create(b, loc, b.getStringAttr(getVectorName(c.vectorOp)), type,
                       TypeAttr::get(getMLIRType(b, c.dstType)), i64(c.local),
                       i64(c.local2), i64(c.local3), i64(c.rows), i64(c.cols),
                       b.getStringAttr(getMemoryName(c.memory)),
                       b.getStringAttr(getMemoryName(c.dstMemory)),
                       b.getF32FloatAttr(c.scale), i64(c.zeroPoint),
                       i64(pool ? c.depth : 0), pair(w.rows, w.cols),
                       pair(w.strideRows, w.strideCols),
                       pair(w.padTop, w.padLeft), pair(w.outRows, w.outCols),
                       waitAttr, signal);
      break;
    }
    }
  }
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
