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

#include "mlc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlc::registerEverything(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mlc modular optimizer driver\n", registry));
}
