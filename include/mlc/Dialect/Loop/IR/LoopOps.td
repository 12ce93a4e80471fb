//===- LoopOps.td - mlc_loop dialect -----------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The loop level: a fused kernel (a region of upstream linalg/tensor/arith
// ops on tensors) and the schedule that says how it is tiled, vectorized
// and parallelized. Tiling itself reuses upstream TilingInterface; this
// dialect only draws the kernel boundary and carries the decision.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_IR_LOOPOPS_TD
#define MLC_DIALECT_LOOP_IR_LOOPOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Loop_Dialect : Dialect {
  let name = "mlc_loop";
  let cppNamespace = "::mlc::loop";
  let summary = "Fused kernels and their schedules";
  let description = [{
    Graph ops are grouped into `mlc_loop.kernel` ops: each kernel is one
    unit of code generation whose body holds upstream linalg/tensor/arith ops
    on tensors, in destination-passing style. The kernel's
    `#mlc_loop.schedule` says how the body is tiled (one list of tile sizes
    per memory level), which loop dims run in parallel and the vector sizes
    of the innermost tile. A strategy pass decides the schedule; generic
    passes apply it through upstream `TilingInterface` and vectorization, so
    schedules can be printed, overridden from a file and tuned.
  }];
  let useDefaultAttributePrinterParser = 1;
  // Facts one pass leaves for a later one, declared and verified here
  // rather than passed as ad-hoc attribute strings.
  let discardableAttrs = (ins
    // The model's C ABI (host layer): on each model function its signature
    // as JSON (mlc-runtime/ModelSignature.h) and its arena size; with the
    // weights in a file, the file's name, size and checksum, and on the
    // module the blob the driver writes to it.
    "::mlir::StringAttr":$signature,
    "::mlir::IntegerAttr":$arena_size,
    "::mlir::StringAttr":$weights_file,
    "::mlir::IntegerAttr":$weights_size,
    "::mlir::IntegerAttr":$weights_hash,
    "::mlir::DenseResourceElementsAttr":$weights,
    // Run-time checks (mlc-host-lower-assertions): the status word's
    // buffer, its offset in the arena and the checks' messages in order.
    "::mlir::UnitAttr":$status,
    // An output's buffer the model allocates and the caller frees
    // (mlc-host-dynamic-outputs).
    "::mlir::UnitAttr":$caller_owned,
    "::mlir::IntegerAttr":$status_offset,
    "::mlir::ArrayAttr":$check_messages,
    // The arena offset of the cache that run-time-sized buffers come from
    // (mlc-host-plan-arena with cache-heap-buffers).
    "::mlir::IntegerAttr":$buffer_cache_offset,
    // A model function whose inputs keep symbolic dims: the number of
    // symbols, whose values it takes in a last `dims` argument
    // (mlc-host-symbolic-inputs).
    "::mlir::IntegerAttr":$dims_argument,
    // A GPU model function that takes the runtime's kernel launcher first
    // (mlc-gpu-lower-launches).
    "::mlir::UnitAttr":$gpu_launcher,
    // A GPU model function whose host code reads memory its kernels write
    // (sizes the data decides, run-time checks): the runtime allocates
    // host-visible memory for it (mlc-gpu-map-to-launches).
    "::mlir::UnitAttr":$gpu_host_access,
    // An NPU model function that takes the runtime's NPU launcher first
    // (mlc-npu-lower-launches).
    "::mlir::UnitAttr":$npu_launcher,
    // Between the steps of a target's code generator: the register tile and
    // loop order of a tiled op, loops to peel, the elementwise op run on
    // each finished tile, accumulators started from an init (the init and
    // the op it feeds share an id), im2col gathers and the fills of pads.
    "::mlir::DenseI64ArrayAttr":$register_tiles,
    "::mlir::DenseI64ArrayAttr":$loop_order,
    "::mlir::UnitAttr":$peel,
    "::mlir::UnitAttr":$epilogue,
    "::mlir::IntegerAttr":$accumulator_init,
    "::mlir::IntegerAttr":$accumulates_onto,
    "::mlir::UnitAttr":$im2col,
    "::mlir::UnitAttr":$pad_fill,
    // The op of a kernel its schedule is about (mlc-loop-form-kernels).
    "::mlir::UnitAttr":$root,
    // A generic that turns quantized integers into numbers: an ONNX
    // DequantizeLinear, or the widening of a MatMulInteger/ConvInteger/
    // QLinear* operand by its zero point (GraphToLoop): a target with
    // integer units computes its consumers on the integers.
    "::mlir::UnitAttr":$dequantize,
    // A generic that is an ONNX QuantizeLinear (GraphToLoop): a target
    // with integer units may requantize its producer's integer sums itself.
    "::mlir::UnitAttr":$quantize
  );
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// `mlc_loop.schedule`: a kernel root's #mlc_loop.schedule once the
    /// kernel is dissolved for the target's code generator.
    static constexpr ::llvm::StringLiteral getScheduleAttrName() {
      return "mlc_loop.schedule";
    }
    /// `mlc_loop.layout`: the #mlc_loop.layout a target's strategy chose
    /// for an op, until the layout pass that reads it rewrites the op.
    static constexpr ::llvm::StringLiteral getLayoutAttrName() {
      return "mlc_loop.layout";
    }
  }];
}

