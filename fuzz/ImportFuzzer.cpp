//===- ImportFuzzer.cpp - Model bytes into the ONNX importer --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Any bytes as an ONNX model: parse, check, import, verify the graph IR.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir/IR/Verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlc::fuzz::FuzzContext fuzz;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlc::fuzz::importFuzzInput(fuzz.context, data, size);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
