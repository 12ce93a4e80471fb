// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-gpu-set-schedules{register-rows=2 register-cols=4 min-threads=4}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-gpu-set-schedules))' | FileCheck %s --check-prefix=DEFAULT

// A reduction's register tile: 2 rows by 4 columns of its output where
// they divide the dims and leave min-threads threads (8x16 outputs: 16
// threads); by default one element each.
// CHECK-LABEL: func.func @matmul
// CHECK: schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}2, 4, 0]], vector_sizes = [], parallel_dims = [0, 1]>
// DEFAULT-LABEL: func.func @matmul
// DEFAULT: schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}1, 1, 0]], vector_sizes = [], parallel_dims = [0, 1]>
func.func @matmul(%a: tensor<8x3xf32>, %b: tensor<3x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = mlc_loop.kernel "Gemm_0" ins(%a, %b : tensor<8x3xf32>, tensor<3x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: tensor<8x3xf32>, %y: tensor<3x16xf32>, %z: tensor<8x16xf32>):
    %m = linalg.matmul {mlc_loop.root} ins(%x, %y : tensor<8x3xf32>, tensor<3x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
    mlc_loop.yield %m : tensor<8x16xf32>
  } -> (tensor<8x16xf32>)
  return %r : tensor<8x16xf32>
}

// -----

// Rows that do not divide by 2 and columns that would leave too few
// threads stay one element; an elementwise kernel is one element a thread.
// CHECK-LABEL: func.func @small
// CHECK: schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}1, 1, 0]], vector_sizes = [], parallel_dims = [0, 1]>
// CHECK: schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}1, 1]], vector_sizes = [], parallel_dims = [0, 1]>
func.func @small(%a: tensor<3x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = mlc_loop.kernel "Gemm_0" ins(%a, %b : tensor<3x3xf32>, tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) {
  ^bb0(%x: tensor<3x3xf32>, %y: tensor<3x4xf32>, %z: tensor<3x4xf32>):
    %m = linalg.matmul {mlc_loop.root} ins(%x, %y : tensor<3x3xf32>, tensor<3x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
    mlc_loop.yield %m : tensor<3x4xf32>
  } -> (tensor<3x4xf32>)
  %e = mlc_loop.kernel "Relu_0" ins(%r : tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) {
  ^bb0(%x: tensor<3x4xf32>, %z: tensor<3x4xf32>):
    %m = linalg.exp {mlc_loop.root} ins(%x : tensor<3x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
    mlc_loop.yield %m : tensor<3x4xf32>
  } -> (tensor<3x4xf32>)
  return %e : tensor<3x4xf32>
}
