//===- TensorFiles.h - .npy and ONNX TensorProto files ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reading a tensor from a NumPy `.npy` file or a serialized ONNX TensorProto
// (`.pb`, as in ONNX's test data sets) and writing `.npy` files.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TOOLS_MLC_RUN_TENSORFILES_H
#define MLC_TOOLS_MLC_RUN_TENSORFILES_H

#include "mlc/Target/CPU/ModelABI.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlc::run {

/// A dense row-major tensor in host memory.
struct HostTensor {
  abi::DType dtype = abi::DType::Float32;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

/// Reads `path` as `.npy` (by extension) or as a TensorProto otherwise.
llvm::Expected<HostTensor> readTensorFile(llvm::StringRef path);

/// Writes `tensor` as a version 1.0 `.npy` file.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

/// `[1, 3, 224, 224]`.
std::string formatShape(const std::vector<int64_t> &shape);

} // namespace mlc::run

#endif // MLC_TOOLS_MLC_RUN_TENSORFILES_H
