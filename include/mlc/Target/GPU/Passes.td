//===- Passes.td - GPU target passes -----------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_GPU_PASSES_TD
#define MLC_TARGET_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUSetSchedules : Pass<"mlc-gpu-set-schedules", "mlir::func::FuncOp"> {
  let summary = "The GPU strategy: each kernel's thread chunks";
  let description = [{
    Runs in the kernels phase, after `mlc-loop-form-kernels`. Every
    kernel whose root is a linalg op gets a `#mlc_loop.schedule` with one
    tile level: the chunk of the root's parallel loops one GPU thread
    computes (the reduction loops, size 0, run whole inside the thread),
    and those loops as `parallel_dims`. An elementwise kernel's chunk is
    one element: one thread per element of the result, the innermost dim
    fastest so that neighbouring threads touch neighbouring elements. A
    reduction's (a matmul, a convolution) is a register tile of
    `register-tile` rows by columns of its output (its last two dims),
    each side where it divides the dim and leaves at least `min-threads`
    threads, else one element: the thread keeps the tile's accumulators in
    registers and loads each operand value once for the whole tile.
    `mlc-gpu-map-to-launches` does what the schedule says.
  }];
  let options = [
    Option<"printSchedules", "print-schedules", "bool", /*default=*/"false",
           "Print each kernel's name, loop ranges and schedule to stdout">,
    Option<"registerRows", "register-rows", "int64_t", /*default=*/"1",
           "Output rows of a reduction's register tile">,
    Option<"registerCols", "register-cols", "int64_t", /*default=*/"1",
           "Output columns of a reduction's register tile">,
    Option<"minThreads", "min-threads", "int64_t", /*default=*/"16384",
           "Threads a register tile must leave a reduction kernel">,
  ];
}

def GPUMapToLaunches : Pass<"mlc-gpu-map-to-launches", "mlir::func::FuncOp"> {
  let summary = "Every loop nest of a function on buffers becomes a GPU launch";
  let description = [{
    Runs on buffers, after the arena plan. Each top-level linalg op (and
    `memref.copy`, as a `linalg.copy`) becomes one `gpu.launch`: its
    parallel loops are split into the chunks of its schedule (one element
    when it has none), the chunks are numbered row-major and spread over a
    one-dimensional grid of blocks of `threads-per-block` threads; each
    thread computes its chunk, with the reduction loops whole, through the
    op's scalar implementation (`TilingInterface`). A thread past the last
    chunk does nothing. The view ops a launch reads through are cloned
    into it, so that only whole buffers cross into the kernel.

    When each thread owns one element of a root's result, the op that fills
    the root's accumulator (just before it, or up to four loop nests before
    it when those touch other memory) and the elementwise ops just after it
    that read its result run in the same launch, each thread on its own
    element, where no thread can write what another still reads (decided
    from the arena plan's byte ranges).

    Any other top-level op that touches memory (a sequential `scf.for`, an
    `scf.if`, a load) runs as a launch of one thread. A loop nest whose
    sizes are known only at run time gets a grid the host computes from
    them (none when they are 0); a buffer of run-time sizes reaches the
    kernel as a one-element view of its address and its sizes.

    A function whose host code must read memory the kernels write (it has
    run-time checks, outputs it allocates or buffers of run-time sizes) is
    marked `mlc_loop.gpu_host_access` (its memory is host-visible at run
    time): the host runs its scalar loads and stores, takes the branches of
    its `scf.if`s and runs its `scf.while`s, mapping the ops inside; the
    scalar results of a one-thread launch come back through one-element
    buffers; and a `gpu.wait` goes before each host op that touches memory
    while kernels may be running, and before the return when the function
    has run-time checks. Without the mark, an op whose results the host
    would need is an error naming its ONNX node.

    With `emulate`, the blocks and threads are `scf.for` loops instead of
    a launch, with the same bodies: compiled for the CPU, the result runs
    the GPU's index arithmetic and chunking where no GPU is.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256", "Threads in each block">,
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Loops over blocks and threads instead of gpu.launch">,
    Option<"moduleName", "module", "std::string",
           /*default=*/"\"mlc_kernels\"",
           "The gpu.module every kernel is outlined into">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def GPULowerLaunches : Pass<"mlc-gpu-lower-launches", "mlir::ModuleOp"> {
  let summary = "Launches become calls through the runtime's launcher";
  let description = [{
    Runs on the host code after `gpu-module-to-binary`. Every model
    function gets a first argument, the launcher (`!llvm.ptr` to the C
    header's `mlc_gpu_launcher`), and is marked `mlc_loop.gpu_launcher`;
    each `gpu.launch_func` becomes an indirect call of the launcher's
    `launch` with the kernel's index (in the order of first launch), its
    grid and block sizes (constants, or a grid the host computed) and a
    pointer to each argument's value (buffers, which must be static
    identity-layout memrefs, as device pointers; scalars, `index` as i64).
    The host's `memref.alloc`/`memref.dealloc` become the launcher's
    `allocate`/`release` and `gpu.wait` its `synchronize`. The model's
    signature records the architecture, the image's format and the kernel
    names by index (`mlc_loop.signature`'s `gpu`). The device image
    becomes the constant global `<model>_gpu_image` (NUL-terminated) with
    its size in `<model>_gpu_image_size`, and, with `shared-aliases`, also
    `mlc_model_gpu_image` and `mlc_model_gpu_image_size`. Nothing of the
    gpu dialect is left.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "The architecture the image is for, recorded in the signature">,
    Option<"sharedAliases", "shared-aliases", "bool", /*default=*/"false",
           "Also export the image under the names loaders look up">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // MLC_TARGET_GPU_PASSES_TD
