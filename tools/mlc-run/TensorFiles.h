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

#include "mlc-runtime/ModelSignature.h"

#include <string>
#include <string_view>
#include <vector>

namespace mlc::run {

/// A dense row-major tensor in host memory.
struct HostTensor {
  abi::DType dtype = abi::DType::Float32;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

/// Reads `path` as `.npy` (by extension or magic) or as a TensorProto
/// otherwise. On failure returns false with the reason in `error`.
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error);

/// Writes `tensor` as a version 1.0 `.npy` file.
/// Reads a tensor from the bytes of a `.npy` file (by its magic or `path`'s
/// extension) or of a serialized ONNX TensorProto; `path` names it in
/// `error`.
bool readTensorBytes(const std::string &path, std::string_view bytes,
                     HostTensor &tensor, std::string &error);

bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error);

/// `[1, 3, 224, 224]`.
std::string formatShape(const std::vector<int64_t> &shape);

} // namespace mlc::run

#endif // MLC_TOOLS_MLC_RUN_TENSORFILES_H
