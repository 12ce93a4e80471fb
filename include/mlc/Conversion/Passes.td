//===- Passes.td - Conversion passes -----------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_CONVERSION_PASSES_TD
#define MLC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGraphToLoop : Pass<"mlc-convert-graph-to-loop", "mlir::func::FuncOp"> {
  let summary = "Lower graph ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites each graph op into upstream ops on tensors in destination-passing
    style: elementwise ops (with numpy broadcasting) become one
    `linalg.generic`, `mlc_graph.gemm`/`matmul` become `linalg.matmul` (with
    `linalg.transpose` and broadcasting epilogues), softmax becomes the
    decomposition of `linalg.softmax`, transposes `linalg.transpose`,
    reshapes `tensor.reshape`, constants `arith.constant` (blobs stay blobs).
    The loop level then groups these into kernels.

    Before:
    ```mlir
    %0 = mlc_graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %zero = arith.constant 0.0 : f32
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4xf32>
    ```
    Ops without a lowering yet, or with dynamic shapes where the lowering
    needs static ones, are reported by name; the pass then fails.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect", "mlir::cf::ControlFlowDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"];
}

#endif // MLC_CONVERSION_PASSES_TD
