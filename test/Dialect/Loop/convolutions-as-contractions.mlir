// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-convolutions-as-contractions))' | FileCheck %s

// The layout says how: rows of the im2col matrix aligned to 16 elements
// (9 columns in rows of 16), the filter's 8-element rows read from a
// constant with rows 4 longer.
// CHECK-LABEL: func.func @aligned
// CHECK: %[[BUF:.*]] = tensor.empty() : tensor<1x8x16xf32>
// CHECK: tensor.extract_slice %[[BUF]][0, 0, 0] [1, 8, 9] [1, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x2x2x2x3x3xf32>) attrs =  {mlc_loop.im2col}
// CHECK: %[[W:.*]] = arith.constant dense_resource<unaliased_rows> : tensor<2x12xf32>
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %[[W]][0, 0] [2, 8] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[ROWS]], %{{.*}} : tensor<2x8xf32>, tensor<1x8x9xf32>)
// CHECK-NOT: mlc_loop.layout
func.func @aligned(%x: tensor<1x2x4x4xf32>, %f: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 10.0], [11.0, 12.0]], [[13.0, 14.0], [15.0, 16.0]]]]> : tensor<2x2x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.layout = #mlc_loop.layout<im2col, align = 16, row_pad = 4>} ins(%x, %w : tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %c : tensor<1x2x3x3xf32>
}

// -----

// No alignment, no padded rows; a 1x1 convolution reads its input in place.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: tensor.empty() : tensor<1x8
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<1x8x7x7xf32> into tensor<1x8x49xf32>
// CHECK: linalg.generic
func.func @pointwise(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x1x1xf32>, %f: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.layout = #mlc_loop.layout<im2col>} ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%f : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %c : tensor<1x16x7x7xf32>
}

// -----

// Without a layout the convolution stays.
// CHECK-LABEL: func.func @undecided
// CHECK: linalg.conv_2d_nchw_fchw
func.func @undecided(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x1x1xf32>, %f: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%f : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %c : tensor<1x16x7x7xf32>
}
