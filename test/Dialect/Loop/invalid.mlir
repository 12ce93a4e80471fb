// RUN: mlc-opt %s -split-input-file -verify-diagnostics

func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mlc_loop.kernel "k" ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %c: tensor<4xf32>):
    %e = tensor.empty() : tensor<8xf32>
    // expected-error @+1 {{'mlc_loop.yield' op yields ('tensor<8xf32>'), expected ('tensor<4xf32>')}}
    mlc_loop.yield %e : tensor<8xf32>
  } -> (tensor<4xf32>)
  return %r : tensor<4xf32>
}

// -----

func.func @block_args(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mlc_loop.kernel' op body has 1 arguments, expected 1 ins + 1 outs}}
  %r = mlc_loop.kernel "k" ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    mlc_loop.yield %a : tensor<4xf32>
  } -> (tensor<4xf32>)
  return %r : tensor<4xf32>
}

// -----

func.func @result_type(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'mlc_loop.kernel' op result 0 has type 'tensor<5xf32>', expected the type of outs operand 0, 'tensor<4xf32>'}}
  %r = mlc_loop.kernel "k" ins() outs(%x : tensor<4xf32>) {
  ^bb0(%c: tensor<4xf32>):
    mlc_loop.yield %c : tensor<4xf32>
  } -> (tensor<5xf32>)
  return %r : tensor<5xf32>
}

// -----

func.func @isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = mlc_loop.kernel "k" ins() outs(%x : tensor<4xf32>) {
  ^bb0(%c: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    mlc_loop.yield %x : tensor<4xf32>
  } -> (tensor<4xf32>)
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{tile level 1 has 2 sizes, expected 3}}
#bad_levels = #mlc_loop.schedule<tile_sizes = [[1, 2, 3], [1, 2]], vector_sizes = [], parallel_dims = []>

// -----

// expected-error @+1 {{parallel dim 3 is not a loop in [0, 3)}}
#bad_parallel = #mlc_loop.schedule<tile_sizes = [[1, 2, 3]], vector_sizes = [], parallel_dims = [3]>

// -----

// expected-error @+1 {{expected 3 vector sizes, got 2}}
#bad_vector = #mlc_loop.schedule<tile_sizes = [[1, 2, 3]], vector_sizes = [4, 4], parallel_dims = []>

// -----

// expected-error @+1 {{tile sizes must be non-negative}}
#bad_tile = #mlc_loop.schedule<tile_sizes = [[1, -2, 3]], vector_sizes = [], parallel_dims = []>

// -----

// expected-error @+1 {{'func.func' op 'mlc_loop.arena_size' must be an integer}}
func.func @arena_size_type() attributes {mlc_loop.arena_size = "big"} {
  return
}

// -----

// expected-error @+1 {{'func.func' op unknown attribute 'mlc_loop.tiles' of the mlc_loop dialect}}
func.func @unknown_attribute() attributes {mlc_loop.tiles = [1, 2]} {
  return
}

// -----

func.func @register_tiles_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.copy' op 'mlc_loop.register_tiles' must be an array<i64>}}
  %r = linalg.copy {mlc_loop.register_tiles = [4]} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{'builtin.module' op 'mlc_loop.weights' must be a dense_resource blob on the module}}
module attributes {mlc_loop.weights = dense<1> : tensor<4xi8>} {
}
