// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-form-kernels,mlc-cpu-set-schedules{m-tile=4 n-tile=8 k-tile=0 n-block=0 vector-width=8 parallel=true}))' | FileCheck %s

// The CPU strategy: a contraction gets thread, cache and register tiles and
// its loop order; a reduction its thread chunks; a window its register tile
// of output rows by columns.

// CHECK-LABEL: func.func @matmul
// CHECK: mlc_loop.kernel "Gemm_0" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}0, 0, 0], [0, 0, 0], [4, 8, 1]], vector_sizes = [4, 8, 1], parallel_dims = []>
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32> loc("Gemm_0")
  return %m : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @row_sums
// CHECK: mlc_loop.kernel "ReduceSum_0" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}64, 0]], vector_sizes = [], parallel_dims = [0]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sums(%x: tensor<512x64xf32>, %init: tensor<512xf32>) -> tensor<512xf32> {
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x64xf32>) outs(%init : tensor<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<512xf32> loc("ReduceSum_0")
  return %sum : tensor<512xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool
// CHECK: mlc_loop.kernel "MaxPool_0" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}1, 1, 4, 8, 1, 1]], vector_sizes = [0, 0, 0, 8, 0, 0], parallel_dims = []>
func.func @max_pool(%x: tensor<1x8x18x18xf32>, %init: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> loc("MaxPool_0")
  return %p : tensor<1x8x16x16xf32>
}

// -----

// An elementwise kernel: its thread chunks (8 chunks of the outer loop).
// CHECK-LABEL: func.func @residual_add
// CHECK: mlc_loop.kernel "Add_0" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}8, 0]], vector_sizes = [], parallel_dims = [0]>
func.func @residual_add(%a: tensor<64x512xf32>, %b: tensor<64x512xf32>, %c: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %r = linalg.add ins(%a, %b : tensor<64x512xf32>, tensor<64x512xf32>) outs(%c : tensor<64x512xf32>) -> tensor<64x512xf32> loc("Add_0")
  return %r : tensor<64x512xf32>
}

// -----

// A transpose of the two innermost dims: thread chunks and a register tile
// of 8 x 8 transposed in registers.
// CHECK-LABEL: func.func @transpose
// CHECK: mlc_loop.kernel "Transpose_0" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}16, 0, 0], [1, 8, 8]], vector_sizes = [1, 8, 8], parallel_dims = [0]>
func.func @transpose(%a: tensor<128x64x32xf32>, %c: tensor<128x32x64xf32>) -> tensor<128x32x64xf32> {
  %t = linalg.transpose ins(%a : tensor<128x64x32xf32>) outs(%c : tensor<128x32x64xf32>) permutation = [0, 2, 1] loc("Transpose_0")
  return %t : tensor<128x32x64xf32>
}
