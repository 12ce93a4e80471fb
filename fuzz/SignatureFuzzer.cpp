//===- SignatureFuzzer.cpp - Model metadata into the runtime's reader -----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model library's metadata comes from a file the user names: any bytes as
// that JSON text go through the runtime's reader and, when it accepts
// them, the byte counts and the feature check the loader makes.
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/HostCPU.h"
#include "mlc-runtime/ModelSignature.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  mlc::abi::ModelSignature signature;
  std::string error;
  if (!mlc::abi::parseModelSignature(text.c_str(), signature, error))
    return 0;
  // What loaders compute from an accepted signature.
  for (const auto *list : {&signature.inputs, &signature.outputs})
    for (const mlc::abi::TensorSignature &t : *list)
      if (t.getNumBytes() < 0)
        __builtin_trap();
  if (signature.target)
    (void)mlc::abi::getMissingFeatures(*signature.target);
  return 0;
}
