//===- Passes.td - NPU dialect passes ----------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_NPU_TRANSFORMS_PASSES_TD
#define MLC_DIALECT_NPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NPUSerialize : Pass<"mlc-npu-serialize", "mlir::ModuleOp"> {
  let summary = "Turn each mlc_npu.program into its binary command stream";
  let description = [{
    Replaces every `mlc_npu.program` (already verified against its NPU) by
    an `mlc_npu.binary` holding the bytes of the command stream in the
    versioned format of docs/NPU.md, written by the runtime's own
    `serializeProgram`, so that what the compiler emits is what the
    simulator reads.
  }];
  let dependentDialects = ["mlc::npu::NPUDialect"];
}

#endif // MLC_DIALECT_NPU_TRANSFORMS_PASSES_TD
