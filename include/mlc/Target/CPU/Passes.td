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

def CPULowerCopies : Pass<"mlc-cpu-lower-copies", "mlir::ModuleOp"> {
  let summary = "Copies between buffers become row memcpys";
  let description = [{
    Runs on buffers, before the remaining linalg ops become loops. Copies
    into and out of strided views (the interior of a padded input, a
    concatenation's slice, an im2col row) would otherwise become scalar
    loops that LLVM fully unrolls and cannot vectorize (source and
    destination are views of the same arena, so it cannot tell them apart),
    and `memref.copy` between strided views would call `memrefCopy` from
    MLIR's runner-utils library, which compiled models must not need.

    Every `linalg.copy` and `memref.copy` of statically shaped buffers whose
    innermost dimension has unit stride on both sides becomes loops over the
    outer dimensions around one `memref.copy` of the longest run of elements
    that is contiguous in both (a row, or several rows, or the whole
    buffer), which the LLVM lowering emits as `llvm.memcpy`: LLVM expands a
    short constant-size one into vector moves and calls libc's `memcpy` for
    long ones. Other copies with non-contiguous operands become `linalg.copy`
    (element loops).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect"];
}

def CPUStackScratch : Pass<"mlc-cpu-stack-scratch", "mlir::ModuleOp"> {
  let summary = "Loop-local scratch buffers on the stack of their thread";
  let description = [{
    Runs after the parallel loops became OpenMP loops. Every scratch buffer
    that `mlc-host-plan-arena` left (statically shaped, at most `max-bytes`,
    allocated inside a loop: a cache block of a right-hand side packed at
    run time) becomes a `memref.alloca` on the stack of the thread that runs
    the loop body, between a stack save and a restore at the end of its
    block, so that the stack does not grow with the trip count. (Upstream's
    `memref.alloca_scope` cannot hold it: its region must stay one block.)
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"524288",
           "Largest loop-local buffer put on the stack (the CPU target "
           "description's stack scratch size)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect"];
}

def CPUChooseLayouts : Pass<"mlc-cpu-choose-layouts", "mlir::func::FuncOp"> {
  let summary = "The CPU strategy's layout choices, as #mlc_loop.layout";
  let description = [{
    Decides, before kernels form, how each convolution and contraction lays
    out its data, and writes it as `mlc_loop.layout`; the generic layout
    passes of the loop dialect then do it (Architecture.md, "Layouts").

    - A convolution (batch 1, constant weights) on a small output map
      becomes a `[pixels, channels]` matmul (`matmul`, with `panel` so that
      its weights pack): 1x1 convolutions on maps of at most
      kMaxPointwisePixels pixels, and any convolution on maps of at most
      kMaxPixels pixels whose reduction is at least kMinDepth deep and whose
      output channels are a multiple of `panel`. As a convolution the
      pixels are the vector columns (49 = 3 x 16 + 1 on a 7x7 map) and the
      weights are read in rows. Measured on Zen 5, one thread, with bias
      and ReLU: 7x7 1x1 512 -> 2048 0.85 -> 0.61 ms, 14x14 3x3 256 -> 256
      1.10 -> 0.94 ms, 7x7 3x3 512 -> 512 1.34 -> 0.92 ms, 14x14 1x1
      1024 -> 256 0.49 -> 0.43 ms; shallower reductions on 14x14 maps lose
      more to the result's transpose than the contraction saves.
    - Every other static f32 convolution becomes an im2col contraction
      (`im2col`), its matrix's rows aligned to cache lines with
      `align-columns` (ResNet-18 layer4's 3x3 convolutions: 3.6 -> 3.1 ms)
      and its filter's rows one cache line longer when they are a multiple
      of 2 KiB apart (`row_pad`: such rows map to a handful of level 1
      cache sets; K 1024 1x1 convolutions 103 -> 162 GFLOP/s on Zen 5).
    - A depthwise convolution (batch 1, unit strides and dilations) on a
      narrow map is computed channels-last (`channels_last`): output rows
      that fill at most half a vector of `lanes` floats, and rows narrower
      than two vectors on maps of at most kMaxWidePixels pixels with windows
      of at least kMinWideTaps taps.
    - A contraction whose right-hand side is a constant that packs in
      panels of `panel` columns reads it packed (`packed`).

    The thresholds are the CPU description's tuned constants (TargetInfo.h).
  }];
  let options = [
    Option<"panel", "panel", "int64_t", /*default=*/"16",
           "Columns per panel of packed weights (the register tile's "
           "width); 0: no weights packed, and small convolutions taken "
           "whatever their output channels">,
    Option<"lanes", "lanes", "int64_t", /*default=*/"0",
           "Floats per vector register; 0: no depthwise convolution "
           "channels-last">,
    Option<"matmuls", "matmuls", "bool", /*default=*/"true",
           "Convolutions on small maps as matmuls">,
    Option<"alignColumns", "align-columns", "bool", /*default=*/"true",
           "Align the rows of im2col matrices to cache lines">,
  ];
  let dependentDialects = ["mlc::loop::LoopDialect"];
}

def CPUIntegerContractions : Pass<"mlc-cpu-integer-contractions",
                                   "mlir::func::FuncOp"> {
  let summary = "Quantized matmuls and convolutions as exact 16-bit integer "
                "contractions";
  let description = [{
    A `linalg.matmul` or batch-1 `linalg.conv_2d_nchw_fchw` whose operands
    are dequantized integers (QuantizedOperands.h: 8-bit activations per
    tensor, constant int8 weights with a zero point of 0, per tensor or
    per output channel; or MatMulInteger's, ConvInteger's and the QLinear
    ops' widened operands) is computed in integers instead of floats:

    - the activations widened to i16 with their zero point subtracted
      (`q - z`, exact: -255..255), in pairs along the reduction;
    - a matmul: its rows `[rows, depth / 2, 2]` times its weights, packed
      when compiling as i16 panels of `panel` columns of pairs (`[columns /
      panel, depth / 2, panel, 2]`, columns padded to whole panels);
    - a convolution: its filters as rows (`[filters, KH * KW * C2, 2]`, C2
      channel pairs, an odd C padded with a zero channel) times the
      columns of pixels of its im2col matrix with channels in pairs
      (`[KH * KW * C2, pixels, 2]`, padded with 0, the zero point's value),
      whose sums are NCHW; on the small maps where the f32 path makes
      convolutions matmuls (TargetInfo.h), pixels as rows times the filter
      packed as a matmul's weights, the sums transposed back;
    - a `linalg.generic` contraction with i32 sums, which the CPU strategy
      schedules like its f32 ones and its register level lowers to
      multiply-adds of pairs (`pair-multiply-add`: one x86 `vpmaddwd` per
      8 or 16 columns and pair, exact since both factors fit in 9 bits);
    - the sums times `sa * sw[column]` in f32 (plus a convolution's bias),
      or as they are for an int32 result.

    A matmul of odd depth stays in floats. Half the bytes of f32 for the
    weights and the activations, twice the multiply-adds per instruction
    of f32 FMAs.
  }];
  let options = [
    Option<"panel", "panel", "int64_t", /*default=*/"16",
           "Columns per panel of the packed weights (the register tile's "
           "width); 0: nothing rewritten">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUReassociateSums : Pass<"mlc-cpu-reassociate-sums",
                                "mlir::func::FuncOp"> {
  let summary = "Let LLVM vectorize floating-point sums";
  let description = [{
    In every linalg op with a reduction loop, the `arith.addf` that adds
    into the accumulator gets the `reassoc` fast-math flag. A float sum
    in source order is one long dependence chain that LLVM must keep
    scalar (GlobalAveragePool, ReduceMean/Sum, the sums of softmax and
    layer normalization: one `vaddss` per element, bound by its latency);
    with `reassoc`, the loop vectorizer keeps several vector partial sums
    and adds them at the end. Summing in a different order changes
    rounding, and partial sums are usually closer to the exact sum than
    one running sum.

    Trailing reduction loops that the input reads as its innermost dims
    (GlobalAveragePool's rows and columns) become one loop over a collapsed
    view first, so the vectorizer sees one long contiguous sum; with a
    row-long inner loop LLVM vectorized across rows with gathers.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUApproximateMath : Pass<"mlc-cpu-approximate-math",
                               "mlir::func::FuncOp"> {
  let summary = "Polynomial erf, tanh and exp instead of libm calls";
  let description = [{
    Rewrites f32 `math.erf`, `math.tanh` and `math.exp` into upstream's
    polynomial approximations (arith ops, accurate to a few ULP). A libm call
    per element keeps LLVM from vectorizing the loops of GELU, softmax,
    sigmoid and SiLU; the polynomials vectorize.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUScalarMinMax : Pass<"mlc-cpu-scalar-min-max", "mlir::ModuleOp"> {
  let summary = "Scalar float min/max as LLVM intrinsics, so reductions vectorize";
  let description = [{
    Rewrites scalar `arith.maxnumf`, `arith.minnumf`, `arith.maximumf` and
    `arith.minimumf` into `llvm.intr.maxnum`, `minnum`, `maximum` and
    `minimum`, which have the same NaN and signed-zero semantics. Runs just
    before `arith-expand`, which would otherwise spell each one as compares
    and selects: LLVM's loop vectorizer does not recognize those as a min or
    max reduction, so a row maximum (softmax's, ReduceMax's) stayed scalar,
    one element per iteration and a store of the running maximum each
    time. The intrinsics are min/max recurrences it vectorizes. Vector
    min/max (pooling windows the tiling pass vectorized) stays expanded:
    the compare-and-select sequence is shorter on x86 than the intrinsic's
    lowering.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def CPUCollapseElementwiseRows
    : Pass<"mlc-cpu-collapse-elementwise-rows", "mlir::func::FuncOp"> {
  let summary = "Elementwise kernels over short rows iterate rows and columns "
                "as one loop";
  let description = [{
    The CPU's layout choice for an elementwise kernel, before its strategy
    schedules it: a root that is an all-parallel `linalg.generic` reading
    every operand in loop order, none a constant or a slice of a larger
    tensor, whose innermost loop is shorter than `min-row`, has its two
    innermost loops collapsed into one (CollapseElementwiseRows.h). LLVM
    then vectorizes a long contiguous loop instead of unrolling a short row
    and gathering across channels (ResNet-50's 512 x 28 x 28 residual add +
    ReLU ran 6x slower per element than its 256 x 56 x 56 one).
  }];
  let options = [
    Option<"minRow", "min-row", "int64_t", /*default=*/"256",
           "Innermost loops at least this long stay as they are">,
  ];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlc::loop::LoopDialect"];
}

def CPUSetSchedules : Pass<"mlc-cpu-set-schedules", "mlir::func::FuncOp"> {
  let summary = "The CPU strategy: a #mlc_loop.schedule for each kernel";
  let description = [{
    Decides, for every `mlc_loop.kernel` whose root is a contraction the
    CPU code generator vectorizes (f32, static, its innermost result dim
    contiguous in one operand), the schedule `mlc-cpu-tile-and-vectorize`
    applies: loop order (batch, rows, columns, reduction), thread chunks,
    cache blocks and the register tile, from the tiles of the CPU's target
    description (`m-tile` ... `unpacked-tiles`, filled by the CPU pipeline)
    and the contraction's shape (ContractionStrategy.h). Any other kernel
    that is not a sliding window (a reduction, an elementwise op, a gather,
    a transpose) gets a first tile level of the chunks its loops run in on
    threads, all 0 for one thread (LoopNestStrategy.h), and a transpose of
    the two innermost dims a second level: its register tile, transposed in
    registers. A schedule file
    (`schedule-file`, lines as `print-schedules` writes them) replaces the
    decision for the kernels it names, after checking that it fits.

    Before: `mlc_loop.kernel "Gemm_0" ...` without a schedule. After:
    `mlc_loop.kernel "Gemm_0" ... schedule = #mlc_loop.schedule<tile_sizes =
    [[0, 0, 0], [0, 0, 0], [3, 4, 1]], vector_sizes = [3, 4, 1],
    parallel_dims = []>`.
  }];
  let options = [
    Option<"mTile", "m-tile", "int64_t", /*default=*/"6",
           "Rows of the result per register tile">,
    Option<"nTile", "n-tile", "int64_t", /*default=*/"16",
           "Columns of the result per register tile">,
    Option<"kTile", "k-tile", "int64_t", /*default=*/"256",
           "Reduction depth per cache tile (0: not tiled)">,
    Option<"nBlock", "n-block", "int64_t", /*default=*/"128",
           "Columns of the result per cache tile (0: not tiled)">,
    ListOption<"unpackedTilesOption", "unpacked-tiles", "int64_t",
               "Tiles (m, n, k, n-block[, register m, register n]) of "
               "contractions whose right-hand side is read in rows">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Large contractions run on threads">,
    Option<"printSchedules", "print-schedules", "bool", /*default=*/"false",
           "Print each kernel's schedule to stdout: its name, the root's "
           "loop ranges and the #mlc_loop.schedule">,
    Option<"scheduleFile", "schedule-file", "std::string", /*default=*/"",
           "Schedules that replace the strategy's for the kernels they "
           "name">,
  ];
  let dependentDialects = ["mlc::loop::LoopDialect"];
}

/// The options the tiling passes share: the tiles of the CPU description,
/// threads and the steps that can be switched off.
defvar cpuTilingOptions = [
    Option<"mTile", "m-tile", "int64_t", /*default=*/"6",
           "Rows of the result per register tile">,
    Option<"nTile", "n-tile", "int64_t", /*default=*/"16",
           "Columns of the result per register tile (a multiple of the "
           "vector width)">,
    Option<"kTile", "k-tile", "int64_t", /*default=*/"256",
           "Reduction depth per cache tile (0: not tiled)">,
    Option<"nBlock", "n-block", "int64_t", /*default=*/"128",
           "Columns of the result per cache tile (0: not tiled)">,
    ListOption<"unpackedTilesOption", "unpacked-tiles", "int64_t",
               "Tiles (m, n, k, n-block[, register m, register n]) of "
               "contractions whose right-hand side is read in rows "
               "(activations, im2col matrices, weights not packed) and of "
               "sliding windows (n only); default: the tiles above, which "
               "packed weights always use">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register: left-over register tiles wider "
           "than this are split into whole vectors and the rest">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Split large contractions into an scf.forall over row or column "
           "chunks (threads, through OpenMP)">,
    Option<"printSchedules", "print-schedules", "bool", /*default=*/"false",
           "Print each contraction's schedule to stdout, one line per "
           "kernel: its ONNX node name, loop ranges and "
           "#mlc_loop.schedule (thread, cache and register tile sizes)">,
    Option<"scheduleFile", "schedule-file", "std::string", /*default=*/"",
           "Read schedules from this file (lines as print-schedules "
           "writes them) and use them instead of the heuristic's for the "
           "kernels they name">,
    Option<"lowerContractions", "lower-contractions", "bool",
           /*default=*/"true",
           "Lower vector.contract to outer products and FMAs">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Run a contraction's elementwise user on each finished tile">,
    Option<"stride2Windows", "stride2-windows", "bool", /*default=*/"true",
           "Depthwise convolutions and max pools with column stride 2 as "
           "vector loops that split the columns in registers "
           "(Stride2WindowsInRegisters.h) instead of column phases copied through "
           "memory">,
    Option<"pairMultiplyAdd", "pair-multiply-add", "std::string",
           /*default=*/"\"\"",
           "The LLVM intrinsic that multiplies adjacent i16 pairs and adds "
           "each pair's products into an i32 lane, for integer "
           "contractions of pairs (mlc-cpu-integer-contractions): "
           "llvm.x86.avx2.pmadd.wd or llvm.x86.avx512.pmaddw.d.512; "
           "empty: shuffles, extensions, multiplies and adds">,
    Option<"packBlocks", "pack-blocks", "bool", /*default=*/"false",
           "Copy each cache block of a right-hand side computed at run time "
           "(an im2col matrix) into panels before its register tiles read "
           "it (off by default: within noise on ResNet-18/50 and "
           "MobileNetV2 on AVX2, see docs/CPU.md)">,
  ];

def CPUTileAndVectorize : Pass<"mlc-cpu-tile-and-vectorize",
                                "mlir::func::FuncOp"> {
  let summary = "Register-blocked, vectorized contractions (matmul, conv)";
  let description = [{
    Runs on linalg on tensors, before bufferization, after
    `mlc-loop-convolutions-as-contractions`. A contraction that carries a
    `mlc_loop.schedule` (the CPU strategy's, `mlc-cpu-set-schedules`, left
    by `mlc-loop-dissolve-kernels`) is tiled as it says: its thread, cache
    and register levels and loop order. Run alone, the pass decides the
    same schedule itself from the options below. Every f32 contraction with
    static shapes whose innermost `n` dimension is contiguous in the result
    is tiled with upstream `TilingInterface` tiling:

    - a cache level over `k` and `n` (`k-tile` by `n-block`, so that a block
      of the right-hand side stays in cache while it is reused),
    - a register level of `m-tile` rows by `n-tile` columns of the result,
      with `k` innermost and stepping by one.

    These sizes are for weights packed by `mlc-loop-pack-weights` (a
    constant right-hand side whose column dim is split into panels); a
    right-hand side read in rows (activations, im2col matrices, unpacked
    weights) and sliding windows take `unpacked-tiles` when given (the CPU
    pipeline gives tiles at most one cache line wide there). Its optional
    fifth and sixth sizes are a register tile for such contractions that
    differs from the (m, n) that sizes their thread chunks and cache blocks
    (the CPU pipeline gives 8 x 32 with AVX-512, chunks as for 16 x 16).

    With `parallel`, a contraction of at least 1 MFLOP first gets an
    `scf.forall` level over chunks of its columns (`n`: a convolution's
    output pixels, so that each thread reads back what it wrote), else of
    its weight panels when they are packed (each thread streams its share),
    else of its rows; chunk counts are even or at least 8 where a size
    allows. The CPU pipeline maps it to OpenMP. A convolution whose columns
    split into chunks of whole output rows (a whole number of vectors, an
    even chunk count or at least 8, at most 512 KiB of im2col block for the
    batch) gathers each chunk's block of the im2col matrix inside the
    thread loop, right before its register tiles read it, instead of the
    whole matrix before the loop.

    An elementwise op that is the contraction's only user and reads nothing
    else but scalars (an activation: ReLU, Clip, SiLU, GELU, HardSwish),
    directly or through the `tensor.expand_shape` of a convolution, moves
    into the tiled loops with `fuse-epilogues`: it runs in place on each
    part of the result as soon as the reduction over it is complete (after
    the `k` cache loop, per `n` block), while that part is in cache, instead
    of as a pass of its own over the whole result.

    Register-level loops whose trip count does not divide evenly are peeled,
    so that every tile, the left-over ones included, has a static shape; a
    left-over tile wider than one vector register (8 floats) but not a
    multiple of it is split into whole registers and the rest. The tiles are
    vectorized (`linalg::vectorize`), their `vector.contract` is lowered to
    outer products (broadcast + FMA) and the accumulator tile is hoisted out
    of the `k` loop into vector registers.
  }];
  let options = cpuTilingOptions;
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUTileThreadsAndCaches : Pass<"mlc-cpu-tile-threads-and-caches",
                                   "mlir::func::FuncOp"> {
  let summary = "The first half of mlc-cpu-tile-and-vectorize: threads and "
                "caches";
  let description = [{
    `mlc-cpu-window-register-tiles`, `mlc-cpu-tile-by-schedule` and
    `mlc-cpu-parallelize-loop-nests` in one pass, for tests on linalg ops
    outside kernels: a contraction without a `mlc_loop.schedule` first gets
    the one `mlc-cpu-set-schedules` would give it (with `schedule-file` and
    `print-schedules`). The register tiles are left as
    `mlc_loop.register_tiles` and `mlc_loop.loop_order` marks.
  }];
  let options = cpuTilingOptions;
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUWindowRegisterTiles : Pass<"mlc-cpu-window-register-tiles",
                                  "mlir::func::FuncOp"> {
  let summary = "Windows and transposes prepared for their register tiles";
  let description = [{
    The first step from schedules to code (ScheduleTiling.h). A sliding
    window (NCHW depthwise convolution, max or sum pooling) with column
    stride 2 is split in registers (with `stride2-windows`), other strided
    windows into column phases; each window's loops are reordered (output
    dims but the last, window dims, output columns) and marked with its
    register tile (`mlc_loop.register_tiles`, `mlc_loop.loop_order`): its
    `mlc_loop.schedule`'s, else `columns` output columns. Transposes of the
    two innermost dims are marked with theirs (one vector per row). Marked
    ops start their accumulators from their init; a window's activation is
    prepared to run on each finished row.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register">,
    Option<"columns", "columns", "int64_t", /*default=*/"16",
           "Output columns of a window's register tile when it has no "
           "schedule">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Stride-2 windows made for threads">,
    Option<"stride2Windows", "stride2-windows", "bool", /*default=*/"true",
           "Split stride-2 windows' columns in registers (else in column "
           "phases through memory)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Run a window's activation on each finished row">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUTileBySchedule : Pass<"mlc-cpu-tile-by-schedule", "mlir::func::FuncOp"> {
  let summary = "mlc-loop-tile-by-schedule with the CPU's policy";
  let description = [{
    The generic tiling of `mlc-loop-tile-by-schedule` (thread chunks as an
    `scf.forall`, cache tiles as peeled `scf.for` loops, epilogues on
    finished tiles, register tiles marked), with what the CPU's register
    code needs around a contraction's tiles: when no loop level splits its
    reduction, each register tile starts its accumulators from the
    contraction's init (a zero or a bias) instead of the whole result being
    initialized first; a thread chunk of a convolution gathers its own
    columns of the im2col matrix (and each reduction block its rows) right
    before its register tiles read them.
  }];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Run a contraction's elementwise user on each finished tile">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUParallelizeLoopNests : Pass<"mlc-cpu-parallelize-loop-nests",
                                   "mlir::func::FuncOp"> {
  let summary = "Pads, rows and the remaining loop nests on threads";
  let description = [{
    After `mlc-cpu-tile-by-schedule`: constant pads become fills of their
    borders and a copy of their interior; elementwise ops with short rows
    are collapsed into long ones; with `parallel`, every other large loop
    nest at the top of the function (windows, gathers, fills and copies of
    pads, ops the CPU's rewrites made) is split into an `scf.forall` of
    chunks, as its schedule says when the strategy decided one, else by the
    strategy's rule for loop nests; loops marked for peeling are peeled and
    the function canonicalized.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Split large loop nests into chunks for threads">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUVectorizeRegisterTiles : Pass<"mlc-cpu-vectorize-register-tiles",
                                     "mlir::func::FuncOp"> {
  let summary = "The second half of mlc-cpu-tile-and-vectorize: register "
                "tiles, vectorized";
  let description = [{
    Every op marked with `mlc_loop.register_tiles` (by
    `mlc-cpu-tile-by-schedule` or `mlc-cpu-window-register-tiles`) is tiled to that tile in its
    `mlc_loop.loop_order`, its accumulators start in registers, remainder
    tiles are split into whole vectors and the rest, the tiles are
    vectorized, their accumulators hoisted out of the reduction loop, and
    `vector.contract` becomes outer products and FMAs. The marks are gone
    afterwards.
  }];
  let options = cpuTilingOptions;
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlc::loop::LoopDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

#endif // MLC_TARGET_CPU_PASSES_TD
