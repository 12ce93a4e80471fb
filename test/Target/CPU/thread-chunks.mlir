// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{m-tile=6 n-tile=4 k-tile=0 n-block=0 vector-width=4 parallel=true print-schedules=true}))' | FileCheck %s
// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{m-tile=6 n-tile=4 k-tile=0 n-block=0 unpacked-tiles=16,4,0,0,8,4 vector-width=4 parallel=true print-schedules=true}))' | FileCheck %s --check-prefix=REGROWS

// Weights packed into 24 panels of 4 columns (as mlc-loop-pack-weights
// leaves them) are split among threads by panels before rows: each thread
// streams its share of the weights. 3 chunks of 8 panels would leave one of
// two threads idle a third of the time: 6 chunks of 4.
// CHECK: "?" loops = [64, 24, 128, 4] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 4, 0, 0]
#a = affine_map<(m, n1, k, n0) -> (m, k)>
#b = affine_map<(m, n1, k, n0) -> (n1, k, n0)>
#c = affine_map<(m, n1, k, n0) -> (m, n1, n0)>
func.func @packed(%a: tensor<64x128xf32>) -> tensor<64x24x4xf32> {
  %w = arith.constant dense<0.5> : tensor<24x128x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x24x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x24x4xf32>) -> tensor<64x24x4xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %w : tensor<64x128xf32>, tensor<24x128x4xf32>) outs(%f : tensor<64x24x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x24x4xf32>
  return %r : tensor<64x24x4xf32>
}

// 72 panels: 9 chunks of 8 would give one of two threads 5 of them; 18
// chunks of 4 split evenly.
// CHECK: "?" loops = [64, 72, 128, 4] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 4, 0, 0]
func.func @packed_72(%a: tensor<64x128xf32>) -> tensor<64x72x4xf32> {
  %w = arith.constant dense<0.5> : tensor<72x128x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x72x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x72x4xf32>) -> tensor<64x72x4xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %w : tensor<64x128xf32>, tensor<72x128x4xf32>) outs(%f : tensor<64x72x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x72x4xf32>
  return %r : tensor<64x72x4xf32>
}

// Columns that only single register tiles divide (196 = 49 x 4, as a 28x28
// map's 784 = 49 x 16 on AVX-512) would make 49 chunks, each re-reading all
// of the left-hand side: chunks of at least four tiles instead, here two of
// 98 (24 tiles and a 2-column rest each).
// CHECK: "?" loops = [64, 196, 64] #mlc_loop.schedule<tile_sizes = {{\[}}[0, 98, 0]
func.func @single_tiles(%a: tensor<64x64xf32>, %b: tensor<64x196xf32>) -> tensor<64x196xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x196xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x196xf32>) -> tensor<64x196xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x196xf32>) outs(%f : tensor<64x196xf32>) -> tensor<64x196xf32>
  return %r : tensor<64x196xf32>
}

// Three panels would split 2 : 1 between two threads; the 48 rows split
// evenly instead, in chunks of one register tile.
// CHECK: "?" loops = [48, 3, 1024, 4] #mlc_loop.schedule<tile_sizes = {{\[}}[6, 0, 0, 0]
// CHECK-SAME: parallel_dims = [0]
func.func @packed_odd_panels(%a: tensor<48x1024xf32>) -> tensor<48x3x4xf32> {
  %w = arith.constant dense<0.5> : tensor<3x1024x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x3x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<48x3x4xf32>) -> tensor<48x3x4xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %w : tensor<48x1024xf32>, tensor<3x1024x4xf32>) outs(%f : tensor<48x3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<48x3x4xf32>
  return %r : tensor<48x3x4xf32>
}

// 80 rows in chunks of the 16-row line tile are 5 chunks, 3 : 2 between two
// threads; with 8-row register tiles, 10 chunks of 8 split evenly. (With
// 6-row tiles and no narrower register tile, two chunks of 40.)
// CHECK: "?" loops = [80, 6, 1152] #mlc_loop.schedule<tile_sizes = {{\[}}[40, 0, 0]
// REGROWS: "?" loops = [80, 6, 1152] #mlc_loop.schedule<tile_sizes = {{\[}}[8, 0, 0]
func.func @rows_odd_chunks(%a: tensor<80x1152xf32>, %b: tensor<1152x6xf32>) -> tensor<80x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<80x6xf32>) -> tensor<80x6xf32>
  %r = linalg.matmul ins(%a, %b : tensor<80x1152xf32>, tensor<1152x6xf32>) outs(%f : tensor<80x6xf32>) -> tensor<80x6xf32>
  return %r : tensor<80x6xf32>
}
