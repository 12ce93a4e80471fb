// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// MatMulInteger: operands widened to i32 minus their zero points (generics
// marked mlc_loop.dequantize, for targets with integer units), then an
// i32 linalg.matmul.
// CHECK-LABEL: func @matmul_integer
// CHECK: linalg.generic
// CHECK-SAME: attrs = {mlc_loop.dequantize}
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: linalg.generic
// CHECK: arith.extui
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x3xi32>, tensor<3x2xi32>) outs(%{{.*}} : tensor<4x2xi32>)
// CHECK-NOT: mlc_graph.matmul_integer
func.func @matmul_integer(%a: tensor<4x3xui8>, %b: tensor<3x2xui8>, %z: tensor<ui8>) -> tensor<4x2xi32> {
  %0 = mlc_graph.matmul_integer %a, %b lhs_zero_point %z : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// QLinearMatMul requantizes: multiplier in f32, product and rounding in
// f64, saturated to the output type.
// CHECK-LABEL: func @qlinear_matmul
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptoui
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %as: tensor<f32>, %az: tensor<ui8>, %b: tensor<4x3xui8>, %bs: tensor<f32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = mlc_graph.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// ConvInteger pads the widened input with zeros (the zero point before the
// subtraction) and convolves in i32.
// CHECK-LABEL: func @conv_integer
// CHECK: tensor.pad
// CHECK: arith.constant 0 : i32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x1x3x3xi32>
func.func @conv_integer(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x2x2xui8>, %z: tensor<ui8>) -> tensor<1x1x3x3xi32> {
  %0 = mlc_graph.conv_integer %x, %w input_zero_point %z {pads = array<i64: 1, 1, 0, 0>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>) -> tensor<1x1x3x3xi32>
  return %0 : tensor<1x1x3x3xi32>
}

// -----

// QuantizeLinear: divide, round to even, add the zero point, clamp with
// maxnumf/minnumf (a NaN saturates to the low end, as ONNX Runtime's
// kernels give), convert. DequantizeLinear: convert, subtract, scale.
// CHECK-LABEL: func.func @quantize_dequantize
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minnumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: linalg.generic
// CHECK: arith.uitofp
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @quantize_dequantize(%x: tensor<2x4xf32>, %s: tensor<f32>, %zp: tensor<ui8>) -> tensor<2x4xf32> {
  %q = mlc_graph.quantize_linear %x, %s, %zp : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  %d = mlc_graph.dequantize_linear %q, %s, %zp : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
