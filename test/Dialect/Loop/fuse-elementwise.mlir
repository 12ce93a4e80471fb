// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-loop-fuse-elementwise))' | FileCheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>

// Convolution, bias, residual add and relu: the zero fill and the bias
// addition become the accumulator's start (a broadcast of the bias); the
// residual add, whose addend is full-size, is not folded (accumulating onto
// it would round every step at its magnitude) but fused with the relu.
// CHECK-LABEL: func.func @conv_bias_residual_relu
// CHECK-NOT: linalg.fill
// CHECK: %[[INIT:.*]] = linalg.generic
// CHECK-SAME: ins(%arg2 : tensor<8xf32>)
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME: outs(%[[INIT]] : tensor<1x8x4x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg3, %[[CONV]] : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @conv_bias_residual_relu(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>,
                                   %b: tensor<8xf32>, %r: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) outs(%fill : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %biased = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %b : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %biased : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sum : tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  return %relu : tensor<1x8x4x4xf32>
}

// A matmul result used twice keeps its own additions; the chain after it
// (x * sigmoid-like(x)) becomes one loop nest reading the matmul once.
// CHECK-LABEL: func.func @shared_result
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}} outs(%[[FILL]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]] : tensor<4x16xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @shared_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x = math.exp %v : f32
    %y = arith.addf %x, %one : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %g : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// A producer read through a broadcast is not pulled into its consumer (it
// would be recomputed for every row).
// CHECK-LABEL: func.func @no_broadcast_recompute
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @no_broadcast_recompute(%v: tensor<16xf32>, %m: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e1 = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m, %x : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// -----

// A bias after a matmul whose batch dims were folded into its rows (an
// expand_shape between them) starts the accumulator too, broadcast over
// the matmul's own 6x5 shape.
// CHECK-LABEL: func.func @bias_through_expand
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<5xf32>) outs(%{{.*}} : tensor<6x5xf32>)
// CHECK: %[[P:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<6x4xf32>, tensor<4x5xf32>) outs(%[[INIT]] : tensor<6x5xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[P]]
// CHECK-NEXT: return %[[R]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @bias_through_expand(%a: tensor<6x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %m = linalg.matmul ins(%a, %b : tensor<6x4xf32>, tensor<4x5xf32>) outs(%f : tensor<6x5xf32>) -> tensor<6x5xf32>
  %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
  %o = tensor.empty() : tensor<2x3x5xf32>
  %r = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %bias : tensor<2x3x5xf32>, tensor<5xf32>) outs(%o : tensor<2x3x5xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// A QuantizeLinear and its DequantizeLinear fused: the clamped integral
// value is used as it is, not converted to 8 bits and back. A bound outside
// the integer's range (300 for ui8) keeps the conversions.
// CHECK-LABEL: func.func @quantize_round_trip
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = math.roundeven
// CHECK: %[[Z:.*]] = arith.addf %[[R]]
// CHECK: %[[LO:.*]] = arith.maxnumf %[[Z]]
// CHECK: %[[HI:.*]] = arith.minnumf %[[LO]]
// CHECK-NOT: arith.fptoui
// CHECK: arith.subf %[[HI]]
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK: arith.fptoui
// CHECK: arith.uitofp
// CHECK: return
#id1 = affine_map<(d0) -> (d0)>
func.func @quantize_round_trip(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %s = arith.constant 0.5 : f32
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %wide = arith.constant 300.0 : f32
  %e8 = tensor.empty() : tensor<16xi8>
  %ef = tensor.empty() : tensor<16xf32>
  %q = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e8 : tensor<16xi8>) {
  ^bb0(%v: f32, %o: i8):
    %d = arith.divf %v, %s : f32
    %r = math.roundeven %d : f32
    %a = arith.addf %r, %zp : f32
    %m = arith.maxnumf %a, %lo : f32
    %n = arith.minnumf %m, %hi : f32
    %i = arith.fptoui %n : f32 to i8
    linalg.yield %i : i8
  } -> tensor<16xi8>
  %dq = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%q : tensor<16xi8>) outs(%ef : tensor<16xf32>) {
  ^bb0(%i: i8, %o: f32):
    %f = arith.uitofp %i : i8 to f32
    %b = arith.subf %f, %zp : f32
    %y = arith.mulf %b, %s : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  %q2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e8 : tensor<16xi8>) {
  ^bb0(%v: f32, %o: i8):
    %r = math.roundeven %v : f32
    %m = arith.maxnumf %r, %lo : f32
    %n = arith.minnumf %m, %wide : f32
    %i = arith.fptoui %n : f32 to i8
    linalg.yield %i : i8
  } -> tensor<16xi8>
  %dq2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%q2 : tensor<16xi8>) outs(%ef : tensor<16xf32>) {
  ^bb0(%i: i8, %o: f32):
    %f = arith.uitofp %i : i8 to f32
    linalg.yield %f : f32
  } -> tensor<16xf32>
  return %dq, %dq2 : tensor<16xf32>, tensor<16xf32>
}
