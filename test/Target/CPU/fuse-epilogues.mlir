// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 k-tile=64 n-block=32}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 k-tile=64 n-block=32 fuse-epilogues=false}))' | FileCheck %s --check-prefix=OFF

// An activation after a matmul runs on each 64x32 column block of the
// result, in place, once all k blocks of it are done: inside the n-block
// (after peeling: the 32-column block and the 18-column rest), not as a
// pass over the whole result afterwards.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: %[[K0:.*]] = scf.for {{.*}} -> (tensor<64x32xf32>)
// CHECK: %[[BLOCK:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[K0]]) -> (tensor<64x32xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[BLOCK]] : tensor<64x32xf32>) outs(%[[BLOCK]] : tensor<64x32xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %[[RELU]]
// CHECK: %[[K18:.*]] = scf.for {{.*}} -> (tensor<64x18xf32>)
// CHECK: %[[REST:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[K18]]) -> (tensor<64x18xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[REST]] : tensor<64x18xf32>) outs(%[[REST]] : tensor<64x18xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
// OFF-LABEL: func.func @matmul_relu
// OFF: tensor.insert_slice
// OFF: %[[E:.*]] = tensor.empty() : tensor<64x50xf32>
// OFF: %[[C:.*]] = tensor.collapse_shape %[[E]]
// OFF: linalg.generic {{.*}} outs(%[[C]] : tensor<3200xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_relu(%a: tensor<64x136xf32>, %b: tensor<136x50xf32>) -> tensor<64x50xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x50xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x50xf32>) -> tensor<64x50xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x136xf32>, tensor<136x50xf32>) outs(%f : tensor<64x50xf32>) -> tensor<64x50xf32>
  %o = tensor.empty() : tensor<64x50xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x50xf32>) outs(%o : tensor<64x50xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x50xf32>
  return %relu : tensor<64x50xf32>
}

// -----

// After a convolution, the activation reads the im2col contraction's
// result through an expand_shape: its iteration space is collapsed to the
// contraction's and it runs in place on that result. Scalar operands (the
// Clip bound) come along.
// CHECK-LABEL: func.func @conv_clip
// CHECK: %[[C:.*]] = scf.for {{.*}} -> (tensor<1x16x16xf32>)
// CHECK: %[[CLIP:.*]] = linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<1x16x16xf32>, tensor<f32>) outs(%[[C]] : tensor<1x16x16xf32>)
// CHECK: arith.minimumf
// CHECK: tensor.expand_shape %[[CLIP]] {{\[}}[0], [1], [2, 3]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sc = affine_map<(d0, d1, d2, d3) -> ()>
func.func @conv_clip(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %hi: tensor<f32>) -> tensor<1x16x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%f : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %o = tensor.empty() : tensor<1x16x4x4xf32>
  %clip = linalg.generic {indexing_maps = [#id4, #sc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %hi : tensor<1x16x4x4xf32>, tensor<f32>) outs(%o : tensor<1x16x4x4xf32>) {
  ^bb0(%v: f32, %h: f32, %y: f32):
    %m = arith.maximumf %v, %z : f32
    %n = arith.minimumf %m, %h : f32
    linalg.yield %n : f32
  } -> tensor<1x16x4x4xf32>
  return %clip : tensor<1x16x4x4xf32>
}

// -----

// Rows and columns fit in one tile, so only k is tiled (three 64-blocks
// of 192): the activation runs once after the k loops and the function
// returns its result, not the raw sums.
// CHECK-LABEL: func.func @matvec_relu
// CHECK: scf.for
// CHECK: %[[SUMS:.*]] = vector.transfer_write
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[SUMS]] : tensor<4x1xf32>) outs(%[[SUMS]] : tensor<4x1xf32>)
// CHECK: arith.maximumf
// CHECK: return %[[RELU]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matvec_relu(%a: tensor<4x192xf32>, %b: tensor<192x1xf32>) -> tensor<4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x192xf32>, tensor<192x1xf32>) outs(%f : tensor<4x1xf32>) -> tensor<4x1xf32>
  %o = tensor.empty() : tensor<4x1xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x1xf32>) outs(%o : tensor<4x1xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  return %relu : tensor<4x1xf32>
}

// -----

// A residual add reads a second full-size tensor: it stays a pass of its
// own (over one loop: its rows are short).
// CHECK-LABEL: func.func @matmul_add
// CHECK: %[[R:.*]] = tensor.collapse_shape %arg2
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[R]] : tensor<3200xf32>, tensor<3200xf32>) outs(%{{.*}} : tensor<3200xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf %in
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_add(%a: tensor<64x136xf32>, %b: tensor<136x50xf32>, %r: tensor<64x50xf32>) -> tensor<64x50xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x50xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x50xf32>) -> tensor<64x50xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x136xf32>, tensor<136x50xf32>) outs(%f : tensor<64x50xf32>) -> tensor<64x50xf32>
  %o = tensor.empty() : tensor<64x50xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %r : tensor<64x50xf32>, tensor<64x50xf32>) outs(%o : tensor<64x50xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64x50xf32>
  return %s : tensor<64x50xf32>
}

// -----

// After a depthwise convolution (register tiles of 4 output rows by 16
// columns, the 3x3 window looped over inside), the activation runs on each
// tile's accumulators, still in registers, before its one write.
// CHECK-LABEL: func.func @depthwise_relu
// CHECK: scf.for %[[C:.*]] = %c0 to %c4
// CHECK: scf.for %[[H:.*]] = %c0 to %c8 step %c4
// CHECK: scf.for %[[W:.*]] = %c0 to %c32 step %c16
// CHECK: %[[ACC:.*]] = scf.for {{.*}} to %c3 {{.*}} -> (vector<4x16xf32>)
// CHECK: vector.transfer_read %arg0{{.*}} : tensor<1x4x10x34xf32>, vector<4x16xf32>
// CHECK: %[[OUT:.*]] = arith.maximumf %[[ACC]], %{{.*}} : vector<4x16xf32>
// CHECK: vector.transfer_write %[[OUT]], %{{.*}}[%c0, %[[C]], %[[H]], %[[W]]]
// CHECK-NOT: linalg.generic
// CHECK: return
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise_relu(%x: tensor<1x4x10x34xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x8x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x10x34xf32>, tensor<4x3x3xf32>) outs(%f : tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32>
  %o = tensor.empty() : tensor<1x4x8x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x8x32xf32>) outs(%o : tensor<1x4x8x32xf32>) {
  ^bb0(%v: f32, %y: f32):
    %m = arith.maximumf %v, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x32xf32>
  return %r : tensor<1x4x8x32xf32>
}
