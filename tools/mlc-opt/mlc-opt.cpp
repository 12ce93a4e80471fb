//===- mlc-opt.cpp - mlc's pass driver ------------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Like mlir-opt, with every upstream dialect and pass plus mlc's.
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/CrashGuard.h"
#include "mlc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  // LLVM's crash handler first, then the guard in front of it (a crash ends
  // the process within seconds even when that handler blocks);
  // MlirOptMain's own InitLLVM keeps the handlers registered here.
  llvm::InitLLVM init(argc, argv);
  mlc::installCrashGuard("mlc-opt");
  mlir::DialectRegistry registry;
  mlc::registerEverything(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mlc modular optimizer driver\n", registry));
}
