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