def Loop_ScheduleAttr : AttrDef<Loop_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "How a kernel is tiled, vectorized and parallelized";
  let description = [{
    `tile_sizes` has one list per tiling level, outermost first; each
    list has one size per loop of the kernel's root op, 0 meaning "not
    tiled at this level". `vector_sizes` has one size per loop (0: not
    vectorized). `parallel_dims` lists the loops of the outermost level that
    run on threads. `loop_order`, when given, is the order of the tiled
    loops, outermost first (a permutation of the root's loops); without it
    they keep the root's order.

    How `mlc-loop-tile-by-schedule` reads it: level 0 is the threads'
    level (chunks of exactly the `parallel_dims`, dividing their loops; all
    zeros: one thread); the levels after it are sequential loops; when
    `vector_sizes` is not empty, the last level is the register tile, which
    the target's code generator vectorizes. A schedule of one level with
    vector sizes is a register tile only.

    ```mlir
    #mlc_loop.schedule<tile_sizes = [[64, 256, 0], [4, 16, 1]],
                       vector_sizes = [4, 16, 1], parallel_dims = [0],
                       loop_order = [1, 0, 2]>
    ```
  }];
  let parameters = (ins
    "int64_t":$numLoops,
    ArrayRefParameter<"int64_t", "tile sizes, level after level">:$tileSizes,
    ArrayRefParameter<"int64_t", "vector size per loop">:$vectorSizes,
    ArrayRefParameter<"int64_t", "parallel loops">:$parallelDims,
    OptionalArrayRefParameter<"int64_t", "order of the loops">:$loopOrder);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of tiling levels.
    int64_t getNumLevels() const {
      return getNumLoops() == 0 ? 0 : getTileSizes().size() / getNumLoops();
    }
    /// Tile sizes of level `level` (0 is the outermost).
    ::llvm::ArrayRef<int64_t> getTileLevel(int64_t level) const {
      return getTileSizes().slice(level * getNumLoops(), getNumLoops());
    }
  }];
}

def Loop_LayoutAttr : AttrDef<Loop_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "How an op's operands are laid out for the target";
  let description = [{
    A target's strategy decides, before kernels form, how the data of a
    convolution or contraction is laid out; generic layout passes of the
    loop dialect do what it says and nothing else:

    - `im2col`: a convolution becomes a contraction over its im2col matrix
      (`mlc-loop-convolutions-as-contractions`); with `align = A` each row
      of the matrix starts at a multiple of A elements; with
      `row_pad = P` the constant filter's rows are P elements longer than
      they need to be (rows a power-of-two apart map to few cache sets).
    - `matmul`: a convolution of batch 1 becomes a `[pixels, channels]`
      matmul (`mlc-loop-convolutions-as-matmuls`), the channels in the
      innermost loop; with `panel = P` its weights then pack in panels of
      P columns.
    - `channels_last`: a depthwise convolution of batch 1 is computed in
      NHWC between transposes (`mlc-loop-channels-last-depthwise`).
    - `packed`: a contraction's constant right-hand side `B[k, n]` is
      stored as `B'[n / panel, k, panel]` (`mlc-loop-pack-weights`).

    ```mlir
    linalg.conv_2d_nchw_fchw {mlc_loop.layout = #mlc_loop.layout<im2col, align = 16, row_pad = 16>} ...
    linalg.matmul {mlc_loop.layout = #mlc_loop.layout<packed, panel = 16>} ...
    ```
  }];
  let parameters = (ins
    StringRefParameter<"what the layout is">:$kind,
    DefaultValuedParameter<"int64_t", "0">:$panel,
    DefaultValuedParameter<"int64_t", "0">:$align,
    DefaultValuedParameter<"int64_t", "0">:$rowPad);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

class Loop_Op<string mnemonic, list<Trait> traits = []>
    : Op<Loop_Dialect, mnemonic, traits>;

def Loop_KernelOp : Loop_Op<"kernel", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects, AttrSizedOperandSegments,
    DestinationStyleOpInterface]> {
  let summary = "A fused kernel: one unit of code generation";
  let description = [{
    The body receives the `ins` and then the `outs` as block arguments and
    yields one value per `outs` operand, of the same type; the results are
    those values. The body is isolated from above: everything it reads comes
    in as an operand, so a kernel can be outlined, scheduled and compiled on
    its own.

    ```mlir
    %r = mlc_loop.kernel "conv1" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
        outs(%init : tensor<1x4x6x6xf32>)
        schedule = #mlc_loop.schedule<tile_sizes = [[1, 4, 2, 0]], vector_sizes = [], parallel_dims = [1]> {
    ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x3x3xf32>, %c: tensor<1x4x6x6xf32>):
      %0 = linalg.conv_2d_nchw_fchw ins(%a, %b : ...) outs(%c : ...) -> tensor<1x4x6x6xf32>
      mlc_loop.yield %0 : tensor<1x4x6x6xf32>
    } -> tensor<1x4x6x6xf32>
    ```

    Canonicalization forwards a result whose yielded value is an `ins` block
    argument of the same type to that input.
  }];
  let arguments = (ins StrAttr:$sym_name, Variadic<AnyType>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       OptionalAttr<Loop_ScheduleAttr>:$schedule);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
    /// The terminator of the body.
    YieldOp getYield();
  }];
}

def Loop_YieldOp : Loop_Op<"yield", [Pure, Terminator, ReturnLike,
                                     HasParent<"KernelOp">]> {
  let summary = "Yields a kernel's results";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // MLC_DIALECT_LOOP_IR_LOOPOPS_TD
