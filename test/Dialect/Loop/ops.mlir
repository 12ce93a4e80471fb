// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlir-print-op-generic | mlc-opt | FileCheck %s

// CHECK-LABEL: func @conv_kernel
func.func @conv_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %init = tensor.empty() : tensor<1x4x6x6xf32>
  // CHECK: mlc_loop.kernel "conv1" ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>) schedule = #mlc_loop.schedule<tile_sizes = {{\[\[}}1, 4, 2, 0], [1, 4, 1, 0]], vector_sizes = [1, 4, 1, 0], parallel_dims = [1]> {
  // CHECK: linalg.conv_2d_nchw_fchw
  // CHECK: mlc_loop.yield %{{.*}} : tensor<1x4x6x6xf32>
  // CHECK: } -> (tensor<1x4x6x6xf32>)
  %r = mlc_loop.kernel "conv1" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
      outs(%init : tensor<1x4x6x6xf32>)
      schedule = #mlc_loop.schedule<tile_sizes = [[1, 4, 2, 0], [1, 4, 1, 0]], vector_sizes = [1, 4, 1, 0], parallel_dims = [1]> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x3x3xf32>, %c: tensor<1x4x6x6xf32>):
    %0 = linalg.conv_2d_nchw_fchw ins(%a, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%c : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    mlc_loop.yield %0 : tensor<1x4x6x6xf32>
  } -> (tensor<1x4x6x6xf32>)
  return %r : tensor<1x4x6x6xf32>
}

// A kernel with no schedule yet and no inputs.
// CHECK-LABEL: func @fill_kernel
// CHECK: mlc_loop.kernel "fill" ins() outs(%{{.*}} : tensor<16xf32>) {
func.func @fill_kernel() -> tensor<16xf32> {
  %init = tensor.empty() : tensor<16xf32>
  %r = mlc_loop.kernel "fill" ins() outs(%init : tensor<16xf32>) {
  ^bb0(%c: tensor<16xf32>):
    %zero = arith.constant 0.0 : f32
    %0 = linalg.fill ins(%zero : f32) outs(%c : tensor<16xf32>) -> tensor<16xf32>
    mlc_loop.yield %0 : tensor<16xf32>
  } -> (tensor<16xf32>)
  return %r : tensor<16xf32>
}
