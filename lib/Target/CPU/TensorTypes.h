//===- TensorTypes.h - Type checks shared by the CPU passes -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_TENSORTYPES_H
#define MLC_LIB_TARGET_CPU_TENSORTYPES_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlc::target {

/// Whether `type` is a statically shaped f32 tensor: what the CPU passes
/// that tile, vectorize or rewrite ops take.
inline bool isStaticF32(mlir::Type type) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
}

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_TENSORTYPES_H
