// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize))' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0 align-columns=false},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize))' | FileCheck %s --check-prefix=OFF

// A 3x3 convolution with 7 x 7 = 49 output pixels: the im2col matrix
// (8 * 9 = 72 rows) lives in a buffer with rows of 64 floats, and the
// gather and the contraction use its first 49 columns.
// CHECK-LABEL: func.func @conv7x7
// CHECK: %[[BUF:.*]] = tensor.empty() : tensor<1x72x64xf32>
// CHECK: %[[COLS:.*]] = tensor.extract_slice %[[BUF]][0, 0, 0] [1, 72, 49] [1, 1, 1]
// CHECK: tensor.expand_shape %[[COLS]] {{\[}}[0], [1, 2, 3], [4, 5]] output_shape [1, 8, 3, 3, 7, 7]
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x8x9x9xf32>) outs(%{{.*}} : tensor<1x8x3x3x7x7xf32>)
// OFF-LABEL: func.func @conv7x7
// OFF-NOT: tensor<1x72x64xf32>
// OFF: tensor.empty() : tensor<1x8x3x3x7x7xf32>
func.func @conv7x7(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %c : tensor<1x16x7x7xf32>
}
