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
struct MatmulOpInterface
    : DstBufferizableOpInterfaceExternalModel<MatmulOpInterface, MatmulOp> {
  /// The buffer of `value`, with the identity layout: a strided view is
  /// copied (when `read`) into a new buffer.
  FailureOr<Value> getContiguousBuffer(RewriterBase &rewriter, Location loc,
                                       Value value, bool read,
                                       const BufferizationOptions &options,
                                       const BufferizationState &state) const {
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
    MatmulOp::create(rewriter, loc, TypeRange(), *lhs, *rhs, *out, columns,
                     matmul.getNpuAttr(), matmul.getTileRowsAttr(),
                     matmul.getTileColsAttr(), matmul.getBuffersAttr(),
                     matmul.getTileDepthAttr(), matmul.getAccumulateAttr(),
                     matmul.getReluAttr(), matmul.getZeroPointAttr());
    if (*out != *init) {
      rewriter.setInsertionPointAfter(op);
      if (failed(options.createMemCpy(rewriter, loc, *out, *init)))
        return failure();
    }
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlc::npu::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    MatmulOp::attachInterface<MatmulOpInterface>(*ctx);
  });
}
