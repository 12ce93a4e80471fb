// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-loop-convolutions-as-matmuls))' | FileCheck %s

// A 1x1 convolution laid out as a matmul: pixels (49) as rows, output
// channels (32) as columns, its input read in place as X[c, p], the
// weights' transpose left for mlc-loop-fold-weight-transposes and the
// matmul's own layout packed in panels of 16; the result is transposed
// back to NCHW.
// CHECK-LABEL: func.func @pointwise
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x16x1x1xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x49xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<49x32xf32>) attrs = {mlc_loop.layout = #mlc_loop.layout<packed, panel = 16>}
// CHECK: linalg.transpose ins(%{{.*}} : tensor<49x32xf32>)
func.func @pointwise(%x: tensor<1x16x7x7xf32>, %f: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<1.0> : tensor<32x16x1x1xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.layout = #mlc_loop.layout<matmul, panel = 16>} ins(%x, %w : tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %c : tensor<1x32x7x7xf32>
}
