// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-tile-by-schedule))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-tile-by-schedule{fuse-epilogues=false}))' | FileCheck %s --check-prefix=NOFUSE

// Level 0 is one scf.forall over the parallel_dims (columns in chunks of
// 32), level 1 scf.for loops in the schedule's loop order (n, m, k), level
// 2 the register tile, left as marks on the innermost tile. The activation
// runs on each 4x16 part of the result once its reduction is complete.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c64
// CHECK: linalg.matmul {mlc_loop.loop_order = array<i64: 1, 0, 2>, mlc_loop.register_tiles = array<i64: 2, 16, 1>
// CHECK-SAME: tensor<4x64xf32>, tensor<64x16xf32>
// CHECK: scf.yield
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T:.*]] : tensor<4x16xf32>) outs(%[[T]] : tensor<4x16xf32>)
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// NOFUSE-LABEL: func.func @matmul_relu
// NOFUSE: scf.forall.in_parallel
// NOFUSE: linalg.generic
// NOFUSE: arith.maximumf
func.func @matmul_relu(%a: tensor<8x128xf32>, %b: tensor<128x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 32, 0], [4, 16, 64], [2, 16, 1]], vector_sizes = [2, 16, 1], parallel_dims = [1], loop_order = [1, 0, 2]>} ins(%a, %b : tensor<8x128xf32>, tensor<128x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// Tiles that do not divide their loop are peeled: 10 rows in tiles of 4
// are two full tiles and one of 2, each of static shape.
// CHECK-LABEL: func.func @peeled
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x32xf32>)
// CHECK: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<16x32xf32>)
func.func @peeled(%a: tensor<10x16xf32>, %b: tensor<16x32xf32>, %c: tensor<10x32xf32>) -> tensor<10x32xf32> {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 0, 0], [4, 0, 0], [2, 16, 1]], vector_sizes = [2, 16, 1], parallel_dims = []>} ins(%a, %b : tensor<10x16xf32>, tensor<16x32xf32>) outs(%c : tensor<10x32xf32>) -> tensor<10x32xf32>
  return %m : tensor<10x32xf32>
}

// -----

// A loop nest's schedule of thread chunks only.
// CHECK-LABEL: func.func @exp_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (16)
// CHECK: math.exp
// CHECK-NOT: mlc_loop.register_tiles
func.func @exp_rows(%x: tensor<64x32xf32>, %o: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"], mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[16, 0]], vector_sizes = [], parallel_dims = [0]>} ins(%x : tensor<64x32xf32>) outs(%o : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A schedule that is a register tile only is left to the target.
// CHECK-LABEL: func.func @register_only
// CHECK-NOT: scf.for
// CHECK: linalg.matmul {mlc_loop.schedule
func.func @register_only(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[4, 16, 1]], vector_sizes = [4, 16, 1], parallel_dims = []>} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// -----

// A quantized convolution's scaling changes the element type (i32 sums ->
// i8) and reads a per-channel scale: it cannot run in place, so it is
// fused as a consumer of the threads' chunks: the forall carries the i8
// result and each chunk scales its own i32 sums right after computing
// them. Its iteration space is the contraction's (the expand_shape is
// applied to the result).
// CHECK-LABEL: func.func @quantized_scaling
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x16x16x16xi8> into tensor<16x256xi8>
// CHECK: %[[R:.*]] = scf.forall (%[[J:.*]]) = (0) to (256) step (64) shared_outs(%[[S:.*]] = %[[OUT]]) -> (tensor<16x256xi8>)
// CHECK: %[[SUMS:.*]] = scf.for
// CHECK: linalg.matmul
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[S]][0, %[[J]]] [16, 64] [1, 1]
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}} ins(%[[SUMS]], %arg3 : tensor<16x64xi32>, tensor<16xf32>) outs(%[[PART]] : tensor<16x64xi8>)
// CHECK: tensor.parallel_insert_slice %[[SCALED]] into %[[S]][0, %[[J]]] [16, 64]
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1], [2, 3]]
// NOFUSE-LABEL: func.func @quantized_scaling
// NOFUSE: scf.forall.in_parallel
// NOFUSE: linalg.generic {{.*}} ins(%{{.*}}, %arg3 : tensor<1x16x16x16xi32>, tensor<16xf32>) outs(%{{.*}} : tensor<1x16x16x16xi8>)
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @quantized_scaling(%a: tensor<16x64xi32>, %b: tensor<64x256xi32>, %c: tensor<16x256xi32>, %s: tensor<16xf32>) -> tensor<1x16x16x16xi8> {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 64, 0], [8, 32, 16], [2, 16, 1]], vector_sizes = [2, 16, 1], parallel_dims = [1], loop_order = [1, 0, 2]>} ins(%a, %b : tensor<16x64xi32>, tensor<64x256xi32>) outs(%c : tensor<16x256xi32>) -> tensor<16x256xi32>
  %x = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 16, 16] : tensor<16x256xi32> into tensor<1x16x16x16xi32>
  %e = tensor.empty() : tensor<1x16x16x16xi8>
  %r = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x16x16x16xi32>, tensor<16xf32>) outs(%e : tensor<1x16x16x16xi8>) {
  ^bb0(%v: i32, %sc: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %g = arith.mulf %f, %sc : f32
    %h = arith.fptosi %g : f32 to i8
    linalg.yield %h : i8
  } -> tensor<1x16x16x16xi8>
  return %r : tensor<1x16x16x16xi8>
}
