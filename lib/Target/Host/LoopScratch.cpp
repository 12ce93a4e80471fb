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
#include "mlc/Dialect/Loop/Utils/ValueBounds.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

std::optional<int64_t> mlc::host::getMaxBytes(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t elements = 1;
  unsigned next = 0;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size)) {
      // A tile's remainder: at most the tile (an affine.min of it).
      FailureOr<int64_t> bound = mlc::loop::getConstantUpperBound(
          ValueBoundsConstraintSet::Variable(alloc.getDynamicSizes()[next++]));
      if (failed(bound) || *bound < 0)
        return std::nullopt;
      size = *bound;
    }
    if (size != 0 && elements > std::numeric_limits<int64_t>::max() / size)
      return std::nullopt;
    elements *= size;
  }
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  if (elements > std::numeric_limits<int64_t>::max() / bytes)
    return std::nullopt;
  return elements * bytes;
}

bool mlc::host::isLoopScratch(memref::AllocOp alloc, int64_t maxBytes) {
  if (maxBytes <= 0 ||
      !(alloc->getParentOfType<LoopLikeOpInterface>() ||
        alloc->getParentOfType<omp::LoopNestOp>()))
    return false;
  std::optional<int64_t> bytes = getMaxBytes(alloc);
  return bytes && *bytes <= maxBytes;
}
