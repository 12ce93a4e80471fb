// RUN: mlc-opt %s -split-input-file -verify-diagnostics

func.func @range_delta_zero() {
  %a = mlc_graph.constant dense<1> : tensor<i64>
  %z = mlc_graph.constant dense<0> : tensor<i64>
  // expected-error @+2 {{'mlc_graph.range' op delta is 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.range %a, %a, %z : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<4x5xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'mlc_graph.gather_elements' op data has rank 2 but indices rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.gather_elements %x, %i : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+2 {{'mlc_graph.scatter_elements' op unknown reduction 'avg'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.scatter_elements %x, %i, %u {reduction = "avg"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<4x5xf32>) {
  %k = mlc_graph.constant dense<[6]> : tensor<1xi64>
  // expected-error @+2 {{'mlc_graph.top_k' op k = 6 exceeds the axis size 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = mlc_graph.top_k %x, %k : (tensor<4x5xf32>, tensor<1xi64>) -> (tensor<4x6xf32>, tensor<4x6xi64>)
  return
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x4x4xf32>) {
  // expected-error @+2 {{'mlc_graph.depth_to_space' op channels 6 are not divisible by blocksize^2 = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x6x4x4xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x8x4x4xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'mlc_graph.conv_transpose' op input has 8 channels but weight 4x2x3x3 expects 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv_transpose %x, %w : (tensor<1x8x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @resize_both(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>) {
  // expected-error @+2 {{'mlc_graph.resize' op takes scales or sizes, not both}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.resize %x scales %s sizes %z : (tensor<1x1x4x4xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @quantize_axis(%x: tensor<2x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'mlc_graph.quantize_linear' op scale has 3 entries but axis 1 has size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.quantize_linear %x, %s : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xui8>
  return
}

// -----

func.func @constant_of_shape_value(%s: tensor<2xi64>) {
  // expected-error @+2 {{'mlc_graph.constant_of_shape' op value must hold one element, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.constant_of_shape %s {value = dense<[1, 2]> : tensor<2xi32>} : (tensor<2xi64>) -> tensor<?x?xi32>
  return
}

// -----

func.func @if_yield_mismatch(%c: tensor<i1>, %x: tensor<3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'mlc_graph.if' op else branch yields 'tensor<4xf32>' as value 0, incompatible with 'tensor<3xf32>'}}
  %0 = mlc_graph.if %c {
    mlc_graph.yield %x : tensor<3xf32>
  } else {
    mlc_graph.yield %y : tensor<4xf32>
  } : (tensor<i1>) -> tensor<3xf32>
  return
}

// -----

func.func @loop_yield_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{'mlc_graph.loop' op body yields 2 values, expected 3 (condition, carried values, scan outputs)}}
  %0:2 = mlc_graph.loop carried(%x) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<3xf32>):
    mlc_graph.yield %cond, %acc : tensor<i1>, tensor<3xf32>
  } : (tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>)
  return
}

// -----

func.func @loop_args(%x: tensor<3xf32>) {
  // expected-error @+1 {{'mlc_graph.loop' op body has 2 arguments, expected 3 (iteration number, condition, carried values)}}
  %0 = mlc_graph.loop carried(%x) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>):
    mlc_graph.yield %cond, %x : tensor<i1>, tensor<3xf32>
  } : (tensor<3xf32>) -> (tensor<3xf32>)
  return
}

// -----

func.func @einsum_terms(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'mlc_graph.einsum' op equation 'ij,jk->ik' has 2 operand terms for 1 inputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'mlc_graph.einsum' op index 'j' has sizes 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @lstm_weight(%x: tensor<7x2x4xf32>, %w: tensor<1x12x5xf32>, %r: tensor<1x12x3xf32>) {
  // expected-error @+2 {{'mlc_graph.lstm' op weight has dim 2 = 5, expected 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = mlc_graph.lstm %x, %w, %r {hidden_size = 3 : i64} : (tensor<7x2x4xf32>, tensor<1x12x5xf32>, tensor<1x12x3xf32>) -> (tensor<7x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  return
}

// -----

func.func @gru_direction(%x: tensor<7x2x4xf32>, %w: tensor<1x9x4xf32>, %r: tensor<1x9x3xf32>) {
  // expected-error @+2 {{'mlc_graph.gru' op unknown direction 'sideways'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = mlc_graph.gru %x, %w, %r {direction = "sideways", hidden_size = 3 : i64} : (tensor<7x2x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>) -> (tensor<7x1x2x3xf32>, tensor<1x2x3xf32>)
  return
}

// -----

func.func @scan_inputs(%init: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{'mlc_graph.scan' op num_scan_inputs = 3 must be in [1, 2]}}
  %0:2 = mlc_graph.scan(%init, %x) {
  ^bb0(%s: tensor<2xf32>, %slice: tensor<2xf32>):
    mlc_graph.yield %s, %s : tensor<2xf32>, tensor<2xf32>
  } {num_scan_inputs = 3 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return
}
