// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-loop-channels-last-depthwise))' | FileCheck %s

// A depthwise convolution laid out channels-last: NHWC between transposes.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x9x9x32xf32>, tensor<3x3x32xf32>) outs(%{{.*}} : tensor<1x7x7x32xf32>)
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x32x9x9xf32>, %w: tensor<32x3x3xf32>, %f: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.layout = #mlc_loop.layout<channels_last>} ins(%x, %w : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %d : tensor<1x32x7x7xf32>
}
