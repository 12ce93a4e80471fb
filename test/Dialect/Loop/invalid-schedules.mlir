// RUN: mlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(mlc-loop-tile-by-schedule))'

// Schedules that do not fit their root are errors naming the kernel.

func.func @bad_chunk(%x: tensor<6x32xf32>, %o: tensor<6x32xf32>) -> tensor<6x32xf32> {
  // expected-error @+1 {{schedule for kernel '?': thread chunk 4 of loop 0 does not divide its 6 iterations}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"], mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[4, 0]], vector_sizes = [], parallel_dims = [0]>} ins(%x : tensor<6x32xf32>) outs(%o : tensor<6x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<6x32xf32>
  return %r : tensor<6x32xf32>
}

// -----

func.func @reduction_on_threads(%a: tensor<8x128xf32>, %b: tensor<128x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{loop 2 is a reduction: its iterations cannot be split across threads}}
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 0, 64]], vector_sizes = [], parallel_dims = [2]>} ins(%a, %b : tensor<8x128xf32>, tensor<128x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}

// -----

func.func @not_listed(%a: tensor<8x128xf32>, %b: tensor<128x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{loop 0 has a thread chunk (4) but is not in parallel_dims}}
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[4, 0, 0]], vector_sizes = [], parallel_dims = []>} ins(%a, %b : tensor<8x128xf32>, tensor<128x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}

// -----

func.func @wrong_loops(%a: tensor<8x128xf32>, %b: tensor<128x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{it has 2 loops, its root 3}}
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 0]], vector_sizes = [], parallel_dims = []>} ins(%a, %b : tensor<8x128xf32>, tensor<128x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}
