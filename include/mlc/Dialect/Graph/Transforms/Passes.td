//===- Passes.td - Graph dialect passes --------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_TD
#define MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphInferShapes : Pass<"mlc-graph-infer-shapes", "mlir::func::FuncOp"> {
  let summary = "Refine graph op result types from their shape functions";
  let description = [{
    Walks a function in order and replaces each graph op's result type by the
    most static type that both its declared type and its shape function
    allow; then updates the function's result types. This is how static
    input shapes (for example pinned by `--shape` on the command line)
    reach every op of an imported model. Results used by ops of other
    dialects are refined only when those users are casts
    (`CastOpInterface`) or `func.return`. An `mlc_graph.if` whose condition
    has become a constant is replaced by the ops of the branch it takes;
    a run-time If's results get the dims both branches' yields agree on.

    Before:
    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
      %0 = mlc_graph.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
      return %0 : tensor<*xf32>
    }
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = mlc_graph.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }
    ```
    A conflict between a declared static dim and an inferred one is an
    error naming the op.

    With `fold-constants` (the default), an op whose operands are all dense
    constants is evaluated and replaced by a constant in the same walk:
    the shape subgraphs exporters spell out (Shape, Gather, Concat,
    ConstantOfShape, Range, arithmetic on shapes) become constants, so the
    reshapes and expands that consume them get static types. Results larger
    than 65536 elements are not materialized (splats excepted), integer
    division by zero is left to the runtime, and weights stored as
    `dense_resource` are never read.
  }];
  let options = [
    Option<"foldConstants", "fold-constants", "bool", /*default=*/"true",
           "Evaluate ops whose operands are all small dense constants">,
  ];
  let dependentDialects = ["mlc::graph::GraphDialect"];
}

def GraphSeparateBatch : Pass<"mlc-graph-separate-batch", "mlir::ModuleOp"> {
  let summary = "Compile a symbolic batch dim once, for one sample";
  let description = [{
    For each public function whose inputs keep symbolic dims (the importer
    names them in the `mlc_graph.dim_names` argument attribute), proves
    that the only one is a batch: dim 0 of every input that has it, under
    one name, and no op mixes the data of different samples. Then it pins
    the dim to 1, so that the rest of the pipeline compiles one sample with
    static shapes, and records the symbol (`mlc_graph.batch_symbol` on the
    function) and which inputs and results carry it on dim 0
    (`mlc_graph.batched`). The entry point runs that code once per sample
    on consecutive slices of the buffers (`mlc-host-emit-entry-points`).

    The proof: the function is shape-inferred at batch 1 and at batch 1009.
    A value whose shapes differ in one dim by the factor 1009 carries the batch
    there; a value whose shapes agree does not depend on it; any other
    difference refuses the model. Per op, a rule decides from where its
    operands and results carry the batch whether it keeps samples apart:
    elementwise ops (`Graph_Elementwise`) with aligned broadcasting,
    convolutions, pools and per-sample normalizations with the batch on
    dim 0, contractions and reductions whose result keeps the batch, a
    softmax, concat, slice, gather, cumsum or top-k along another dim,
    reshapes that keep each sample's elements contiguous. Shapes computed
    from a batched input (`Shape`, then arithmetic) may feed shape operands
    (Reshape, Expand, ConstantOfShape, Slice bounds, Tile, Resize) but not
    data. Any other op that touches the batch refuses the model: the proof
    fails closed.

    With `strict` (the default) a model it refuses is an error that names
    the node and the reason and suggests `--dim NAME=N`; otherwise the
    function is left with its symbolic dims. Without `keep-batch` (targets
    whose entry points take static shapes) every symbolic dim is refused
    that way. With `dynamic-dims` (targets whose code takes dims at run
    time: the CPU) a function with symbolic dims other than a batch (a
    sequence length, an image's height and width) keeps all of them: its
    ops are lowered for sizes known at run time.

    ```
    error: symbolic dim 'batch' (dim 0 of input 'x') cannot stay symbolic:
    node 'ReduceSum_3' (mlc_graph.reduce_sum): its result does not keep the
    batch (it reduces or contracts over it). mlc compiles a symbolic batch
    once when no op mixes its samples; pin it with --dim batch=N
    ```
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"true",
           "Refuse a model whose symbolic dims are not a separable batch">,
    Option<"keepBatch", "keep-batch", "bool", /*default=*/"true",
           "Compile a separable batch for any size (false: every symbolic "
           "dim must be pinned, for targets whose entry points take static "
           "shapes)">,
    Option<"dynamicDims", "dynamic-dims", "bool", /*default=*/"false",
           "Keep symbolic dims other than a batch for a target whose code "
           "takes dims at run time (false: they must be pinned)">,
  ];
  let dependentDialects = ["mlc::graph::GraphDialect"];
}

def GraphCheckLimits : Pass<"mlc-graph-check-limits", "mlir::ModuleOp"> {
  let summary = "Refuse tensors too large to compile or run";
  let description = [{
    Runs once shapes are known, before anything is allocated for the
    model's tensors: every statically shaped tensor the model has (function
    arguments, op results, region arguments) must hold at most
    `max-tensor-bytes` bytes, counted without overflow. A tensor over the
    limit, or whose element count does not fit 64 bits (a Tile of 2^62 x
    2^62), is an error naming the ONNX node, the op, the shape and the
    size, so that a hostile or broken model is refused here instead of
    wrapping a size into a small arena or exhausting memory later. Dynamic
    dims are not counted.

    ```
    error: node 'Tile_0' (mlc_graph.tile): its result of shape
    4611686018427387904x4611686018427387904 and f32 elements has more than
    2^63 bytes, over the limit of 4 GiB (--max-tensor-bytes)
    ```
  }];
  let options = [
    Option<"maxTensorBytes", "max-tensor-bytes", "int64_t",
           /*default=*/"int64_t(4) << 30",
           "The most bytes one tensor may hold">,
  ];
}

def GraphTestPerturbNode : Pass<"mlc-graph-test-perturb-node",
                                 "mlir::func::FuncOp"> {
  let summary = "Testing only: make one node's result wrong on purpose";
  let description = [{
    Adds `delta` to the first floating-point result of every graph op whose
    location names the ONNX node `node`: a planted wrong lowering, for
    testing the tools that look for one (`mlc.compare(..., bisect=True)`,
    `mlc-run --compare-with=ort --bisect`). Reached from
    `mlc-compile --testing-perturb-node=NAME` (a hidden option); never part
    of a normal compile.
  }];
  let options = [
    Option<"node", "node", "std::string", /*default=*/"\"\"",
           "The ONNX node whose result to change">,
    Option<"delta", "delta", "double", /*default=*/"0.5",
           "What to add to it">,
  ];
}

def GraphFoldChannelScales : Pass<"mlc-graph-fold-channel-scales",
                                   "mlir::func::FuncOp"> {
  let summary = "Move per-channel scales of a convolution's input into its "
                "weights";
  let description = [{
    A convolution (group 1) whose input is `x * s`, with `s` of shape
    `[1, C, 1, ...]` scaling x's channels, computes the same as the
    convolution of `x` with weights `W * s` (`s` broadcasts over W's output
    channels and kernel window; zero padding stays zero). The rewrite is
    made when W has fewer elements than x, so that the multiplication runs
    over the smaller tensor and the scaled copy of x is never written: the
    squeeze-and-excitation blocks of EfficientNet and MobileNetV3 scale a
    56x56x144 activation before a 1x1 convolution to 24 channels (451584
    products) where scaling the weights takes 3456. The product must have
    no other user, and shapes must be static.

    Before:
    ```mlir
    %y = mlc_graph.mul %x, %s : (tensor<1x144x56x56xf32>, tensor<1x144x1x1xf32>) -> tensor<1x144x56x56xf32>
    %z = mlc_graph.conv %y, %w, %b : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>, tensor<24xf32>) -> tensor<1x24x56x56xf32>
    ```
    After:
    ```mlir
    %ws = mlc_graph.mul %w, %s : (tensor<24x144x1x1xf32>, tensor<1x144x1x1xf32>) -> tensor<24x144x1x1xf32>
    %z = mlc_graph.conv %x, %ws, %b : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>, tensor<24xf32>) -> tensor<1x24x56x56xf32>
    ```
  }];
  let dependentDialects = ["mlc::graph::GraphDialect"];
}

def GraphComputeHalfInF32 : Pass<"mlc-graph-compute-half-in-f32",
                                  "mlir::func::FuncOp"> {
  let summary = "Compute float16 and bfloat16 graphs in f32";
  let description = [{
    For targets without fast half-precision arithmetic (the CPU), the
    values of type f16 or bf16 inside a function become f32: its f16 and
    bf16 constants (weights) are converted once, at compile time; Casts
    between f32 and the half types inside the function disappear; a half
    argument is widened where the function starts and a half result
    rounded where it returns. Every convolution, matmul and reduction then
    accumulates in f32 on the same packed, vectorized kernels as an f32
    model, and the weights are read as f32 without converting them at each
    load.

    This is what ONNX Runtime's CPU provider computes for such models: it
    runs the ops it has no half kernel for in f32 behind inserted Casts
    (InsertCastTransformer) and then removes each f32 -> f16 -> f32 pair
    of Casts (RemoveDuplicateCastTransformer), so intermediate values are
    never rounded to f16. Rounding every intermediate value, as the ONNX
    type rules ask, would move the outputs away from that reference by the
    rounding of each layer.

    Before:
    ```mlir
    %h = mlc_graph.cast %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf16>
    %y = mlc_graph.conv %h, %w : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
    %o = mlc_graph.cast %y : (tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf32>
    ```
    After:
    ```mlir
    %y = mlc_graph.conv %x, %w32 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    ```
    A function holding an op this pass does not know to be free of
    element-type attributes (a random generator's dtype) is left as it is.
  }];
  let dependentDialects = ["mlc::graph::GraphDialect"];
}

#endif // MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_TD
