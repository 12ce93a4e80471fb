// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlir-print-op-generic | mlc-opt | FileCheck %s

// Round trip of the ops in GraphIndexingOps.td, GraphSpatialOps.td and
// GraphQuantOps.td, and of the less common elementwise ops.

// CHECK-LABEL: func @elementwise_more
func.func @elementwise_more(%x: tensor<4xf32>, %i: tensor<4xi32>) {
  // CHECK: mlc_graph.tan
  %0 = mlc_graph.tan %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.sinh
  %1 = mlc_graph.sinh %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.cosh
  %2 = mlc_graph.cosh %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.asin
  %3 = mlc_graph.asin %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.acos
  %4 = mlc_graph.acos %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.atan
  %5 = mlc_graph.atan %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.asinh
  %6 = mlc_graph.asinh %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.acosh
  %7 = mlc_graph.acosh %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.atanh
  %8 = mlc_graph.atanh %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.sign %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %9 = mlc_graph.sign %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: mlc_graph.softsign
  %10 = mlc_graph.softsign %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.mish
  %11 = mlc_graph.mish %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.celu %{{.*}} {alpha = 2.000000e+00 : f32}
  %12 = mlc_graph.celu %x {alpha = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.thresholded_relu
  %13 = mlc_graph.thresholded_relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.shrink %{{.*}} {lambd = 1.000000e+00 : f32}
  %14 = mlc_graph.shrink %x {lambd = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.is_nan %{{.*}} : (tensor<4xf32>) -> tensor<4xi1>
  %15 = mlc_graph.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: mlc_graph.is_inf %{{.*}} {detect_negative = false} : (tensor<4xf32>) -> tensor<4xi1>
  %16 = mlc_graph.is_inf %x {detect_negative = false} : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: mlc_graph.prelu %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %17 = mlc_graph.prelu %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.mod %{{.*}}, %{{.*}} {fmod = true}
  %18 = mlc_graph.mod %x, %x {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.hardmax
  %19 = mlc_graph.hardmax %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: mlc_graph.reduce_log_sum
  %20 = mlc_graph.reduce_log_sum %x : (tensor<4xf32>) -> tensor<1xf32>
  // CHECK: mlc_graph.reduce_l1
  %21 = mlc_graph.reduce_l1 %x : (tensor<4xf32>) -> tensor<1xf32>
  // CHECK: mlc_graph.reduce_sum_square
  %22 = mlc_graph.reduce_sum_square %x {keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return
}

// CHECK-LABEL: func @generators
func.func @generators(%s: tensor<3xi64>, %i: tensor<2x3xi64>) {
  %shape = mlc_graph.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK: mlc_graph.constant_of_shape %{{.*}} {value = dense<1> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  %0 = mlc_graph.constant_of_shape %shape {value = dense<1> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  // CHECK: mlc_graph.constant_of_shape %{{.*}} : (tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = mlc_graph.constant_of_shape %s : (tensor<3xi64>) -> tensor<?x?x?xf32>
  %a = mlc_graph.constant dense<1> : tensor<i64>
  %b = mlc_graph.constant dense<10> : tensor<i64>
  %c = mlc_graph.constant dense<3> : tensor<i64>
  // CHECK: mlc_graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %2 = mlc_graph.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %v = mlc_graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  // CHECK: mlc_graph.one_hot %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x3x10xf32>
  %3 = mlc_graph.one_hot %i, %b, %v : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x3x10xf32>
  return
}

// CHECK-LABEL: func @indexing
func.func @indexing(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) {
  // CHECK: mlc_graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %0 = mlc_graph.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  // CHECK: mlc_graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"}
  %1 = mlc_graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  %k = mlc_graph.constant dense<1> : tensor<i64>
  // CHECK: mlc_graph.trilu %{{.*}} k %{{.*}} {upper = false}
  %2 = mlc_graph.trilu %x k %k {upper = false} : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>
  %r = mlc_graph.constant dense<[2, 1]> : tensor<2xi64>
  // CHECK: mlc_graph.tile %{{.*}}, %{{.*}} : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<8x5xf32>
  %3 = mlc_graph.tile %x, %r : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<8x5xf32>
  // CHECK: mlc_graph.cum_sum %{{.*}}, %{{.*}} {exclusive = true} : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>
  %4 = mlc_graph.cum_sum %x, %k {exclusive = true} : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>
  %three = mlc_graph.constant dense<[3]> : tensor<1xi64>
  // CHECK: mlc_graph.top_k %{{.*}}, %{{.*}} : (tensor<4x5xf32>, tensor<1xi64>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %5:2 = mlc_graph.top_k %x, %three : (tensor<4x5xf32>, tensor<1xi64>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  return
}

// CHECK-LABEL: func @spatial
func.func @spatial(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x3x3xf32>) {
  // CHECK: mlc_graph.depth_to_space %{{.*}} {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
  %0 = mlc_graph.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
  // CHECK: mlc_graph.space_to_depth %{{.*}} {blocksize = 2 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x32x2x2xf32>
  %1 = mlc_graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x32x2x2xf32>
  // CHECK: mlc_graph.conv_transpose %{{.*}}, %{{.*}} {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %2 = mlc_graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %scales = mlc_graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // CHECK: mlc_graph.resize %{{.*}} scales %{{.*}} {mode = "linear"} : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x8x8xf32>
  %3 = mlc_graph.resize %x scales %scales {mode = "linear"} : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x8x8xf32>
  %sizes = mlc_graph.constant dense<[1, 8, 3, 5]> : tensor<4xi64>
  // CHECK: mlc_graph.resize %{{.*}} sizes %{{.*}} : (tensor<1x8x4x4xf32>, tensor<4xi64>) -> tensor<1x8x3x5xf32>
  %4 = mlc_graph.resize %x sizes %sizes : (tensor<1x8x4x4xf32>, tensor<4xi64>) -> tensor<1x8x3x5xf32>
  return
}

// CHECK-LABEL: func @quantization
func.func @quantization(%x: tensor<2x4xf32>, %s: tensor<f32>, %zp: tensor<i8>,
                        %q: tensor<2x4xi8>, %w: tensor<4x3xi8>,
                        %img: tensor<1x3x8x8xui8>, %k: tensor<4x3x3x3xui8>, %uzp: tensor<ui8>) {
  // CHECK: mlc_graph.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  %0 = mlc_graph.quantize_linear %x, %s, %zp : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  // CHECK: mlc_graph.quantize_linear %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xui8>
  %1 = mlc_graph.quantize_linear %x, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xui8>
  // CHECK: mlc_graph.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %2 = mlc_graph.dequantize_linear %q, %s, %zp : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  // CHECK: mlc_graph.dynamic_quantize_linear %{{.*}} : (tensor<2x4xf32>) -> (tensor<2x4xui8>, tensor<f32>, tensor<ui8>)
  %3:3 = mlc_graph.dynamic_quantize_linear %x : (tensor<2x4xf32>) -> (tensor<2x4xui8>, tensor<f32>, tensor<ui8>)
  // CHECK: mlc_graph.matmul_integer %{{.*}}, %{{.*}} lhs_zero_point %{{.*}} : (tensor<2x4xi8>, tensor<4x3xi8>, tensor<i8>) -> tensor<2x3xi32>
  %4 = mlc_graph.matmul_integer %q, %w lhs_zero_point %zp : (tensor<2x4xi8>, tensor<4x3xi8>, tensor<i8>) -> tensor<2x3xi32>
  // CHECK: mlc_graph.qlinear_matmul {{.*}} -> tensor<2x3xi8>
  %5 = mlc_graph.qlinear_matmul %q, %s, %zp, %w, %s, %zp, %s, %zp : (tensor<2x4xi8>, tensor<f32>, tensor<i8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  // CHECK: mlc_graph.conv_integer %{{.*}}, %{{.*}} input_zero_point %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xui8>, tensor<ui8>) -> tensor<1x4x8x8xi32>
  %6 = mlc_graph.conv_integer %img, %k input_zero_point %uzp {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xui8>, tensor<ui8>) -> tensor<1x4x8x8xi32>
  // CHECK: mlc_graph.qlinear_conv {{.*}} -> tensor<1x4x6x6xui8>
  %7 = mlc_graph.qlinear_conv %img, %s, %uzp, %k, %s, %uzp, %s, %uzp : (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<4x3x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xui8>
  return
}

// CHECK-LABEL: func @control_flow
func.func @control_flow(%c: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i64>) {
  // CHECK: mlc_graph.if %{{.*}} {
  // CHECK: mlc_graph.yield %{{.*}} : tensor<3xf32>
  // CHECK: } else {
  // CHECK: } : (tensor<i1>) -> tensor<3xf32>
  %0 = mlc_graph.if %c {
    %r = mlc_graph.relu %x : (tensor<3xf32>) -> tensor<3xf32>
    mlc_graph.yield %r : tensor<3xf32>
  } else {
    mlc_graph.yield %x : tensor<3xf32>
  } : (tensor<i1>) -> tensor<3xf32>
  // CHECK: mlc_graph.loop max_trip_count %{{.*}} carried(%{{.*}}) {
  // CHECK: } : (tensor<i64>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>)
  %1:2 = mlc_graph.loop max_trip_count %n carried(%x) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<3xf32>):
    %s = mlc_graph.add %acc, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    mlc_graph.yield %cond, %s, %s : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  } : (tensor<i64>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>)
  return
}

// CHECK-LABEL: func @sequences
func.func @sequences(%x: tensor<7x2x4xf32>, %w: tensor<2x12x4xf32>, %r: tensor<2x12x3xf32>,
                     %b: tensor<2x24xf32>, %h: tensor<2x2x3xf32>,
                     %a: tensor<5x2x3xf32>, %c: tensor<5x3x4xf32>,
                     %xb: tensor<2x7x4xf32>, %w1: tensor<1x3x4xf32>, %r1: tensor<1x3x3xf32>,
                     %s0: tensor<1xi64>, %s9: tensor<1xi64>, %s1: tensor<1xi64>) {
  // CHECK: mlc_graph.lstm %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} initial_h %{{.*}} initial_c %{{.*}} {direction = "bidirectional", hidden_size = 3 : i64}
  // CHECK-SAME: -> (tensor<7x2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>)
  %0:3 = mlc_graph.lstm %x, %w, %r bias %b initial_h %h initial_c %h {direction = "bidirectional", hidden_size = 3 : i64} : (tensor<7x2x4xf32>, tensor<2x12x4xf32>, tensor<2x12x3xf32>, tensor<2x24xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> (tensor<7x2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>)
  %w3 = mlc_graph.slice %w, %s0, %s9 axes %s1 : (tensor<2x12x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x9x4xf32>
  %r3 = mlc_graph.slice %r, %s0, %s9 axes %s1 : (tensor<2x12x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x9x3xf32>
  // CHECK: mlc_graph.gru {{.*}} {direction = "bidirectional", hidden_size = 3 : i64, layout = 1 : i64, linear_before_reset = true}
  // CHECK-SAME: -> (tensor<2x7x2x3xf32>, tensor<2x2x3xf32>)
  %1:2 = mlc_graph.gru %xb, %w3, %r3 {direction = "bidirectional", hidden_size = 3 : i64, layout = 1 : i64, linear_before_reset = true} : (tensor<2x7x4xf32>, tensor<2x9x4xf32>, tensor<2x9x3xf32>) -> (tensor<2x7x2x3xf32>, tensor<2x2x3xf32>)
  // CHECK: mlc_graph.rnn {{.*}} {activations = ["Relu"], hidden_size = 3 : i64}
  %2:2 = mlc_graph.rnn %x, %w1, %r1 {activations = ["Relu"], hidden_size = 3 : i64} : (tensor<7x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>) -> (tensor<7x1x2x3xf32>, tensor<1x2x3xf32>)
  // CHECK: mlc_graph.einsum %{{.*}}, %{{.*}} {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %3 = mlc_graph.einsum %a, %c {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK: mlc_graph.einsum %{{.*}} {equation = "...ij"} : (tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
  %4 = mlc_graph.einsum %a {equation = "...ij"} : (tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
  return
}

// CHECK-LABEL: func @indexing_nd
func.func @indexing_nd(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>, %u: tensor<5x4xf32>) {
  // CHECK: mlc_graph.gather_nd %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  %0 = mlc_graph.gather_nd %d, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  // CHECK: mlc_graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "max"}
  %1 = mlc_graph.scatter_nd %d, %i, %u {reduction = "max"} : (tensor<2x3x4xf32>, tensor<5x2xi64>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: mlc_graph.non_zero %{{.*}} : (tensor<2x3x4xf32>) -> tensor<3x?xi64>
  %2 = mlc_graph.non_zero %d : (tensor<2x3x4xf32>) -> tensor<3x?xi64>
  // CHECK: mlc_graph.lrn %{{.*}} {size = 3 : i64}
  %3 = mlc_graph.lrn %d {size = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: mlc_graph.random {distribution = "normal", dtype = f32, seed = 1.000000e+00 : f32, shape = array<i64: 2, 2>} : () -> tensor<2x2xf32>
  %4 = mlc_graph.random {distribution = "normal", dtype = f32, shape = array<i64: 2, 2>, seed = 1.0 : f32} : () -> tensor<2x2xf32>
  // CHECK: mlc_graph.random %{{.*}} {distribution = "uniform", dtype = f16} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf16>
  %5 = mlc_graph.random %d {distribution = "uniform", dtype = f16} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf16>
  return
}

// CHECK-LABEL: func @instance_norm
func.func @instance_norm(%x: tensor<2x3x5x5xf32>, %p: tensor<3xf32>) -> tensor<2x3x5x5xf32> {
  // CHECK: mlc_graph.instance_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5x5xf32>
  %0 = mlc_graph.instance_norm %x, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5x5xf32>
  return %0 : tensor<2x3x5x5xf32>
}

// CHECK-LABEL: func @scan
func.func @scan(%init: tensor<2xf32>, %x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  // CHECK: mlc_graph.scan(%{{.*}}, %{{.*}}) {
  // CHECK: } {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  %0:2 = mlc_graph.scan(%init, %x) {
  ^bb0(%s: tensor<2xf32>, %slice: tensor<2xf32>):
    %n = mlc_graph.add %s, %slice : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    mlc_graph.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  } {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}
