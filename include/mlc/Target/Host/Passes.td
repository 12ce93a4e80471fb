//===- Passes.td - Host-code passes every backend shares -----*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The model ABI, the static arena, weights and kernel outlining: the host
// side of a compiled model, the same for every backend.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_PASSES_TD
#define MLC_TARGET_HOST_PASSES_TD

include "mlir/Pass/PassBase.td"

def HostPrepareModelABI : Pass<"mlc-host-prepare-model-abi", "mlir::ModuleOp"> {
  let summary = "Record each public function's C ABI signature";
  let description = [{
    Runs on loop-level IR (tensors), before bufferization. For every public
    function it checks that the inputs and outputs are statically shaped
    tensors of a supported element type, records their ONNX names, dtypes
    and shapes as the `mlc_loop.signature` attribute (JSON, see
    `mlc/Target/Host/ModelABI.h`), and marks the inputs read-only for
    one-shot bufferization so that a run never writes into a caller's
    input buffer. Inputs and outputs with no elements (a zero dim) become
    `tensor<0xT>` in the function type, since there is nothing to pass.
    A value returned more than once is copied for each repetition, so that
    every output has its own buffer.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def HostDynamicOutputs : Pass<"mlc-host-dynamic-outputs", "mlir::ModuleOp"> {
  let summary = "Outputs whose sizes depend on the data: allocated by the "
                "model, handed to the caller";
  let description = [{
    Runs after `buffer-results-to-out-params`. An output with dynamic dims
    (NonZero's count, a Range's length: `-1` in the signature) cannot be
    a buffer the caller allocates, since its size is known only once the
    model has run. Its out-parameter becomes a record of 1 + rank `i64`
    words (`memref<(1+rank)xi64>`, passed like any buffer): the model
    stores into word 0 the address of a buffer it allocated with `malloc`
    (a `memref.alloc` without alignment, marked `mlc_loop.caller_owned`
    so that the arena plan leaves it alone) and into the others the dims.
    The caller owns that buffer and frees it with `free`. When the result
    is already a buffer of its own, that buffer is handed over; otherwise
    it is copied into one.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def HostSymbolicInputs : Pass<"mlc-host-symbolic-inputs", "mlir::ModuleOp"> {
  let summary = "Inputs with symbolic dims: their sizes from a dims argument";
  let description = [{
    Runs after bufferization. A public function marked
    `mlc_loop.dims_argument = S` (by `mlc-host-prepare-model-abi`: its
    inputs keep S symbolic dims, such as a sequence length) gets a last
    argument `memref<Sxi64>`, the symbols' values for this run, which the
    entry point passes through from its caller. Each input of dynamic
    shape becomes a `memref<0xT>`, which the bare-pointer calling
    convention passes as the caller's data pointer, and its uses read a
    `memref.reinterpret_cast` of it to the run's sizes (row-major strides,
    the default layout). A symbol the function bounds
    (`mlc_graph.dim_bounds`, from `--dim-max`) is checked against its bound
    (a `cf.assert` naming the input and dim, which
    `mlc-host-lower-assertions` makes the run's error) and clamped to it,
    so that every size computed from it has the bound the memory plan
    places its buffer at.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::memref::MemRefDialect"];
}

def HostLowerAssertions : Pass<"mlc-host-lower-assertions",
                                "mlir::ModuleOp"> {
  let summary = "Run-time checks of a model become its error status";
  let description = [{
    Runs after bufferization, before `mlc-host-plan-arena`. A public
    function's `cf.assert`s (a branch that cannot run at the compiled
    shapes, a run-time check of a condition the model needs) do not abort
    the program: each stores its number (1, 2, ...) into a status word,
    a `memref<1xi32>` the function allocates and zeroes first and that the
    arena plan keeps to the end of the run (`mlc_loop.status`). The
    messages, in that order, become the function's
    `mlc_loop.check_messages`; the entry point returns MLC_ERROR_CHECK
    when the word is not zero, and the runtime reads which check failed
    from the arena. The run goes on after a failed check (on zeros), so a
    failed check must leave every later access in bounds. An assertion that
    always fails (outside any branch, on a constant false) is a compile
    error with its message.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def HostPlanArena : Pass<"mlc-host-plan-arena", "mlir::ModuleOp"> {
  let summary = "Static memory plan: place every buffer in one arena";
  let description = [{
    Runs after bufferization and `buffer-results-to-out-params`. Every
    statically shaped `memref.alloc` in a public function's body becomes a
    `memref.view` into a new leading function argument, the arena
    (`memref<Nxi8>`). Offsets are planned at compile time from the buffers'
    live ranges (from the allocation to the last use of the buffer or of any
    view of it, measured on the function's top-level operations): buffers
    whose live ranges do not overlap share memory. Placement is greedy by
    decreasing size, first fit, 64-byte aligned. The arena size is recorded
    as `mlc_loop.arena_size`. The status word of run-time checks
    (`mlc_loop.status`, from `mlc-host-lower-assertions`) lives to the end
    of the function, and its offset is recorded as
    `mlc_loop.status_offset`.

    A scratch buffer allocated inside a loop (a cache block of a
    right-hand side packed at run time), statically shaped and at most
    `loop-scratch-bytes` (a number from the backend's target description),
    is left to the backend (the CPU's `mlc-cpu-stack-scratch` puts it on the
    stack). A buffer allocated inside
    the branches of `scf.if`s (an ONNX If decided at run time) is allocated
    before the outermost of them: it gets its place for the whole `if`.
    A buffer of dynamic size (a NonZero's count, or sizes from symbolic
    dims) stays on the heap and is freed after its last use in the block
    it is allocated in; with `cache-heap-buffers` it is taken from a cache
    of blocks in the arena (`mlc_loop.buffer_cache_offset`) and given back
    there instead, so that runs after the first reuse memory already
    mapped (BufferCache.h). One
    marked `mlc_loop.caller_owned` (an output the model allocates) is left
    alone. Any other buffer of dynamic size, or allocated inside a loop,
    cannot be planned statically; the pass reports it as an error.
  }];
  let options = [
    Option<"loopScratchBytes", "loop-scratch-bytes", "int64_t",
           /*default=*/"0",
           "Loop-local buffers of at most this many bytes stay out of the "
           "arena, for the backend to place (0: none)">,
    Option<"cacheHeapBuffers", "cache-heap-buffers", "bool",
           /*default=*/"false",
           "Buffers of run-time size come from a cache in the arena that "
           "keeps their blocks across runs, instead of malloc and free">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def HostExternalizeWeights : Pass<"mlc-host-externalize-weights",
                                   "mlir::ModuleOp"> {
  let summary = "Move the weights out of the object into one blob";
  let description = [{
    Runs on buffers, after `mlc-host-plan-arena`. Every constant
    `memref.global` with non-splat data that only public model functions
    read is laid out in one blob (each at a 64-byte aligned offset) and
    removed; its `memref.get_global`s become `memref.view`s into a new
    argument after the arena, the weights (`memref<Nxi8>`). The blob is
    attached to the module as `mlc_loop.weights` (a `dense_resource` of `i8`) for
    the driver to write beside the object, and each model function records
    `mlc_loop.weights_size`, `mlc_loop.weights_hash` (FNV-1a, 64 bits, over the blob)
    and `mlc_loop.weights_file` (the option `file`) for its metadata and header.
    Splat constants and globals other functions read stay in the object.
  }];
  let options = [
    Option<"fileName", "file", "std::string", /*default=*/"\"weights.bin\"",
           "Name of the weights file recorded in the model's metadata">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def HostEmitEntryPoints : Pass<"mlc-host-emit-entry-points", "mlir::ModuleOp"> {
  let summary = "Wrap lowered model functions in the C entry points";
  let description = [{
    Runs on the LLVM dialect, after `convert-func-to-llvm` with the bare
    pointer calling convention. For every function carrying an
    `mlc_loop.signature` it adds
    `int32_t <name>_run(void *arena, const void *const *inputs,
    void *const *outputs)`, which unpacks the pointer arrays and calls the
    function (made internal so that LLVM inlines it), and the constant string
    `<name>_metadata` with the signature as JSON. With `shared-aliases`, a
    module holding one model also gets `mlc_model_run` and
    `mlc_model_metadata`, the names loaders of shared libraries look up.
    A function whose weights `mlc-host-externalize-weights` moved out gets
    `int32_t <name>_run_with_weights(const void *weights, void *arena,
    const void *const *inputs, void *const *outputs)` instead (and
    `mlc_model_run_with_weights`). With `target-triple`, the metadata
    also records the triple, CPU and features the code needs.
    A model whose signature has symbols (a batch `mlc-graph-separate-batch`
    compiled for one sample) takes their values, `const int64_t *dims`,
    as the first parameter of each entry point: it returns MLC_ERROR_SHAPE
    for a batch out of range and otherwise calls the function once per
    sample, each batched input and output advanced by one sample's bytes.
  }];
  let options = [
    Option<"sharedAliases", "shared-aliases", "bool", /*default=*/"false",
           "Also export mlc_model_run and mlc_model_metadata">,
    Option<"targetTriple", "target-triple", "std::string", /*default=*/"",
           "Target triple recorded in the metadata (none when empty)">,
    Option<"targetCPU", "target-cpu", "std::string", /*default=*/"",
           "CPU name recorded in the metadata">,
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"", "CPU features recorded in the metadata">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def HostFlattenConstants : Pass<"mlc-host-flatten-constants",
                                "mlir::func::FuncOp"> {
  let summary = "Store multi-dimensional weights as flat arrays";
  let description = [{
    Runs just before bufferization. Every non-splat tensor constant of rank
    two or more becomes a one-dimensional constant over the same data
    (a `dense_resource` blob is shared, not copied) followed by a
    `tensor.expand_shape` back to its shape, which bufferizes to a view.
    The weights then become flat LLVM arrays: translating a nested array
    creates one uniqued LLVM constant per innermost row, which for a
    ResNet-50 meant millions of constants and gigabytes of compile memory.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def HostExpandDynamicReshapes : Pass<"mlc-host-expand-dynamic-reshapes",
                                     "mlir::func::FuncOp"> {
  let summary = "Views for expand_shapes that split one dim into several "
                "known at run time";
  let description = [{
    Runs before `expand-strided-metadata`, which takes at most one size
    known at run time per reassociation group (it would infer that one from
    the source's size). A `memref.expand_shape` with more (a convolution's
    output pixels `oh * ow`, both from the input's size, split back into
    rows and columns) becomes a `memref.reinterpret_cast` of its source with
    the sizes of its `output_shape` and the strides they imply: within a
    group, each dim's stride is the next one's times its size, and the last
    keeps the source dim's stride.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
}

def HostOutlineKernels : Pass<"mlc-host-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Give every loop nest of a model its own function";
  let description = [{
    Runs on buffers, after the arena plan. Every top-level operation with
    regions (a linalg op, a tiled loop nest) in a model function moves into
    a private function of its own, named `<model>_k<N>_<node>` after the
    ONNX node it came from, marked `noinline` with internal linkage, and is
    replaced by a call.
    Constants are re-created inside; other values (globals included)
    become arguments. A buffer of run-time size (identity layout) is passed as a
    `memref<0xT>` view of its data and one index per dynamic dim, and
    viewed again at those sizes inside (`memref.reinterpret_cast`,
    row-major strides). Operations with other arguments, or with results
    that are not static identity-layout memrefs or scalars (a loop carrying
    a buffer of run-time size), stay where they are (the bare-pointer
    calling convention cannot pass them).

    One function per kernel keeps LLVM's per-function analyses small: with
    the whole model in one function, ScalarEvolution's walks up long chains
    of loops made BERT-base take over a minute to compile. It also gives
    profiles one symbol per kernel.

    Weights (globals) are passed as arguments, not read inside, so the
    kernels of repeated blocks (a transformer's layers) are the same
    function but for their names; with `share-identical`, each set of
    identical kernels (same type, same body but for locations) keeps one
    function that every call uses, and LLVM compiles it once.
  }];
  let options = [
    Option<"shareIdentical", "share-identical", "bool", /*default=*/"true",
           "One function for kernels with identical bodies">
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def HostInstrumentKernels : Pass<"mlc-host-instrument-kernels",
                                 "mlir::ModuleOp"> {
  let summary = "Time every kernel call of a model (mlc-compile --profile)";
  let description = [{
    Runs after `mlc-host-outline-kernels`. Each call of a model to one of
    its kernels (`<model>_k<N>_<node>`) is bracketed by reads of
    `clock_gettime(CLOCK_MONOTONIC)`, and the nanoseconds between them are
    added atomically (runs may be concurrent) to entry `k` of the public
    array `<model>_profile` (`int64_t[K]`, zero at load). The kernels'
    names, in the same order and each ended by a newline, are the public
    string `<model>_profile_names`. A loader that finds both symbols
    (`mlc-run --profile`) zeroes the array, runs, and reads time per
    kernel; a model compiled without the pass has neither.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def HostByteWeights : Pass<"mlc-host-byte-weights", "mlir::ModuleOp"> {
  let summary = "Store blob-backed weights as byte arrays";
  let description = [{
    Runs on buffers. Every constant `memref.global` initialized from a
    `dense_resource` blob gets the type `memref<Bxi8>` over the same bytes
    (64-byte aligned), and each `memref.get_global` of it becomes a
    `memref.view` back to the original type. LLVM's object writer emits a
    byte array as one block of data, but a float array one element at a
    time through APFloat, which made emitting BERT-base's 440 MB of weights
    a large share of its compile time.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def HostVerifyLLVM : Pass<"mlc-host-verify-llvm", "mlir::ModuleOp"> {
  let summary = "Check the contract of the LLVM phase";
  let description = [{
    What serialization assumes at the end of a host lowering: every op of
    the module is in the LLVM dialect (or OpenMP's, for threads), and each
    model function that carries a signature carries its arena size too. The first op that breaks it is reported.
  }];
}

#endif // MLC_TARGET_HOST_PASSES_TD
