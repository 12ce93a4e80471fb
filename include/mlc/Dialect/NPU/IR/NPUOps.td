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

//===----------------------------------------------------------------------===//
// Command streams
//===----------------------------------------------------------------------===//

def NPU_ProgramOp : NPU_Op<"program", [NoTerminator, SingleBlock,
                                         IsolatedFromAbove]> {
  let summary = "A command stream for one NPU, one op per command";
  let description = [{
    The command stream of docs/NPU.md as IR: `mlc_npu.load`,
    `mlc_npu.store`, `mlc_npu.mma` and `mlc_npu.vector` ops, in stream
    order, for the NPU `npu` names (a built-in description, `edge` or
    `large`, or a JSON file). The verifier checks every command against that
    description with the simulator's own checks (`validateCommand`): local
    operands inside the scratchpad or accumulator, element types and vector
    ops the NPU has, tokens in range. `mlc-npu-serialize` turns it into the
    binary stream.

    ```mlir
    mlc_npu.program "edge" {
      mlc_npu.load {element_type = i8, dram = 0, local = 0, rows = 16,
                    cols = 64, dram_stride = 64, signal = 0}
      mlc_npu.mma {element_type = i8, a = 0, b = 1024, c = 0, rows = 16,
                   cols = 16, depth = 64, wait = [0], signal = 1}
      mlc_npu.store {element_type = i32, memory = "accumulator", dram = 4096,
                     local = 0, rows = 16, cols = 16, dram_stride = 64,
                     wait = [1]}
    }
    ```
  }];
  let arguments = (ins StrAttr:$npu);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$npu attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

class NPU_CommandOp<string mnemonic, dag commandArguments>
    : NPU_Op<mnemonic, [HasParent<"ProgramOp">]> {
  let arguments = !con(commandArguments,
      (ins DefaultValuedAttr<I64ArrayAttr, "{}">:$wait,
           DefaultValuedAttr<I64Attr, "-1">:$signal));
  let assemblyFormat = "attr-dict";
}

def NPU_LoadOp : NPU_CommandOp<"load",
    (ins TypeAttr:$element_type, I64Attr:$dram, I64Attr:$local,
         I64Attr:$rows, I64Attr:$cols, I64Attr:$dram_stride,
         DefaultValuedAttr<StrAttr, "\"scratchpad\"">:$memory)> {
  let summary = "DRAM to scratchpad or accumulator: rows x cols elements";
}

def NPU_StoreOp : NPU_CommandOp<"store",
    (ins TypeAttr:$element_type, I64Attr:$dram, I64Attr:$local,
         I64Attr:$rows, I64Attr:$cols, I64Attr:$dram_stride,
         DefaultValuedAttr<StrAttr, "\"scratchpad\"">:$memory)> {
  let summary = "Scratchpad or accumulator to DRAM: rows x cols elements";
}

def NPU_MmaOp : NPU_CommandOp<"mma",
    (ins TypeAttr:$element_type, I64Attr:$a, I64Attr:$b, I64Attr:$c,
         I64Attr:$rows, I64Attr:$cols, I64Attr:$depth, UnitAttr:$accumulate)> {
  let summary = "Matrix unit: accumulator C (+)= scratchpad A * scratchpad B";
}

def NPU_VectorOp : NPU_CommandOp<"vector",
    (ins StrAttr:$op, TypeAttr:$element_type, TypeAttr:$result_type,
         I64Attr:$source, DefaultValuedAttr<I64Attr, "0">:$source2,
         I64Attr:$result, I64Attr:$rows, I64Attr:$cols,
         DefaultValuedAttr<StrAttr, "\"scratchpad\"">:$memory,
         DefaultValuedAttr<StrAttr, "\"scratchpad\"">:$result_memory,
         DefaultValuedAttr<F32Attr, "1.0f">:$scale,
         DefaultValuedAttr<I64Attr, "0">:$zero_point)> {
  let summary = "Vector unit: relu, add, requantize or copy over rows x cols";
}

def NPU_BinaryOp : NPU_Op<"binary"> {
  let summary = "A serialized command stream";
  let description = [{
    The bytes of a command stream (docs/NPU.md) for the NPU `npu`, as
    `mlc-npu-serialize` writes them from an `mlc_npu.program`.
  }];
  let arguments = (ins StrAttr:$npu, ElementsAttr:$data);
  let assemblyFormat = "$npu attr-dict $data";
}

#endif // MLC_DIALECT_NPU_IR_NPUOPS_TD
