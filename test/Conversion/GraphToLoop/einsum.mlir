// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// A batch matmul: output letters parallel, the shared letter a reduction.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @bmm
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = mlc_graph.einsum %a, %b {equation = "bij, bjk -> bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A repeated letter reads the diagonal; `...` dims lead the output.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @diagonal
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel"]}
func.func @diagonal(%a: tensor<2x3x3xf32>) -> tensor<2x3xf32> {
  %0 = mlc_graph.einsum %a {equation = "...ii->...i"} : (tensor<2x3x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A full contraction has a rank-0 result.
// CHECK-DAG: #[[V:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func @inner
// CHECK: linalg.generic {indexing_maps = [#[[V]], #[[V]], #[[S]]], iterator_types = ["reduction"]}
func.func @inner(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<f32> {
  %0 = mlc_graph.einsum %a, %b {equation = "i,i"} : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
