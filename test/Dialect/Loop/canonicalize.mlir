// RUN: mlc-opt %s -canonicalize | FileCheck %s

// A result that only forwards an input is replaced by that input; the body
// of a kernel is canonicalized like any region, and its schedule survives.
// CHECK-LABEL: func @forward_and_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: %[[K:.*]]:2 = mlc_loop.kernel "k" {{.*}} schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}2]], vector_sizes = [2], parallel_dims = [0]>
// CHECK-NOT: arith.addf
// CHECK: return %[[X]], %[[K]]#1
func.func @forward_and_fold(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = mlc_loop.kernel "k" ins(%x : tensor<4xf32>) outs(%y, %y : tensor<4xf32>, tensor<4xf32>)
      schedule = #mlc_loop.schedule<tile_sizes = [[2]], vector_sizes = [2], parallel_dims = [0]> {
  ^bb0(%a: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %sum = arith.addf %one, %two : f32
    %0 = linalg.fill ins(%sum : f32) outs(%d : tensor<4xf32>) -> tensor<4xf32>
    mlc_loop.yield %a, %0 : tensor<4xf32>, tensor<4xf32>
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
