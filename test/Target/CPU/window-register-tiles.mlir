// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-window-register-tiles{vector-width=8 columns=8}))' | FileCheck %s

// A depthwise convolution's loops are reordered (window dims inside the
// output columns' register tile) and marked: 4 rows of 8 columns, the
// default for unit strides without a schedule; its zero init is where the
// register tiles' accumulators start.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.fill {mlc_loop.accumulator_init = 0 : i64}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK-SAME: mlc_loop.accumulates_onto = 0 : i64, mlc_loop.loop_order = array<i64: 0, 1, 2, 5, 3, 4>, mlc_loop.register_tiles = array<i64: 1, 1, 4, 1, 1, 8>
func.func @depthwise(%x: tensor<1x8x18x18xf32>, %w: tensor<8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<8x3x3xf32>) outs(%c : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %d : tensor<1x8x16x16xf32>
}

// -----

// A window's schedule gives its register tile: 2 rows of 16 columns.
// CHECK-LABEL: func.func @scheduled
// CHECK: mlc_loop.register_tiles = array<i64: 1, 1, 2, 1, 1, 16>
func.func @scheduled(%x: tensor<1x8x18x18xf32>, %w: tensor<8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[1, 2, 16, 1, 1, 1]], vector_sizes = [0, 0, 16, 0, 0, 0], parallel_dims = []>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<8x3x3xf32>) outs(%c : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %d : tensor<1x8x16x16xf32>
}

// -----

// A transpose of a matrix: one 8-lane vector per row, 8 rows, transposed in
// registers.
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose {{.*}} {mlc_loop.loop_order = array<i64: 0, 1>, mlc_loop.register_tiles = array<i64: 8, 8>}
func.func @transpose(%x: tensor<32x64xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  return %t : tensor<64x32xf32>
}
