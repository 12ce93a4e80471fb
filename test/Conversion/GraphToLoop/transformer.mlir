// RUN: mlc-opt %s -mlc-convert-graph-to-loop | FileCheck %s

// The maps of @batch_matmul below.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A batched lhs times a 2-D rhs: the batch dims are more rows of one
// matmul.
// CHECK-LABEL: func @shared_rhs_matmul
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[ROWS]], %arg1 : tensor<6x4xf32>, tensor<4x5xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
func.func @shared_rhs_matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = mlc_graph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// Batched matmul with a broadcast lhs: one contraction generic.
// CHECK-LABEL: func @batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @batch_matmul(%a: tensor<3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = mlc_graph.matmul %a, %b : (tensor<3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func @reduce_mean
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: arith.divf
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %0 = mlc_graph.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// CHECK-LABEL: func @gather_rows
// CHECK: linalg.generic
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: tensor.extract %arg0
func.func @gather_rows(%table: tensor<10x4xf32>, %ids: tensor<1x3xi64>) -> tensor<1x3x4xf32> {
  %0 = mlc_graph.gather %table, %ids : (tensor<10x4xf32>, tensor<1x3xi64>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// CHECK-LABEL: func @slice_cast_unsqueeze
// CHECK: tensor.extract_slice %arg0[0, 2] [4, 3] [1, 2]
// CHECK: arith.sitofp
// CHECK: tensor.reshape
func.func @slice_cast_unsqueeze(%x: tensor<4x8xf32>, %i: tensor<4xi64>) -> (tensor<4x3xf32>, tensor<1x4xf32>) {
  %s = mlc_graph.constant dense<[2]> : tensor<1xi64>
  %e = mlc_graph.constant dense<[8]> : tensor<1xi64>
  %a = mlc_graph.constant dense<[1]> : tensor<1xi64>
  %st = mlc_graph.constant dense<[2]> : tensor<1xi64>
  %0 = mlc_graph.slice %x, %s, %e axes %a steps %st : (tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  %1 = mlc_graph.cast %i : (tensor<4xi64>) -> tensor<4xf32>
  %2 = mlc_graph.unsqueeze %1 {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<1x4xf32>
  return %0, %2 : tensor<4x3xf32>, tensor<1x4xf32>
}

// LayerNorm: sum, sum of squared deviations, then one normalizing generic.
// CHECK-LABEL: func @layer_norm
// CHECK-COUNT-2: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.sqrt
// CHECK: arith.divf
func.func @layer_norm(%x: tensor<2x7x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x7x16xf32> {
  %0 = mlc_graph.layer_norm %x, %g, %b : (tensor<2x7x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x7x16xf32>
  return %0 : tensor<2x7x16xf32>
}
