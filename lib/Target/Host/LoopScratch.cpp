//===- LoopScratch.cpp - Small buffers local to a loop body ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/LoopScratch.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

bool mlc::host::isLoopScratch(memref::AllocOp alloc, int64_t maxBytes) {
  MemRefType type = alloc.getType();
  if (maxBytes <= 0 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat())
    return false;
  int64_t bytes = type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return bytes <= maxBytes &&
         (alloc->getParentOfType<LoopLikeOpInterface>() ||
          alloc->getParentOfType<omp::LoopNestOp>());
}
