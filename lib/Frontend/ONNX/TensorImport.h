//===- TensorImport.h - ONNX tensors and types to MLIR ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_FRONTEND_ONNX_TENSORIMPORT_H
#define MLC_LIB_FRONTEND_ONNX_TENSORIMPORT_H

#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace mlc::onnx_import {

/// The MLIR element type of an ONNX TensorProto::DataType: signed integers
/// become signless, unsigned ones `uiN`, BOOL `i1`. Null when unsupported.
mlir::Type getElementType(mlir::MLIRContext *context, int32_t dataType);

/// The ONNX name of a data type (`FLOAT`, `INT64`, ...), for diagnostics.
std::string getDataTypeName(int32_t dataType);

/// Builds the value of `tensor` (an initializer or a Constant's `value`).
/// Large tensors become `dense_resource` blobs filled without per-element
/// copies; small ones `dense`, so shape-like constants fold. External data
/// is read through readExternalData relative to `modelDir`. A tensor of more
/// than `maxBytes` bytes, or whose data is not all there, is refused before
/// anything is allocated for it.
llvm::Expected<mlir::ElementsAttr> importTensor(const onnx::TensorProto &tensor,
                                                mlir::MLIRContext *context,
                                                llvm::StringRef modelDir,
                                                int64_t maxBytes);

/// The bytes of a constant's elements, row-major at the element type's
/// storage size (not for i1); a splat is expanded into `storage`. Nullopt
/// when the attribute holds no readable bytes.
std::optional<llvm::ArrayRef<char>>
getConstantBytes(mlir::ElementsAttr attr, std::vector<char> &storage);

/// The elements of a float (f16, bf16, f32, f64) or integer constant as
/// float, or nullopt.
std::optional<std::vector<float>> getConstantFloats(mlir::ElementsAttr attr);

/// A constant of static `type` whose bytes `fill` writes: `dense` when
/// small, else a `dense_resource` blob named after `name`.
mlir::ElementsAttr makeConstant(mlir::RankedTensorType type,
                                llvm::StringRef name,
                                llvm::function_ref<void(char *)> fill);

} // namespace mlc::onnx_import

#endif // MLC_LIB_FRONTEND_ONNX_TENSORIMPORT_H
