//===- NodeNames.h - The ONNX node an operation came from -------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_COMPILER_NODENAMES_H
#define MLC_LIB_COMPILER_NODENAMES_H

#include "mlir/IR/Location.h"

#include <string>

namespace mlc::compiler {

/// The importer names each op's location after its ONNX node: the first
/// name in `loc`, or "" when it has none.
inline std::string getNodeName(mlir::Location loc) {
  std::string name;
  loc->walk([&](mlir::Location l) {
    if (auto named = llvm::dyn_cast<mlir::NameLoc>(l)) {
      name = named.getName().str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return name;
}

} // namespace mlc::compiler

#endif // MLC_LIB_COMPILER_NODENAMES_H
