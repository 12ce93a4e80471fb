// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{lanes=16 matmuls=false panel=0},mlc-loop-channels-last-depthwise,canonicalize))' | FileCheck %s

// A 3x3 depthwise convolution on a 7x7 map (rows of 7 of 16 lanes) becomes
// the NHWC one: the input is transposed to [pixels, channels] and padded
// after, the constant filter is transposed (for
// mlc-loop-fold-weight-transposes), the bias is broadcast along the rows,
// and the ReLU runs before the transpose back.
// CHECK-LABEL: func.func @narrow
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x32x7x7xf32> into tensor<32x49xf32>
// CHECK: %[[IN:.*]] = linalg.transpose ins(%[[FLAT]] : tensor<32x49xf32>) {{.*}} permutation = [1, 0]
// CHECK: %[[NHWC:.*]] = tensor.expand_shape %[[IN]] {{\[}}[0, 1, 2], [3]] output_shape [1, 7, 7, 32]
// CHECK: %[[PADDED:.*]] = tensor.pad %[[NHWC]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32xf32>) outs(%{{.*}} : tensor<49x32xf32>)
// CHECK: %[[START:.*]] = tensor.expand_shape %[[BIAS]] {{\[}}[0, 1, 2], [3]] output_shape [1, 7, 7, 32]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x1x3x3xf32>) {{.*}} permutation = [1, 2, 3, 0]
// CHECK: %[[FILTER:.*]] = tensor.collapse_shape {{.*}} : tensor<1x3x3x32xf32> into tensor<3x3x32xf32>
// CHECK: %[[CONV:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PADDED]], %[[FILTER]] : tensor<1x9x9x32xf32>, tensor<3x3x32xf32>) outs(%[[START]] : tensor<1x7x7x32xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x7x7x32xf32>)
// CHECK: arith.maximumf
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[RELU]] {{\[}}[0, 1, 2], [3]] : tensor<1x7x7x32xf32> into tensor<49x32xf32>
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[ROWS]] : tensor<49x32xf32>) {{.*}} permutation = [1, 0]
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[BACK]] {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 7, 7]
// CHECK: return %[[OUT]]
func.func @narrow(%x: tensor<1x32x7x7xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<1.0> : tensor<32x1x3x3xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  %wc = tensor.collapse_shape %w [[0, 1], [2], [3]] : tensor<32x1x3x3xf32> into tensor<32x3x3xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x7x7xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %wc : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %e2 = tensor.empty() : tensor<1x32x7x7xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x32x7x7xf32>) outs(%e2 : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x32x7x7xf32>
  return %a : tensor<1x32x7x7xf32>
}


// -----

// The input is the transpose back of a matmul-form convolution's
// [pixels, channels] result: the two transposes cancel.
// CHECK-LABEL: func.func @after_matmul_form
// CHECK-NOT: linalg.transpose ins(%arg0
// CHECK: %[[NHWC:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1, 2], [3]] output_shape [1, 7, 7, 32]
// CHECK: %[[PADDED:.*]] = tensor.pad %[[NHWC]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: linalg.fill {{.*}} -> tensor<1x7x7x32xf32>
// CHECK: linalg.transpose ins(%arg1 : tensor<32x3x3xf32>) {{.*}} permutation = [1, 2, 0]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PADDED]],
func.func @after_matmul_form(%m: tensor<49x32xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %e = tensor.empty() : tensor<32x49xf32>
  %t = linalg.transpose ins(%m : tensor<49x32xf32>) outs(%e : tensor<32x49xf32>) permutation = [1, 0]
  %x = tensor.expand_shape %t [[0, 1], [2, 3]] output_shape [1, 32, 7, 7] : tensor<32x49xf32> into tensor<1x32x7x7xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  %e2 = tensor.empty() : tensor<1x32x7x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}


// -----

// Rows of 14 (of 16 lanes) are taken with 5x5 windows only; strided
// windows are left to the column phases (WindowColumnPhases.h).
// CHECK-LABEL: func.func @wide
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw {{.*}} tensor<32x5x5xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%arg0, %arg1
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} tensor<5x5x32xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} strides = dense<2>
func.func @wide(%x3: tensor<1x32x16x16xf32>, %w3: tensor<32x3x3xf32>, %x5: tensor<1x32x18x18xf32>, %w5: tensor<32x5x5xf32>, %x2: tensor<1x32x9x9xf32>) -> (tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x4x4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %r3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x3, %w3 : tensor<1x32x16x16xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %r5 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x5, %w5 : tensor<1x32x18x18xf32>, tensor<32x5x5xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %e2 = tensor.empty() : tensor<1x32x4x4xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %r2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x2, %w3 : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%f2 : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %r3, %r5, %r2 : tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x4x4xf32>
}
