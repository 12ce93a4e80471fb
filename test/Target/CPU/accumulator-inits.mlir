// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{parallel=false}))' | FileCheck %s

// A 1x1 convolution whose bias is its starting value (as
// mlc-loop-fuse-elementwise leaves it): no loop above the register tiles
// splits its 16-deep reduction, so the broadcast of the bias over the whole
// result is gone and each register tile starts its accumulators from the
// bias rows of its part.
// CHECK-LABEL: func.func @pointwise_bias
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK: tensor.extract %arg2[%{{.*}}] : tensor<72xf32>
// CHECK: scf.for {{.*}} -> (vector<6x16xf32>)
// CHECK-NOT: linalg.generic
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @pointwise_bias(%x: tensor<1x16x8x8xf32>, %w: tensor<72x16x1x1xf32>, %b: tensor<72xf32>) -> tensor<1x72x8x8xf32> {
  %e = tensor.empty() : tensor<1x72x8x8xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<72xf32>) outs(%e : tensor<1x72x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x72x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<72x16x1x1xf32>) outs(%init : tensor<1x72x8x8xf32>) -> tensor<1x72x8x8xf32>
  return %c : tensor<1x72x8x8xf32>
}

// -----

// A zero fill: the accumulators start as zero vectors. With a 640-deep
// reduction split into k blocks of 256 (more than twice the k-tile) the
// later blocks must add to the first one's sums, so the fill stays a pass
// of its own there.
// CHECK-LABEL: func.func @matmul_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<6x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<6x16xf32>)
// CHECK-LABEL: func.func @split_reduction
// CHECK: linalg.fill {{.*}} -> tensor<12x64xf32>
func.func @matmul_fill(%a: tensor<12x32xf32>, %b: tensor<32x64xf32>) -> tensor<12x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<12x32xf32>, tensor<32x64xf32>) outs(%f : tensor<12x64xf32>) -> tensor<12x64xf32>
  return %m : tensor<12x64xf32>
}
func.func @split_reduction(%a: tensor<12x640xf32>, %b: tensor<640x64xf32>) -> tensor<12x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<12x640xf32>, tensor<640x64xf32>) outs(%f : tensor<12x64xf32>) -> tensor<12x64xf32>
  return %m : tensor<12x64xf32>
}

// -----

// A zero init written as a generic with no inputs (a convolution without
// a bias, as the importer builds it) is a fill: the accumulators start as
// zero vectors and no pass over the result writes the zeros first.
// CHECK-LABEL: func.func @generic_zero_init
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<6x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<6x16xf32>)
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @generic_zero_init(%x: tensor<1x16x8x8xf32>, %w: tensor<72x16x1x1xf32>) -> tensor<1x72x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x72x8x8xf32>
  %init = linalg.generic {indexing_maps = [#out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x72x8x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %z : f32
  } -> tensor<1x72x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<72x16x1x1xf32>) outs(%init : tensor<1x72x8x8xf32>) -> tensor<1x72x8x8xf32>
  return %c : tensor<1x72x8x8xf32>
}
