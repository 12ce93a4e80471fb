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

#endif // MLC_DIALECT_LOOP_TRANSFORMS_PASSES_TD
