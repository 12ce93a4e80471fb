//===- TensorFileFuzzer.cpp - Input files into mlc-run's readers ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Any bytes as an `.npy` file and as a serialized ONNX TensorProto: what a
// read accepts must have as many bytes as its dtype and shape say.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
void check(const mlc::run::HostTensor &tensor) {
  unsigned long long elements = 1;
  for (int64_t dim : tensor.shape) {
    if (dim < 0 || (dim && elements > ~0ull / static_cast<uint64_t>(dim)))
      std::abort();
    elements *= static_cast<uint64_t>(dim);
  }
  if (elements * mlc::abi::getDTypeSize(tensor.dtype) != tensor.data.size())
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  mlc::run::HostTensor npy, proto;
  if (mlc::run::readTensorBytes("fuzz.npy", bytes, npy, error))
    check(npy);
  if (mlc::run::readTensorBytes("fuzz.pb", bytes, proto, error))
    check(proto);
  return 0;
}
