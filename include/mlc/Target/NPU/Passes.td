//===- Passes.td - The NPU target's passes -----------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_NPU_PASSES_TD
#define MLC_TARGET_NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def NPUPlaceKernels : Pass<"mlc-npu-place-kernels", "mlir::func::FuncOp"> {
  let summary = "Decide which matmuls, convolutions, quantized adds and "
                "poolings run on the NPU and in which tiles";
  let description = [{
    The NPU target's placement, on the loop level before the CPU strategy
    sees the kernels. For each statically shaped `linalg.matmul` it asks
    the NPU lowering itself (MatmulProgram.h) whether the NPU can compute
    it and in which tiles (the fastest of the candidate streams the
    simulator's timing runs), and compares that stream's time at the NPU's
    clock with the CPU's at `cpu-gflops`. A matmul the NPU takes and wins
    becomes `mlc_npu.matmul` with the tiles chosen (a zero-filled init is
    overwritten, any other is accumulated into; f32 operands are rounded to
    bf16 on the CPU for a bf16 unit); the others stay for the CPU. A
    dequantized convolution or matmul becomes an int8 one, and a
    convolution followed only by a bias, a relu or clip and a
    QuantizeLinear is requantized on the NPU (`requantize(...)`). Then
    each elementwise add of two dequantized 8-bit tensors that is only
    requantized (a quantized model's residual Add) goes the same way
    (QuantizedAddProgram.h, against 12 CPU operations an element at half
    `cpu-gflops`) and becomes `mlc_npu.quantized_add`, and each
    `linalg.pooling_nchw_max` of an input unpadded or padded with -inf
    (PoolProgram.h, against one CPU operation per window element at
    half `cpu-gflops`) becomes `mlc_npu.pool` "max" of the unpadded input,
    and an average pooling (a sum pooling of the input padded with 0
    divided by the count of the input's elements in each window) or a
    global one (the sum over each plane times 1 / (H x W)) `mlc_npu.pool`
    "average".
    `placement-file`, a
    JSON object from ONNX node names to `"cpu"` or `"npu"`, forces the
    choice (a forced `"npu"` that the NPU cannot run is an error); its key
    `"*"` sets the choice for the nodes it does not name (with `"npu"`,
    everything the NPU can run goes there, the rest to the CPU);
    `print-placement` prints one line per matmul, convolution, quantized
    add or pooling: its node, device and why.
    `float-kernels=cpu` keeps f32 kernels on the CPU (only dequantized
    integers go to the NPU), for models bf16's 8-bit mantissa is too coarse
    for.
  }];
  let options = [
    Option<"npu", "npu", "std::string", /*default=*/"\"edge\"",
           "The NPU: a built-in description (edge, large) or a JSON file">,
    Option<"placementFile", "placement-file", "std::string",
           /*default=*/"\"\"",
           "JSON object {\"node\": \"cpu\"|\"npu\"} that forces placements">,
    Option<"printPlacement", "print-placement", "bool", /*default=*/"false",
           "Print each NPU candidate's device and the reason to stdout">,
    Option<"cpuGflops", "cpu-gflops", "double", /*default=*/"100.0",
           "The CPU's f32 matmul rate the NPU is compared with (GFLOP/s)">,
    Option<"floatKernels", "float-kernels", "std::string",
           /*default=*/"\"bf16\"",
           "f32 matmuls and convolutions: bf16 (on the NPU, as bf16 when it "
           "has that unit) or cpu (they stay on the CPU in f32)">,
  ];
  let dependentDialects = ["mlc::npu::NPUDialect",
                           "mlir::arith::ArithDialect"];
}

def NPULowerKernels : Pass<"mlc-npu-lower-kernels", "mlir::ModuleOp"> {
  let summary = "Each NPU kernel on buffers becomes a command stream and a "
                "launch";
  let description = [{
    After bufferization, replaces every `mlc_npu.matmul`,
    `mlc_npu.quantized_add` and `mlc_npu.pool` on buffers by an
    `mlc_npu.launch` of a new module-level `mlc_npu.program` built by the
    NPU lowering (MatmulProgram.h, QuantizedAddProgram.h,
    PoolProgram.h) in the op's tiles: its operands and init at 64-byte
    aligned offsets of the NPU's DRAM window, init written. The
    program's commands are verified against the NPU's description.
  }];
  let dependentDialects = ["mlc::npu::NPUDialect"];
}

def NPULowerLaunches : Pass<"mlc-npu-lower-launches", "mlir::ModuleOp"> {
  let summary = "NPU launches become calls through the runtime's NPU launcher";
  let description = [{
    Runs after `mlc-npu-serialize`. Every model function gets a first
    argument (even when the placement left nothing to the NPU, so that every
    model compiled for the NPU has the same entry point), the launcher (`!llvm.ptr` to the C
    header's `mlc_npu_launcher`), and is marked `mlc_loop.npu_launcher`;
    each `mlc_npu.launch` becomes an indirect call of the launcher's `run`
    with the program's index and an array of the buffers' addresses. The
    binaries are concatenated into the constant global `<model>_npu_image`
    (and `mlc_model_npu_image` with `shared-aliases`), and the model's
    signature records the NPU's description and, per program, its bytes in
    the image and its buffers' DRAM offsets, sizes and whether it writes
    them (`mlc_loop.signature`'s `npu`).
  }];
  let options = [
    Option<"npu", "npu", "std::string", /*default=*/"\"edge\"",
           "The NPU the programs are for, recorded in the signature">,
    Option<"sharedAliases", "shared-aliases", "bool", /*default=*/"false",
           "Also export the image under the names loaders look up">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // MLC_TARGET_NPU_PASSES_TD
