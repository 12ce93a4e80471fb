// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{panel=32},mlc-loop-convolutions-as-matmuls))' | FileCheck %s

// A 1x1 convolution on a 7x7 map with a bias broadcast as its starting
// value and a ReLU after it: a contraction of the input, read in place as
// [16, 49] through the indexing map, by the transposed constant weights,
// starting from the bias broadcast along rows, the ReLU on the [49, 32]
// result, then one transpose back.
// CHECK-DAG: #[[LHS_MAP:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[RHS_MAP:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT_MAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @small
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x16x7x7xf32> into tensor<16x49xf32>
// CHECK: %[[W:.*]] = linalg.transpose ins(%{{.*}} : tensor<32x16x1x1xf32>) outs(%{{.*}} : tensor<16x1x1x32xf32>) permutation = [1, 2, 3, 0]
// CHECK: %[[RHS:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<16x1x1x32xf32> into tensor<16x32xf32>
// CHECK: %[[START:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32xf32>) outs(%{{.*}} : tensor<49x32xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [#[[LHS_MAP]], #[[RHS_MAP]], #[[OUT_MAP]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ROWS]], %[[RHS]] : tensor<16x49xf32>, tensor<16x32xf32>) outs(%[[START]] : tensor<49x32xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
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

// A 3x3 convolution on a 14x14 map with a reduction 32 * 9 = 288 deep and
// 64 output channels (two panels of 32): the same contraction, reading
// the im2col matrix [288, 196] in place.
// CHECK-LABEL: func.func @deep
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x32x16x16xf32>) outs(%{{.*}} : tensor<1x32x3x3x14x14xf32>)
// CHECK: %[[LHS:.*]] = tensor.collapse_shape %[[COL]] {{\[}}[0, 1, 2, 3], [4, 5]] : tensor<1x32x3x3x14x14xf32> into tensor<288x196xf32>
// CHECK: %[[START:.*]] = linalg.fill {{.*}} -> tensor<196x64xf32>
// CHECK: %[[MM:.*]] = linalg.generic {{.*}} ins(%[[LHS]], %{{.*}} : tensor<288x196xf32>, tensor<288x64xf32>) outs(%[[START]] : tensor<196x64xf32>)
// CHECK: linalg.transpose ins(%[[MM]] : tensor<196x64xf32>) outs(%{{.*}} : tensor<64x196xf32>) permutation = [1, 0]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @deep(%x: tensor<1x32x16x16xf32>) -> tensor<1x64x14x14xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x16x16xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  return %c : tensor<1x64x14x14xf32>
}

// -----

// Left as convolutions: on a 14x14 map, a reduction shallower than 256
// (the result's transpose costs more than the matmul saves), 48 output
// channels (not whole panels of 32), weights computed at run time; a
// stride of 2 with a shallow reduction; a 28x28 map.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.generic
func.func @kept(%x: tensor<1x16x14x14xf32>, %w2: tensor<32x16x1x1xf32>,
                %y: tensor<1x32x16x16xf32>, %z: tensor<1x32x30x30xf32>)
    -> (tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x7x7xf32>,
        tensor<1x48x14x14xf32>, tensor<1x32x28x28xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x16x1x1xf32>
  %w48 = arith.constant dense<0.5> : tensor<48x32x3x3xf32>
  %w32 = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w2 : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %e7 = tensor.empty() : tensor<1x32x7x7xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>) outs(%f7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %e48 = tensor.empty() : tensor<1x48x14x14xf32>
  %f48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<1x48x14x14xf32>) -> tensor<1x48x14x14xf32>
  %n = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w48 : tensor<1x32x16x16xf32>, tensor<48x32x3x3xf32>) outs(%f48 : tensor<1x48x14x14xf32>) -> tensor<1x48x14x14xf32>
  %e28 = tensor.empty() : tensor<1x32x28x28xf32>
  %f28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  %l = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%z, %w32 : tensor<1x32x30x30xf32>, tensor<32x32x3x3xf32>) outs(%f28 : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %a, %b, %s, %n, %l : tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32>, tensor<1x32x7x7xf32>, tensor<1x48x14x14xf32>, tensor<1x32x28x28xf32>
}
