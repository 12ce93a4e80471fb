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
#include "llvm/Support/Error.h"

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

} // namespace mlc::onnx_import

#endif // MLC_LIB_FRONTEND_ONNX_TENSORIMPORT_H
