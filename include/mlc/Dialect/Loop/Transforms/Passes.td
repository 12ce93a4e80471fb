//===- Passes.td - Target-independent loop-level rewrites -----*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rewrites of loop-level IR (linalg on tensors) that any backend runs
// before its own strategy: weight transposes folded into constants,
// elementwise fusion into contraction accumulators, concatenations written
// in place.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_PASSES_TD
#define MLC_DIALECT_LOOP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LoopSimplifyShapes : Pass<"mlc-loop-simplify-shapes",
                              "mlir::func::FuncOp"> {
  let summary = "Fold what is known about sizes known at run time";
  let description = [{
    The lowering reads sizes known at run time with `tensor.dim` and emits a
    check wherever two of them must agree. Many are the same value by
    construction (an elementwise op's operands, both computed from the same
    input), which this pass proves with upstream's value-bounds analysis
    and folds, so that such a model's loop nests form the same kernels as a
    static one's:
    - `tensor.dim` of an op's result becomes the size it was built with
      (upstream's ReifyRankedShapedTypeOpInterface): no second use keeps a
      producer out of its consumer's kernel;
    - `arith.cmpi eq` (`ne`) of index values proven equal becomes true
      (false), and with it the `cf.assert` of a check that always holds
      and the `arith.select`s of the sizes it guards;
    - a `tensor.extract_slice` of a whole tensor (zero offsets, unit
      strides, sizes proven equal to the source's) becomes the tensor.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def LoopFuseElementwise : Pass<"mlc-loop-fuse-elementwise",
                               "mlir::func::FuncOp"> {
  let summary = "Fold additions into contraction accumulators and fuse "
                "elementwise chains";
  let description = [{
    Two rewrites on linalg ops over tensors, before tiling:

    1. `add(C, Y)`, where `C` is the only use of a contraction (matmul,
       convolution, any linalg op whose reduction accumulates with `addf`)
       whose accumulator starts as `I` and `Y` is broadcast by the add (a
       bias, `Gemm`'s `C` row), becomes the contraction started at `I + Y`
       (just the broadcast `Y` when `I` is a zero fill): the bias costs no
       pass of its own and the zero fill disappears. `C` may also reach the
       add through a `tensor.expand_shape` (a matmul whose batch dims became
       rows) when `Y` reads only dims the reshape leaves alone. Full-size addends
       (residuals) are left to the add, for precision.
    2. Upstream's elementwise fusion, limited to all-parallel producers with
       a single use whose consumer is all-parallel and reads them through a
       permutation: activation chains (GELU, SiLU, add + relu) become one
       loop nest, nothing is recomputed per broadcast element and nothing is
       pulled into a reduction.

    Then, in the fused bodies, `uitofp(fptoui(v))` (or `sitofp(fptosi(v))`)
    becomes `v` when `v` is an integral value clamped by constants into the
    integer type's range: a QuantizeLinear fused with its
    DequantizeLinear no longer converts to 8 bits and back.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LoopConcatInPlace : Pass<"mlc-loop-concat-in-place", "mlir::func::FuncOp"> {
  let summary = "Producers of a concatenation write into its slices";
  let description = [{
    A concatenation (a `tensor.empty` filled by a chain of
    `tensor.insert_slice`s) is moved to where its parts are ready: the
    destination right before the first part's producer, each insertion
    right after its part. Then the `tensor.empty` each part is computed into
    (followed back through reshapes, `scf.forall` shared outputs and
    destination-style inits) is replaced by the destination's slice,
    reshaped to its type, so that one-shot bufferization writes the part in
    place: the convolutions of a SqueezeNet fire module write into the
    concatenation instead of into buffers of their own copied after (5.8 MB
    of copies per SqueezeNet 1.1 run, 2% of its time at one thread).
    Upstream's empty-tensor elimination follows only values of one type,
    and a convolution's `[1, c, h*w]` result is expanded before it is
    inserted. Any value may stand for an empty tensor, so the rewrite is
    always correct; bufferization still copies where writing in place would
    conflict.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def LoopFoldWeightTransposes : Pass<"mlc-loop-fold-weight-transposes",
                                    "mlir::func::FuncOp"> {
  let summary = "Transpose constant weights at compile time";
  let description = [{
    A `linalg.transpose` whose input is a constant (`dense` or
    `dense_resource`, any element type of whole bytes) is replaced by a new
    constant holding the transposed data. Exporters spell `Gemm`/`MatMul`
    weights as `[out, in]` with `transB`; transposing them at every run
    costs a strided pass over the whole weight (for ResNet-50's classifier,
    8 MB with a 8 KB stride). The result has the same size as the input, so
    the fold never grows the model.
  }];
}

def LoopConvolutionsAsMatmuls : Pass<"mlc-loop-convolutions-as-matmuls",
                                     "mlir::func::FuncOp"> {
  let summary = "Convolutions laid out as matmuls become pixel-major matmuls";
  let description = [{
    A `linalg.conv_2d_nchw_fchw` (batch 1, constant weights) whose
    `mlc_loop.layout` is `matmul` becomes `transpose(X^T W^T)`: pixels are
    the rows and output channels the columns of a contraction whose
    right-hand side is the constant `W^T` (which
    `mlc-loop-fold-weight-transposes` then folds; with the layout's
    `panel`, the contraction's own layout is `packed` for
    `mlc-loop-pack-weights`). `X` is the input as `[c, p]` for a 1x1
    convolution with unit strides, else its im2col matrix `[c*kh*kw, p]`,
    read in place through the contraction's indexing map. An activation
    that is the convolution's only user runs before the transpose back, so
    that it stays an epilogue of the contraction.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlc::loop::LoopDialect"];
}

def LoopChannelsLastDepthwise : Pass<"mlc-loop-channels-last-depthwise",
                                     "mlir::func::FuncOp"> {
  let summary = "Depthwise convolutions laid out channels-last";
  let description = [{
    A `linalg.depthwise_conv_2d_nchw_chw` (batch 1, unit strides and
    dilations) whose `mlc_loop.layout` is `channels_last` becomes
    `linalg.depthwise_conv_2d_nhwc_hwc` between transposes, the channels
    innermost. The filter's transpose is a constant that
    `mlc-loop-fold-weight-transposes` folds; the input's is the transpose
    back of a convolution computed channels-last before it when there is
    one, which then cancels; a padded input is padded after its transpose
    (only a constant pad of rows and columns); the activation that follows
    runs before the transpose back, as an epilogue.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LoopPackWeights : Pass<"mlc-loop-pack-weights", "mlir::func::FuncOp"> {
  let summary = "Pack constant right-hand sides of contractions into panels";
  let description = [{
    A static f32 contraction `C[..., n] += A[..., k] * B[k, n]` whose
    `mlc_loop.layout` is `packed<panel = P>`, whose `B` is a constant and
    whose `n` is a multiple of P is rewritten to read `B'[n / P, k, n % P]`,
    a constant packed at compile time, with `n` split into two loops and
    the result viewed as `[..., n / P, P]`. Register tiles P wide then read
    one contiguous row of `B'` per step of `k`, instead of rows `n`
    elements apart.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LoopConvolutionsAsContractions
    : Pass<"mlc-loop-convolutions-as-contractions", "mlir::func::FuncOp"> {
  let summary = "NCHW convolutions as an im2col gather and a contraction";
  let description = [{
    A static f32 `linalg.conv_2d_nchw_fchw` whose `mlc_loop.layout` is
    `im2col` becomes `out[n, f, p] += W[f, k] * col[n, k, p]` with
    `k = (c, kh, kw)` and `p = (oh, ow)`: the gather is a 6-D
    `linalg.generic` marked `mlc_loop.im2col` (innermost loop along `ow`, so
    that it copies rows), and a 1x1 convolution with unit strides reads its
    input in place. With the layout's `align = A`, the matrix's rows are
    padded to a multiple of A elements and the contraction reads the first
    `oh * ow` columns; with `row_pad = R` the filter is read from a
    constant whose rows are R elements longer. Kernel formation then puts
    the gather in the contraction's kernel.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlc::loop::LoopDialect"];
}

def LoopFormKernels : Pass<"mlc-loop-form-kernels", "mlir::func::FuncOp"> {
  let summary = "Group linalg ops into mlc_loop.kernel ops";
  let description = [{
    Draws the kernel boundaries of the loop level: every linalg op on
    tensors but the initializations of destinations ends up in exactly one
    `mlc_loop.kernel`, the unit a target's strategy schedules. A kernel has a root (a contraction, convolution,
    window, reduction, gather, copy or an elementwise op that nothing else
    took) and the ops fused with it:

    - consumers: a chain of all-parallel ops whose indexing maps are
      projected permutations (activations, bias and residual adds),
      each reading the previous result as its only use, possibly through a
      `tensor.expand_shape` or `tensor.collapse_shape` (a convolution's
      result viewed as a matrix);
    - producers: all-parallel data-movement ops (their body yields one of
      their inputs: im2col gathers, transposes, copies) whose only use is
      the root, and the `tensor.pad` that only the root or such a producer
      reads (a convolution's or a window's border).

    Fills and elementwise broadcasts used only as destinations (directly or
    through reshapes) stay outside: they say where a kernel's accumulators
    start (a zero, a bias), like the destination itself. Values from outside become `ins`,
    the destinations of the yielded results `outs`; constants are cloned
    in, so that a kernel reads its weights as constants. The kernel is named
    after the root's ONNX node (`#1`, `#2` for a node's later kernels) and
    its root carries `mlc_loop.root`.

    ```mlir
    %r = mlc_loop.kernel "Conv_0" ins(%x, %init : ...) outs(%e : ...) {
    ^bb0(%a: ..., %i: ..., %o: ...):
      %g = linalg.generic {...} ins(%a ...)          // im2col gather
      %c = linalg.generic {..., mlc_loop.root} ...   // the contraction
      %relu = linalg.generic {...} ins(%c ...) outs(%o ...)
      mlc_loop.yield %relu : ...
    } -> (...)
    ```
  }];
  let dependentDialects = ["mlc::loop::LoopDialect"];
}

def LoopDissolveKernels : Pass<"mlc-loop-dissolve-kernels",
                               "mlir::func::FuncOp"> {
  let summary = "Inline kernels, leaving their schedules on their roots";
  let description = [{
    The end of the kernel level for a code generator that works on a
    function's linalg ops: each `mlc_loop.kernel` is replaced by its body,
    and its `#mlc_loop.schedule` moves to the root op as the
    `mlc_loop.schedule` attribute, where the target's tiling passes read it.
  }];
  let dependentDialects = ["mlc::loop::LoopDialect"];
}

def LoopVerifyContract : Pass<"mlc-loop-verify-contract", "mlir::ModuleOp"> {
  let summary = "Check the contract of the loop level";
  let description = [{
    What a target's kernel pipeline may assume after
    `mlc-convert-graph-to-loop`: no op of the graph dialect is left and no
    op is unregistered. The first op that breaks it is reported with its
    ONNX node. (What a compiled model's interface takes is checked by
    `mlc-host-prepare-model-abi`, which names the input.)
  }];
}

def LoopVerifyKernels : Pass<"mlc-loop-verify-kernels", "mlir::func::FuncOp"> {
  let summary = "Check the contract of the kernels phase";
  let description = [{
    The contract a target's code generator relies on after its strategy:
    every `mlc_loop.kernel` carries a `#mlc_loop.schedule` of its root's
    loops; every linalg op with a reduction loop (a contraction,
    convolution, pool or reduction) is a kernel's root; every other linalg
    op on tensors is inside a kernel or initializes a destination (a fill,
    or an op whose body only yields a value: a broadcast bias). The
    first op that breaks it is reported with its kernel or ONNX node.
  }];
  let dependentDialects = ["mlc::loop::LoopDialect"];
}

def LoopTileBySchedule : Pass<"mlc-loop-tile-by-schedule",
                              "mlir::func::FuncOp"> {
  let summary = "Tile each root by its schedule, down to the register level";
  let description = [{
    Does what the strategy decided: every op carrying a `mlc_loop.schedule`
    (the root of a dissolved kernel) is tiled level by level through
    upstream's TilingInterface (`scf::tileUsingSCF`), in the schedule's
    loop order:

    - the outermost level is the threads': one `scf.forall` over chunks of
      the `parallel_dims` (its sizes must divide their loops; all zeros:
      one thread, no loop);
    - every further level but the register level becomes `scf.for` loops,
      peeled so that each body sees full tiles of static sizes;
    - the register level (the last level, when the schedule has vector
      sizes) is left to the target's code generator: the innermost tile
      carries it as `mlc_loop.register_tiles` with `mlc_loop.loop_order`.

    A root whose schedule has `scf.for` levels takes its elementwise
    epilogue (an activation reading only its result) into the loops: it
    runs on each finished part of the result, right after the outermost
    reduction loop. A schedule with no loop level (only a register tile) is
    left alone. The tiles keep the root's schedule; the target drops it with
    its marks. A schedule that does not fit its root (another number of
    loops, thread chunks on a reduction or not dividing their loop) is an
    error naming the kernel. A target adds what its register code needs
    around the tiles through a `TilingPolicy` (Tiling.h) and registers the
    result as a pass of its own (the CPU's: `mlc-cpu-tile-by-schedule`);
    this pass uses none.

    ```mlir
    // schedule: threads [0, 64, 0], cache [4, 16, 64], registers [4, 16, 1]
    %r = scf.forall (%j) in (4) shared_outs(%o = %init) -> (tensor<8x256xf32>) {
      ... scf.for %i ... scf.for %k ... {
        linalg.matmul {mlc_loop.register_tiles = array<i64: 4, 16, 1>, ...}
      }
    }
    ```
  }];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Run elementwise epilogues on each finished tile">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect"];
}

#endif // MLC_DIALECT_LOOP_TRANSFORMS_PASSES_TD
