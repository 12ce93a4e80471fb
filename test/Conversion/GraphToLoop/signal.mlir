// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// DFT is its definition: a reduction over the signal position j with the
// angle 2 pi (j k mod n) / n in f64; the last result dim picks re or im.
// CHECK-LABEL: func @dft
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.remui
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: arith.select
func.func @dft(%x: tensor<2x8x1xf32>) -> tensor<2x8x2xf32> {
  %0 = mlc_graph.dft %x : (tensor<2x8x1xf32>) -> tensor<2x8x2xf32>
  return %0 : tensor<2x8x2xf32>
}

// -----

// Det: elimination with partial pivoting per matrix, over a loop-carried
// [n, n] scratch copy.
// CHECK-LABEL: func @det
// CHECK: tensor.empty() : tensor<3x3xf32>
// CHECK: scf.for
// CHECK: linalg.copy
// CHECK: scf.for
// CHECK: math.absf
// CHECK: arith.divf
func.func @det(%x: tensor<4x3x3xf32>) -> tensor<4xf32> {
  %0 = mlc_graph.det %x : (tensor<4x3x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
