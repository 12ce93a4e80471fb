// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-pack-weights))' | FileCheck %s

// A packed layout of panels of 2 columns: B[3, 4] as B'[2, 3, 2].
// CHECK-LABEL: func.func @packed
// CHECK: arith.constant dense_resource<packed> : tensor<2x3x2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<5x3xf32>, tensor<2x3x2xf32>) outs(%{{.*}} : tensor<5x2x2xf32>)
// CHECK-NOT: mlc_loop.layout
func.func @packed(%a: tensor<5x3xf32>, %c: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %r = linalg.matmul {mlc_loop.layout = #mlc_loop.layout<packed, panel = 2>} ins(%a, %b : tensor<5x3xf32>, tensor<3x4xf32>) outs(%c : tensor<5x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----

// No layout: the weights keep their rows.
// CHECK-LABEL: func.func @undecided
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<5x3xf32>, tensor<3x4xf32>)
func.func @undecided(%a: tensor<5x3xf32>, %c: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %b = arith.constant dense<1.0> : tensor<3x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x3xf32>, tensor<3x4xf32>) outs(%c : tensor<5x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
