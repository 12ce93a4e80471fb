// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{m-tile=14 n-tile=32 k-tile=192 n-block=320 vector-width=16 print-schedules=true}))' -o /dev/null | FileCheck %s

// Weights packed in panels of 32 columns (as mlc-loop-pack-weights leaves
// them) against few rows (the 49 pixels of a 7x7 map): each cache block is
// one panel, as deep as half of L2 holds with the rows' block (2 * 320 *
// 192 floats / (49 + 32) -> 1344, a multiple of the 192-deep L1 block), so
// that the weights stream past once, a panel at a time.
// CHECK: "few_rows" loops = [49, 16, 4608, 32] #mlc_loop.schedule<tile_sizes = {{\[\[}}0, 0, 0, 0], [0, 1, 1344, 0], [14, 1, 1, 32]]
// More rows keep blocks of ten panels, 192 deep.
// CHECK: "many_rows" loops = [512, 16, 4608, 32] #mlc_loop.schedule<tile_sizes = {{\[\[}}0, 0, 0, 0], [0, 10, 192, 0], [14, 1, 1, 32]]
#a = affine_map<(m, n1, k, n0) -> (m, k)>
#b = affine_map<(m, n1, k, n0) -> (n1, k, n0)>
#c = affine_map<(m, n1, k, n0) -> (m, n1, n0)>
func.func @streamed(%x: tensor<49x4608xf32>, %i: tensor<49x16x32xf32>,
                    %y: tensor<512x4608xf32>, %j: tensor<512x16x32xf32>)
    -> (tensor<49x16x32xf32>, tensor<512x16x32xf32>) {
  %w = arith.constant dense<0.5> : tensor<16x4608x32xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%x, %w : tensor<49x4608xf32>, tensor<16x4608x32xf32>) outs(%i : tensor<49x16x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<49x16x32xf32> loc("few_rows")
  %t = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%y, %w : tensor<512x4608xf32>, tensor<16x4608x32xf32>) outs(%j : tensor<512x16x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x16x32xf32> loc("many_rows")
  return %r, %t : tensor<49x16x32xf32>, tensor<512x16x32xf32>
}
