// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=2},mlc-loop-pack-weights))' | FileCheck %s

// A constant right-hand side B[k, n] (here 3x4) is stored as panels
// B'[n / 2, k, n % 2] and the contraction runs over (m, n1, k, n0) into the
// result viewed as [m, n / 2, 2]. Panel 0 holds columns 0-1 of each row
// (1 2, 5 6, 9 10), panel 1 columns 2-3 (3 4, 7 8, 11 12).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[P:.*]] = arith.constant dense_resource<packed> : tensor<2x3x2xf32>
// CHECK: %[[INIT:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [5, 2, 2] : tensor<5x4xf32> into tensor<5x2x2xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[P]] : tensor<5x3xf32>, tensor<2x3x2xf32>) outs(%[[INIT]] : tensor<5x2x2xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<5x2x2xf32> into tensor<5x4xf32>
// CHECK: packed: "0x400000000000803F000000400000A0400000C040000010410000204100004040000080400000E040000000410000304100004041"
func.func @matmul(%a: tensor<5x3xf32>, %c: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x3xf32>, tensor<3x4xf32>) outs(%c : tensor<5x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----

// A right-hand side computed at run time, or a width that is not a multiple
// of the panel, stays as it is.
// CHECK-LABEL: func.func @runtime
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @odd_width
// CHECK: linalg.matmul
func.func @runtime(%a: tensor<5x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<5x3xf32>, tensor<3x4xf32>) outs(%c : tensor<5x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
func.func @odd_width(%a: tensor<5x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %b = arith.constant dense<1.5> : tensor<3x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x3xf32>, tensor<3x3xf32>) outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
