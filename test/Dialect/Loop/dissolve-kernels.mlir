// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-loop-dissolve-kernels))' | FileCheck %s

// The kernel's body replaces it, reading the kernel's operands; the
// schedule moves to the root as mlc_loop.schedule and the root mark goes.
// CHECK-LABEL: func.func @dissolve
// CHECK-NOT: mlc_loop.kernel
// CHECK: %[[M:.*]] = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}0, 0, 0], [0, 0, 0], [2, 4, 1]], vector_sizes = [2, 4, 1], parallel_dims = []>} ins(%arg0, %arg1 : {{.*}}) outs(%arg2 : tensor<2x4xf32>)
// CHECK-NOT: mlc_loop.root
// CHECK: return %[[M]]
func.func @dissolve(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = mlc_loop.kernel "Gemm_0" ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>)
      schedule = #mlc_loop.schedule<tile_sizes = [[0, 0, 0], [0, 0, 0], [2, 4, 1]], vector_sizes = [2, 4, 1], parallel_dims = []> {
  ^bb0(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>, %z: tensor<2x4xf32>):
    %m = linalg.matmul {mlc_loop.root} ins(%x, %y : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
    mlc_loop.yield %m : tensor<2x4xf32>
  } -> (tensor<2x4xf32>)
  return %r : tensor<2x4xf32>
}
