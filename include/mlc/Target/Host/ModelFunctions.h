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

#include "mlc-runtime/ModelSignature.h"

#include "llvm/ADT/STLFunctionalExtras.h"

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

/// The model functions of `module` (getModelFunctions); with
/// `sharedLibrary`, there must be exactly one, or this emits an error and
/// fails.
mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
getLibraryModels(mlir::ModuleOp module, bool sharedLibrary);

/// The ONNX node an op came from: the first name in its location ("" when
/// it has none).
std::string getNodeName(mlir::Location loc);

/// Makes the runtime's device launcher (`!llvm.ptr`, named `launcher`) the
/// first argument of model function `f` and marks `f` with the unit
/// attribute `marker` (`mlc_loop.gpu_launcher`, `mlc_loop.npu_launcher`),
/// which mlc-host-emit-entry-points reads. Emits an error on failure.
mlir::LogicalResult addLauncherArgument(mlir::func::FuncOp f,
                                        llvm::StringRef marker);

/// Stores the address of `buffer` (an identity-layout memref) as an
/// `!llvm.ptr` into slot `index` of `array` (an `!llvm.ptr` to pointers),
/// as a launcher's argument arrays hold them; returns the slot.
mlir::Value storeBufferAddress(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value buffer, mlir::Value array,
                               int32_t index);

/// Calls a runtime launcher (`launcher`: `!llvm.ptr` to a `{ void *context;
/// int32_t (*fn)(void *context, int32_t index, ...); }`, the C header's
/// mlc_gpu_launcher and mlc_npu_launcher) as `fn(context, index, args...)`
/// with `args` pointers.
void callLauncher(mlir::OpBuilder &b, mlir::Location loc, mlir::Value launcher,
                  int32_t index, mlir::ValueRange args);

/// Rewrites model function `f`'s `mlc_loop.signature` with `update`.
/// Emits an error and fails on a malformed signature.
mlir::LogicalResult
updateSignature(mlir::func::FuncOp f,
                llvm::function_ref<void(abi::ModelSignature &)> update);

/// A symbol-friendly suffix for a kernel made from the op at `loc`: the end
/// of its ONNX node name (the block and the op type of a hierarchical
/// exporter name, `..._block_1_0_Conv`), other characters than letters and
/// digits as `_`.
std::string getNodeSymbolSuffix(mlir::Location loc);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_MODELFUNCTIONS_H
