// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// Bilinear sampling: one generic over the result reading the grid point and
// four bounds-checked taps of X.
// CHECK-LABEL: func @bilinear
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x4xf32>)
// CHECK-COUNT-2: tensor.extract %{{.*}} : tensor<1x3x4x2xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x2x5x6xf32>
func.func @bilinear(%x: tensor<1x2x5x6xf32>, %g: tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32> {
  %0 = mlc_graph.grid_sample %x, %g : (tensor<1x2x5x6xf32>, tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// Bicubic with reflection mirrors each of its 16 taps.
// CHECK-LABEL: func @bicubic_reflection
// CHECK: arith.remf
// CHECK-COUNT-16: tensor.extract %{{.*}} : tensor<1x1x4x4xf32>
func.func @bicubic_reflection(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = mlc_graph.grid_sample %x, %g {mode = "bicubic", padding_mode = "reflection"} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
