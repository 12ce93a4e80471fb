//===- ModelFunctions.h - The functions that are models ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_MODELFUNCTIONS_H
#define MLC_TARGET_HOST_MODELFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlc::host {

/// The functions of `module` that are models: defined, with the signature
/// mlc-host-prepare-model-abi recorded (`mlc_loop.signature`); kernels and
/// helpers are not.
inline llvm::SmallVector<mlir::func::FuncOp>
getModelFunctions(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::func::FuncOp> models;
  for (auto f : module.getOps<mlir::func::FuncOp>())
    if (!f.isExternal() && f->hasAttr("mlc_loop.signature"))
      models.push_back(f);
  return models;
}

/// A symbol-friendly suffix for a kernel made from the op at `loc`: the end
/// of its ONNX node name (the block and the op type of a hierarchical
/// exporter name, `..._block_1_0_Conv`), other characters than letters and
/// digits as `_`.
std::string getNodeSymbolSuffix(mlir::Location loc);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_MODELFUNCTIONS_H
