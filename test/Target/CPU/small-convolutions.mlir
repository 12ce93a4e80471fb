// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-small-convolutions-as-matmuls))' | FileCheck %s

// A 1x1 convolution on a 7x7 map with a bias broadcast as its starting
// value and a ReLU after it: a matmul of the transposed input by the
// transposed constant weights, starting from the bias broadcast along rows,
// the ReLU on the matmul's [49, 32] result, then one transpose back.
// CHECK-LABEL: func.func @small
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x16x7x7xf32> into tensor<16x49xf32>
// CHECK: %[[LHS:.*]] = linalg.transpose ins(%[[ROWS]] : tensor<16x49xf32>) outs(%{{.*}} : tensor<49x16xf32>) permutation = [1, 0]
// CHECK: %[[W:.*]] = linalg.transpose ins(%{{.*}} : tensor<32x16x1x1xf32>) outs(%{{.*}} : tensor<16x1x1x32xf32>) permutation = [1, 2, 3, 0]
// CHECK: %[[RHS:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<16x1x1x32xf32> into tensor<16x32xf32>
// CHECK: %[[START:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32xf32>) outs(%{{.*}} : tensor<49x32xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[LHS]], %[[RHS]] : tensor<49x16xf32>, tensor<16x32xf32>) outs(%[[START]] : tensor<49x32xf32>)
// CHECK: %[[ACT:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<49x32xf32>)
// CHECK: arith.maximumf
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[ACT]] : tensor<49x32xf32>) outs(%{{.*}} : tensor<32x49xf32>) permutation = [1, 0]
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[BACK]] {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 7, 7]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return %[[OUT]]
#bias = affine_map<(n, f, h, w) -> (f)>
#id = affine_map<(n, f, h, w) -> (n, f, h, w)>
func.func @small(%x: tensor<1x16x7x7xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x1x1xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %o = tensor.empty() : tensor<1x32x7x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x7x7xf32>) outs(%o : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// -----

// Left as convolutions: a 14x14 map (the transposes cost more than the
// matmul saves), weights computed at run time, a stride of 2.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.matmul
func.func @kept(%x: tensor<1x16x14x14xf32>, %w2: tensor<32x16x1x1xf32>)
    -> (tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x7x7xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x16x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w2 : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %e7 = tensor.empty() : tensor<1x32x7x7xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %a, %b, %s : tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x7x7xf32>
}
