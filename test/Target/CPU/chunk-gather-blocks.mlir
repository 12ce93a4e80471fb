// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 n-tile=16 k-tile=64 n-block=0 vector-width=16 parallel=true print-schedules=true}))' | FileCheck %s

// A 3x3 convolution over 16 channels reduces over 144 im2col rows, more
// than twice the 64-row k-tile: its reduction blocks are whole channels (8
// channels, 72 rows), and each thread chunk (one output row) gathers one
// block at a time inside the reduction loop, never all 144 rows at once.
// CHECK: "?" loops = [1, 32, 1024, 144] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 0, 32, 0], [0, 0, 0, 72]
// CHECK-LABEL: func.func @blocks
// CHECK-NOT: tensor<1x16x3x3x
// CHECK: scf.forall (%{{.*}}) = (0) to (1024) step (32)
// CHECK: scf.for %{{.*}} = %c0 to %c144 step %c72
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}} : tensor<1x16x3x34xf32> to tensor<1x8x3x34xf32>
// CHECK: %[[BLOCK:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<1x8x3x34xf32>) outs(%{{.*}} : tensor<1x8x3x3x1x32xf32>)
// CHECK: tensor.collapse_shape %[[BLOCK]] {{.*}} into tensor<1x72x32xf32>
// CHECK-NOT: tensor<1x16x3x3x
// CHECK: return
func.func @blocks(%x: tensor<1x16x34x34xf32>) -> tensor<1x32x32x32xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}
