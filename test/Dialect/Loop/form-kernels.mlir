// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-loop-form-kernels))' | FileCheck %s

// A matmul takes its transposed weights (data movement read only by it)
// and its ReLU (the only reader of its result); the zero fill stays
// outside with the destination; constants are cloned in. The kernel is
// named after the matmul's ONNX node.

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @matmul_relu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x16xf32>) outs(%t : tensor<16x8xf32>) permutation = [1, 0]
  %t2 = tensor.empty() : tensor<8x16xf32>
  %back = linalg.transpose ins(%wt : tensor<16x8xf32>) outs(%t2 : tensor<8x16xf32>) permutation = [1, 0]
  %m = linalg.matmul ins(%x, %back : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32> loc("Gemm_0")
  %e2 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32> loc("Relu_1")
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_relu
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: mlc_loop.kernel "?" ins(%arg1 : tensor<8x16xf32>)
// CHECK: linalg.transpose {{.*}} {mlc_loop.root}
// CHECK: %[[K:.*]] = mlc_loop.kernel "Gemm_0" ins({{.*}}, %[[FILL]] : {{.*}}) outs(%{{.*}} : tensor<4x16xf32>) {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: arith.constant 0.0
// CHECK-NEXT: linalg.transpose
// CHECK-NEXT: linalg.matmul {mlc_loop.root}
// CHECK-NEXT: linalg.generic
// CHECK: arith.maximumf
// CHECK: mlc_loop.yield
// CHECK: return %[[K]]



// A reduction (a row sum) is a kernel of its own; the elementwise op after
// it, which also reads another value, joins it as its epilogue.
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum_scaled(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32> loc("ReduceSum_0")
  %e2 = tensor.empty() : tensor<4xf32>
  %scaled = linalg.mul ins(%sum, %s : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %scaled : tensor<4xf32>
}
// CHECK-LABEL: func.func @row_sum_scaled
// CHECK: mlc_loop.kernel "ReduceSum_0" ins(%arg0, %{{.*}}, %arg1 : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}}mlc_loop.root
// CHECK: linalg.mul
// CHECK: mlc_loop.yield

// A max pool takes the padded copy of its input that only it reads; the
// kernel reads the unpadded input, and the padding value is cloned in.
// CHECK-LABEL: func.func @padded_pool
// CHECK: mlc_loop.kernel "MaxPool_0" ins(%arg0, %{{.*}} : tensor<1x2x4x4xf32>, tensor<3x3xf32>)
// CHECK: arith.constant 0xFF800000
// CHECK: tensor.pad
// CHECK: linalg.pooling_nchw_max {{.*}}mlc_loop.root
func.func @padded_pool(%x: tensor<1x2x4x4xf32>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<1x2x6x6xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("MaxPool_0")
  return %p : tensor<1x2x4x4xf32>
}
