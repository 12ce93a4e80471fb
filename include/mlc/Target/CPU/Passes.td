//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_CPU_PASSES_TD
#define MLC_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUCopiesToLinalg : Pass<"mlc-cpu-copies-to-linalg", "mlir::ModuleOp"> {
  let summary = "Turn strided memref.copy into linalg.copy";
  let description = [{
    Bufferization copies into strided views (for example the interior of a
    padded tensor) with `memref.copy`, which the LLVM lowering turns into a
    call to `memrefCopy` from MLIR's runner-utils library. Compiled models
    must need nothing beyond libc and libm, so this pass rewrites every copy
    whose operands are not both contiguous into `linalg.copy`, which becomes
    loops. Contiguous copies stay `memref.copy` and become `memcpy`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // MLC_TARGET_CPU_PASSES_TD
