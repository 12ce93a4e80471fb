//===- ConstantData.h - Raw bytes of constant tensors -----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compile-time layout changes of weights (transposes, packing) read the
// bytes of `dense` and `dense_resource` constants and write new blobs.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_UTILS_CONSTANTDATA_H
#define MLC_DIALECT_LOOP_UTILS_CONSTANTDATA_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>

namespace mlc::loop {

/// The row-major bytes of a non-splat constant whose elements are whole
/// bytes and whose data size matches its type, or nothing.
inline std::optional<llvm::ArrayRef<char>>
getConstantBytes(mlir::ElementsAttr value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  std::optional<llvm::ArrayRef<char>> data;
  if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value)) {
    if (mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      data = blob->getData();
  } else if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value)) {
    if (!dense.isSplat())
      data = dense.getRawData();
  }
  if (!data || int64_t(data->size()) != type.getNumElements() *
                                            (type.getElementTypeBitWidth() / 8))
    return std::nullopt;
  return data;
}

/// A constant of `type` over a new 64-byte aligned blob of `bytes` bytes
/// that `fill` writes.
inline mlir::DenseResourceElementsAttr
makeConstantBlob(mlir::ShapedType type, llvm::StringRef name, size_t bytes,
                 llvm::function_ref<void(llvm::MutableArrayRef<char>)> fill) {
  mlir::AsmResourceBlob blob =
      mlir::HeapAsmResourceBlob::allocate(bytes, /*align=*/64);
  fill(blob.getMutableData());
  return mlir::DenseResourceElementsAttr::get(type, name, std::move(blob));
}

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_UTILS_CONSTANTDATA_H
