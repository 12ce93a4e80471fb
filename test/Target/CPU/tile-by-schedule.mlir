// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-by-schedule))' | FileCheck %s

// The generic tiling (test/Dialect/Loop/tile-by-schedule.mlir) with the
// CPU's policy. No loop level splits this matmul's reduction: its register
// tiles start from its init (the fill is marked as the accumulator init the
// tiles accumulate onto, AccumulatorInits.h).
// CHECK-LABEL: func.func @whole_reduction
// CHECK: linalg.fill {mlc_loop.accumulator_init = 0 : i64}
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: linalg.matmul {mlc_loop.accumulates_onto = 0 : i64, mlc_loop.loop_order = array<i64: 0, 1, 2>, mlc_loop.register_tiles = array<i64: 4, 16, 1>
func.func @whole_reduction(%a: tensor<8x64xf32>, %b: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 32, 0], [0, 16, 0], [4, 16, 1]], vector_sizes = [4, 16, 1], parallel_dims = [1]>} ins(%a, %b : tensor<8x64xf32>, tensor<64x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}

// -----

// A cache level splits the reduction into blocks of 32: the result is
// initialized whole first, as before.
// CHECK-LABEL: func.func @split_reduction
// CHECK-NOT: mlc_loop.accumulator_init
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// CHECK-NOT: mlc_loop.accumulates_onto
// CHECK: linalg.matmul {mlc_loop.loop_order
func.func @split_reduction(%a: tensor<8x64xf32>, %b: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 32, 0], [0, 16, 32], [4, 16, 1]], vector_sizes = [4, 16, 1], parallel_dims = [1]>} ins(%a, %b : tensor<8x64xf32>, tensor<64x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}

// -----

// An epilogue that changes the element type runs on each thread's chunk
// only when the chunk's own part of the sums fits its stack
// (kMaxStackScratchBytes): 512 x 256 i32 sums (512 KiB) do, 512 x 512
// (1 MiB) do not, and the scaling stays a pass of its own.
// CHECK-LABEL: func.func @chunk_scaling_limit
// CHECK: scf.forall {{.*}} -> (tensor<512x512xi32>, tensor<512x512xf32>)
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<512x256xf32>)
// CHECK: scf.forall {{.*}} -> (tensor<512x1024xi32>)
// CHECK: linalg.matmul
// CHECK: scf.forall.in_parallel
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<512x1024xi32>) outs(%{{.*}} : tensor<512x1024xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chunk_scaling_limit(%a: tensor<512x64xi32>, %b: tensor<64x512xi32>, %c: tensor<512x512xi32>, %b2: tensor<64x1024xi32>, %c2: tensor<512x1024xi32>) -> (tensor<512x512xf32>, tensor<512x1024xf32>) {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 256, 0], [0, 0, 0]], vector_sizes = [], parallel_dims = [1]>} ins(%a, %b : tensor<512x64xi32>, tensor<64x512xi32>) outs(%c : tensor<512x512xi32>) -> tensor<512x512xi32>
  %e = tensor.empty() : tensor<512x512xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<512x512xi32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%v: i32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    linalg.yield %f : f32
  } -> tensor<512x512xf32>
  %m2 = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 512, 0], [0, 0, 0]], vector_sizes = [], parallel_dims = [1]>} ins(%a, %b2 : tensor<512x64xi32>, tensor<64x1024xi32>) outs(%c2 : tensor<512x1024xi32>) -> tensor<512x1024xi32>
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<512x1024xi32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%v: i32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    linalg.yield %f : f32
  } -> tensor<512x1024xf32>
  return %r, %r2 : tensor<512x512xf32>, tensor<512x1024xf32>
}
