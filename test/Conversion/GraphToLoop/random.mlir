// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// Each element hashes (seed, its row-major number): a parallel generic with
// no state, SplitMix64's multipliers, 24 bits scaled into [low, high).
// CHECK-LABEL: func @uniform
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.constant -4658895280553007687 : i64
// CHECK: arith.uitofp
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @uniform() -> tensor<2x3xf32> {
  %0 = mlc_graph.random {distribution = "uniform", dtype = f32, shape = array<i64: 2, 3>, mean = 1.0 : f32, scale = 2.0 : f32, seed = 5.0 : f32} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Normal draws use Box-Muller on two uniform draws.
// CHECK-LABEL: func @normal
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.cos
func.func @normal(%like: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mlc_graph.random %like {distribution = "normal", dtype = f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
