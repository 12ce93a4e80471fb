//===- NPUOps.td - mlc_npu accelerator dialect -------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The accelerator level: explicit data movement between host memory and an
// NPU's local memory, and the compute primitives of a systolic matrix unit.
// The NPU target lowers loop-level kernels, after bufferization, to these.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_NPU_IR_NPUOPS_TD
#define MLC_DIALECT_NPU_IR_NPUOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NPU_Dialect : Dialect {
  let name = "mlc_npu";
  let cppNamespace = "::mlc::npu";
  let summary = "Accelerator (NPU) primitives: DMA and matrix-unit ops";
  let description = [{
    An NPU, as mlc models it, has a local scratchpad (memref memory space
    1), DMA engines that copy tiles between host memory (space 0) and the
    scratchpad, and a matrix unit of `array_rows x array_cols` MACs that
    multiplies tiles held in the scratchpad. `#mlc_npu.config` describes one
    such device; kernels are tiled so that their working set fits
    `local_memory_bytes`.
  }];
  let useDefaultAttributePrinterParser = 1;
}

def NPU_ConfigAttr : AttrDef<NPU_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "Resources of one NPU";
  let parameters = (ins "int64_t":$local_memory_bytes, "int64_t":$array_rows,
                        "int64_t":$array_cols, "int64_t":$dma_channels);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

class NPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPU_Dialect, mnemonic, traits>;

def NPU_DmaCopyOp : NPU_Op<"dma_copy"> {
  let summary = "Copies a tile between memories";
  let description = [{
    Copies `source` into `target`; both have the same shape and element
    type and may live in different memory spaces. A copy of a buffer onto
    itself is removed by canonicalization.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `,` type($target)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def NPU_MatmulOp : NPU_Op<"matmul"> {
  let summary = "Matrix-unit tile multiply-accumulate: C += A * B";
  let arguments = (ins Arg<MemRefRankOf<[AnyFloat, AnyInteger], [2]>, "", [MemRead]>:$lhs,
                       Arg<MemRefRankOf<[AnyFloat, AnyInteger], [2]>, "", [MemRead]>:$rhs,
                       Arg<MemRefRankOf<[AnyFloat, AnyInteger], [2]>, "", [MemRead, MemWrite]>:$acc);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc)
  }];
  let hasVerifier = 1;
}

#endif // MLC_DIALECT_NPU_IR_NPUOPS_TD
