//===- TensorTypes.h - Type checks shared by loop passes -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_UTILS_TENSORTYPES_H
#define MLC_DIALECT_LOOP_UTILS_TENSORTYPES_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlc::loop {

/// Whether `type` is a statically shaped f32 tensor: what the passes that
/// tile, vectorize or change the layout of ops take.
inline bool isStaticF32(mlir::Type type) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
}

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_UTILS_TENSORTYPES_H
