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
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NPU_Dialect : Dialect {
  let name = "mlc_npu";
  let cppNamespace = "::mlc::npu";
  let summary = "The NPU: kernels placed on it and its command streams";
  let description = [{
    The accelerator of docs/NPU.md at two levels. `mlc_npu.matmul` and
    `mlc_npu.quantized_add` are kernels the placement put on the NPU, on
    tensors and then on buffers, with the tiles it chose; `mlc_npu.program` is the command stream it
    lowers to (one op per command) and `mlc_npu.launch` runs that stream on
    the host's buffers.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

class NPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPU_Dialect, mnemonic, traits>;

def NPU_MatmulOp : NPU_Op<"matmul", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A matmul placed on the NPU: init (+)= lhs * rhs";
  let description = [{
    `init[M, N] + lhs[M, K] * rhs[K, N]` (or `init` overwritten when
    `accumulate` is absent: the product alone), or the same for each of a
    batch of them (`[B, M, K]` and so on), on the NPU `npu` (a built-in
    description or a JSON file), computed in output tiles of `tile_rows` x
    `tile_cols` as `mlc-npu-place-kernels` chose them. An operand whose
    element type is not the matrix unit's input type is converted on the
    NPU's vector unit (f32 to bf16, rounding to nearest even). On tensors
    it yields the result; after bufferization it writes `init`.

    With `row_shifts` (T of them, a direct convolution's taps), `init[i, j]
    = sum over t and c of lhs[i + row_shifts[t], c] * rhs[t * C + c, j]`:
    `lhs` is [M + max(row_shifts), C] and `rhs` [T * C, N].

    A bf16 `init` with f32 sums (bf16 or f16 operands) receives the sums
    rounded to bf16 (nearest even) by the vector unit, overwritten, not
    accumulated.

    With `requantize(columns)` (int8 operands), the int32 sums leave the NPU
    requantized by its vector unit: `columns` (i32 [N, 2]) holds each
    column's int32 bias and the bits of its f32 scale, and `init[m, n] =
    saturate(round_even(r(sum + bias[n]) * scale[n]) + zero_point)`, an i8
    matrix, with r a relu when `relu` is set (else the identity).
  }];
  let arguments = (ins AnyShaped:$lhs,
                       AnyShaped:$rhs,
                       AnyShaped:$init,
                       Optional<AnyShaped>:$columns,
                       StrAttr:$npu, I64Attr:$tile_rows, I64Attr:$tile_cols,
                       DefaultValuedAttr<I64Attr, "2">:$buffers,
                       DefaultValuedAttr<I64Attr, "0">:$tile_depth,
                       UnitAttr:$accumulate, UnitAttr:$relu,
                       DefaultValuedAttr<I32Attr, "0">:$zero_point,
                       OptionalAttr<DenseI64ArrayAttr>:$row_shifts);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let builders = [
    // A plain matmul or a requantizing one (relu and zero point set after).
    OpBuilder<(ins "mlir::TypeRange":$results, "mlir::Value":$lhs,
                   "mlir::Value":$rhs, "mlir::Value":$init,
                   "mlir::Value":$columns, "llvm::StringRef":$npu,
                   "int64_t":$tileRows, "int64_t":$tileCols,
                   "int64_t":$buffers, "int64_t":$tileDepth,
                   "bool":$accumulate), [{
      build($_builder, $_state, results, lhs, rhs, init, columns,
            $_builder.getStringAttr(npu), $_builder.getI64IntegerAttr(tileRows),
            $_builder.getI64IntegerAttr(tileCols),
            $_builder.getI64IntegerAttr(buffers),
            $_builder.getI64IntegerAttr(tileDepth),
            accumulate ? $_builder.getUnitAttr() : mlir::UnitAttr(),
            mlir::UnitAttr(), $_builder.getI32IntegerAttr(0),
            mlir::DenseI64ArrayAttr());
    }]>
  ];
  let assemblyFormat = [{
    $npu `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    (`requantize` `(` $columns^ `:` type($columns) `)`)?
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return mlir::MutableOperandRange(getInitMutable()); }
  }];
  let hasVerifier = 1;
}

def NPU_QuantizedAddOp : NPU_Op<"quantized_add", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "An int8 add placed on the NPU's vector unit";
  let description = [{
    `init[i] = saturate(round_even(r(a + b) * result_scale) + zero_point)`
    with `a = (lhs[i] - lhs_zero_point) * lhs_scale` and `b` likewise in
    f32, `r` a relu when `relu` is set: the residual add of a QDQ model
    (DequantizeLinear on both operands, Add, QuantizeLinear, whose scale
    `result_scale` inverts). `lhs`, `rhs` and `init` are i8 arrays of one
    static shape; the NPU `npu` runs them in tiles of `tile` elements,
    `buffers` of each rotating, as `mlc-npu-place-kernels` chose them. On
    tensors it yields the result; after bufferization it writes `init`.
  }];
  let arguments = (ins AnyShaped:$lhs,
                       AnyShaped:$rhs,
                       AnyShaped:$init,
                       StrAttr:$npu, F32Attr:$lhs_scale,
                       I32Attr:$lhs_zero_point, F32Attr:$rhs_scale,
                       I32Attr:$rhs_zero_point, F32Attr:$result_scale,
                       I32Attr:$zero_point, UnitAttr:$relu, I64Attr:$tile,
                       DefaultValuedAttr<I64Attr, "2">:$buffers);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $npu `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return mlir::MutableOperandRange(getInitMutable()); }
  }];
  let hasVerifier = 1;
}

def NPU_PoolOp : NPU_Op<"pool", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A 2-D max or average pooling placed on the NPU's vector "
                "unit";
  let description = [{
    With `kind` "max", `init[n, c, i, j]` = the max of `input[n, c,
    i * strides[0] + a - pads[0], j * strides[1] + b - pads[1]]` over
    `a < window[0]`, `b < window[1]` where those are inside the input
    (ONNX MaxPool, NCHW, without dilations; its padding never wins a max);
    with "average", their f32 mean (the sum times the reciprocal of their
    count; GlobalAveragePool is the window of the whole plane). `input` and
    `init` are static NCHW arrays of one element type (a float one for
    "average"); the NPU `npu` runs them in tiles of `tile` planes (images
    times channels), `buffers` of each rotating, as
    `mlc-npu-place-kernels` chose them. On tensors it yields the result;
    after bufferization it writes `init`.
  }];
  let arguments = (ins AnyShaped:$input,
                       AnyShaped:$init,
                       StrAttr:$npu, StrAttr:$kind, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       I64Attr:$tile,
                       DefaultValuedAttr<I64Attr, "2">:$buffers);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $npu $kind `ins` `(` $input `:` type($input) `)`
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return mlir::MutableOperandRange(getInitMutable()); }
  }];
  let hasVerifier = 1;
}

def NPU_LaunchOp : NPU_Op<"launch"> {
  let summary = "Runs a command stream on the NPU against host buffers";
  let description = [{
    Runs the `mlc_npu.program` (or, once serialized, `mlc_npu.binary`)
    named `program`. The NPU's DRAM window holds `buffers[i]` at byte
    offset `dram_offsets[i]`; `writes` marks the buffers the stream stores
    into. Buffers have the identity layout.
  }];
  let arguments = (ins FlatSymbolRefAttr:$program,
                       Arg<Variadic<AnyMemRef>, "", [MemRead, MemWrite]>:$buffers,
                       DenseI64ArrayAttr:$dram_offsets,
                       DenseBoolArrayAttr:$writes);
  let assemblyFormat = [{
    $program `(` $buffers `)` attr-dict `:` type($buffers)
  }];
  let hasVerifier = 1;
}

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
  let arguments = (ins OptionalAttr<SymbolNameAttr>:$sym_name, StrAttr:$npu);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "($sym_name^)? $npu attr-dict-with-keyword $body";
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
         DefaultValuedAttr<I64Attr, "0">:$zero_point,
         DefaultValuedAttr<I64Attr, "0">:$plane_rows,
         DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$window,
         DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$window_strides,
         DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$window_pads,
         DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$result_plane)> {
  let summary = "Vector unit: relu, add, requantize (one scale, or a scale "
                "per column read at source2), dequantize or copy over rows x "
                "cols; max_pool or average_pool over rows planes of "
                "plane_rows x cols";
}

def NPU_BinaryOp : NPU_Op<"binary"> {
  let summary = "A serialized command stream";
  let description = [{
    The bytes of a command stream (docs/NPU.md) for the NPU `npu`, as
    `mlc-npu-serialize` writes them from an `mlc_npu.program`.
  }];
  let arguments = (ins OptionalAttr<SymbolNameAttr>:$sym_name, StrAttr:$npu,
                       ElementsAttr:$data);
  let assemblyFormat = "($sym_name^)? $npu attr-dict $data";
}

#endif // MLC_DIALECT_NPU_IR_NPUOPS_TD
