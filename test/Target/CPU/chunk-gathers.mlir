// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 n-tile=16 k-tile=0 n-block=0 vector-width=16 parallel=true print-schedules=true}))' | FileCheck %s

// The schedules print first: row chunks for @rows and @ragged, channel
// chunks for @narrow.
// CHECK: "?" loops = [1, 32, 1024, 144] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 0, 32, 0]
// CHECK: "?" loops = [1, 32, 900, 144] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 0, 450, 0]
// CHECK: "?" loops = [1, 32, 289, 144] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 4, 0, 0]
// CHECK: "?" loops = [1, 16, 4096, 288] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 0, 1024, 0], [0, 0, 0, 72]

// A 3x3 convolution with 32-wide output rows: the contraction's thread
// chunks are whole output rows (32 columns, two register tiles), and each
// chunk gathers its own 144 x 32 block of the im2col matrix inside the
// thread loop; the whole 144 x 1024 matrix is never made.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: tensor<1x16x3x3x32x32xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (1024) step (32)
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}} : tensor<1x16x34x34xf32> to tensor<1x16x3x34xf32>
// CHECK: %[[BLOCK:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<1x16x3x34xf32>) outs(%{{.*}} : tensor<1x16x3x3x1x32xf32>)
// CHECK: tensor.collapse_shape %[[BLOCK]] {{.*}} into tensor<1x144x32xf32>
// CHECK-NOT: tensor<1x16x3x3x32x32xf32>
// CHECK: return
func.func @rows(%x: tensor<1x16x34x34xf32>) -> tensor<1x32x32x32xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}

// 30-wide rows end in a 14-column tile, not a whole vector: two chunks of
// 15 rows (450 columns, 28 register tiles and a 2-column one) lose 6% of
// the work to it, within the 20% allowed, and each gathers its own 144 x
// 450 block from 17 input rows.
// CHECK-LABEL: func.func @ragged
// CHECK: scf.forall (%{{.*}}) = (0) to (900) step (450)
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}} : tensor<1x16x32x32xf32> to tensor<1x16x17x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[ROWS]] : tensor<1x16x17x32xf32>) outs(%{{.*}} : tensor<1x16x3x3x15x30xf32>)
// CHECK-NOT: tensor<1x16x3x3x30x30xf32>
// CHECK: return
func.func @ragged(%x: tensor<1x16x32x32xf32>) -> tensor<1x32x30x30xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x30x30xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x30x30xf32>) -> tensor<1x32x30x30xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x32x32xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x30x30xf32>) -> tensor<1x32x30x30xf32>
  return %r : tensor<1x32x30x30xf32>
}

// 17 rows of 17 columns: the only chunk of whole rows on two threads or
// more is one row, a register tile and a 1-column rest, which loses most
// of the work, so threads take rows of the contraction (output channels),
// each reading every column, and the matrix is gathered whole by a thread
// loop of its own before theirs.
// CHECK-LABEL: func.func @narrow
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (2)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x3x17x17xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (4)
// CHECK-NOT: linalg.generic {{.*}}mlc_loop.im2col
// CHECK: return
func.func @narrow(%x: tensor<1x16x19x19xf32>) -> tensor<1x32x17x17xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x17x17xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x17x17xf32>) -> tensor<1x32x17x17xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x19x19xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x17x17xf32>) -> tensor<1x32x17x17xf32>
  return %r : tensor<1x32x17x17xf32>
}

// A batch of 64 images: one output row of all of them is 1.2 MB of im2col
// block, more than a thread's stack takes, so the matrix is gathered whole
// (by a thread loop over the images) before the contraction's loop.
// CHECK-LABEL: func.func @batched
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (8)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x16x3x3x32x32xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (1024) step (128)
// CHECK-NOT: mlc_loop.im2col
// CHECK: return
func.func @batched(%x: tensor<64x16x34x34xf32>) -> tensor<64x32x32x32xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<64x16x34x34xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32>
  return %r : tensor<64x32x32x32xf32>
}

// One image on rows so wide (1024 pixels) that one output row of the whole
// matrix (288 x 1024 floats, 1.2 MB) is over a thread's stack share: the
// reduction is blocked by whole channels that fit (8 channels, 72 rows),
// and each chunk of one output row gathers one block at a time.
// (Its schedule is checked with the others, at the top.)
// CHECK-LABEL: func.func @wide_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (4096) step (1024)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x3x3x1x1024xf32>)
// CHECK: return
func.func @wide_rows(%x: tensor<1x32x6x1026xf32>) -> tensor<1x16x4x1024xf32> {
  %w = arith.constant dense<0.5> : tensor<16x32x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x4x1024xf32>) -> tensor<1x16x4x1024xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x6x1026xf32>, tensor<16x32x3x3xf32>) outs(%f : tensor<1x16x4x1024xf32>) -> tensor<1x16x4x1024xf32>
  return %r : tensor<1x16x4x1024xf32>
}
