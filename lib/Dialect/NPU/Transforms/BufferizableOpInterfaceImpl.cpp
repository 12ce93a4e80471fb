//===- BufferizableOpInterfaceImpl.cpp - NPU kernels in bufferization -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/NPU/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlc::npu;

namespace {
/// The buffer of `value`, with the identity layout: a strided view is
/// copied (when `read`) into a new buffer.
FailureOr<Value> getContiguousBuffer(RewriterBase &rewriter, Location loc,
                                     Value value, bool read,
                                     const BufferizationOptions &options,
                                     const BufferizationState &state) {
  FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
  if (failed(buffer))
    return failure();
  auto type = cast<MemRefType>(buffer->getType());
  if (type.getLayout().isIdentity())
    return buffer;
  auto contiguous =
      MemRefType::get(type.getShape(), type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  FailureOr<Value> copy =
      options.createAlloc(rewriter, loc, contiguous, ValueRange());
  if (failed(copy))
    return failure();
  if (read && failed(options.createMemCpy(rewriter, loc, *buffer, *copy)))
    return failure();
  return copy;
}

/// Replaces `op` by the same op on `operands` (contiguous buffers, `out`
/// among them in place of the init), copying `out` into the init's buffer
/// when they differ.
LogicalResult replaceWithBufferOp(RewriterBase &rewriter, Operation *op,
                                  ValueRange operands, Value out, Value init,
                                  const BufferizationOptions &options) {
  OperationState state(op->getLoc(), op->getName(), operands, TypeRange(),
                       op->getAttrs());
  rewriter.create(state);
  if (out != init) {
    rewriter.setInsertionPointAfter(op);
    if (failed(options.createMemCpy(rewriter, op->getLoc(), out, init)))
      return failure();
  }
  replaceOpWithBufferizedValues(rewriter, op, init);
  return success();
}

struct MatmulOpInterface
    : DstBufferizableOpInterfaceExternalModel<MatmulOpInterface, MatmulOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto matmul = cast<MatmulOp>(op);
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> lhs = getContiguousBuffer(rewriter, loc, matmul.getLhs(),
                                               true, options, state);
    FailureOr<Value> rhs = getContiguousBuffer(rewriter, loc, matmul.getRhs(),
                                               true, options, state);
    FailureOr<Value> init =
        getBuffer(rewriter, matmul.getInit(), options, state);
    if (failed(lhs) || failed(rhs) || failed(init))
      return failure();
    Value columns;
    if (matmul.getColumns()) {
      FailureOr<Value> c = getContiguousBuffer(
          rewriter, loc, matmul.getColumns(), true, options, state);
      if (failed(c))
        return failure();
      columns = *c;
    }
    FailureOr<Value> out =
        getContiguousBuffer(rewriter, loc, matmul.getInit(),
                            matmul.getAccumulate(), options, state);
    if (failed(out))
      return failure();
    SmallVector<Value> operands{*lhs, *rhs, *out};
    if (columns)
      operands.push_back(columns);
    return replaceWithBufferOp(rewriter, op, operands, *out, *init, options);
  }
};

/// A kernel that reads its inputs whole and only writes its init (the
/// quantized add, max pooling): each input as a contiguous buffer, the
/// result into one.
template <typename OpTy>
struct InputsToInitOpInterface
    : DstBufferizableOpInterfaceExternalModel<InputsToInitOpInterface<OpTy>,
                                              OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto kernel = cast<OpTy>(op);
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands;
    for (Value input : kernel.getDpsInputs()) {
      FailureOr<Value> buffer =
          getContiguousBuffer(rewriter, loc, input, true, options, state);
      if (failed(buffer))
        return failure();
      operands.push_back(*buffer);
    }
    FailureOr<Value> init =
        getBuffer(rewriter, kernel.getInit(), options, state);
    FailureOr<Value> out = getContiguousBuffer(rewriter, loc, kernel.getInit(),
                                               false, options, state);
    if (failed(init) || failed(out))
      return failure();
    operands.push_back(*out);
    return replaceWithBufferOp(rewriter, op, operands, *out, *init, options);
  }

  /// The init is only written.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &state) const {
    return &operand != &cast<OpTy>(op).getInitMutable();
  }
};
} // namespace

void mlc::npu::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    MatmulOp::attachInterface<MatmulOpInterface>(*ctx);
    QuantizedAddOp::attachInterface<InputsToInitOpInterface<QuantizedAddOp>>(
        *ctx);
    PoolOp::attachInterface<InputsToInitOpInterface<PoolOp>>(*ctx);
  });
}
