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

// -----

// RoiAlign: one generic over [R, C, oh, ow] with the sampling grid as an
// scf.for nest in its body (adaptive here: ceil(box size / output size)).
// CHECK-LABEL: func @roi_align
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x2x2xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<2xi64>
// CHECK: math.ceil
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x3x8x8xf32>
func.func @roi_align(%x: tensor<1x3x8x8xf32>, %rois: tensor<2x4xf32>, %i: tensor<2xi64>) -> tensor<2x3x2x2xf32> {
  %0 = mlc_graph.roi_align %x, %rois, %i {output_height = 2 : i64, output_width = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}
