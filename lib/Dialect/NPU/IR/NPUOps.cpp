//===- NPUOps.cpp - mlc_npu accelerator dialect ---------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/NPU/IR/NPUOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

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
