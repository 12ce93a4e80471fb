// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{parallel=false}))' | FileCheck %s

// An elementwise op over an NCHW map with 28-pixel rows runs over each
// channel's 784 pixels as one loop.
// CHECK-LABEL: func.func @add_relu
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<1x8x28x28xf32> into tensor<1x8x784xf32>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]] : tensor<1x8x28x28xf32> into tensor<1x8x784xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<1x8x784xf32>, tensor<1x8x784xf32>)
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 28, 28]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @add_relu(%a: tensor<1x8x28x28xf32>, %b: tensor<1x8x28x28xf32>) -> tensor<1x8x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x28x28xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x8x28x28xf32>, tensor<1x8x28x28xf32>) outs(%e : tensor<1x8x28x28xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %sum = arith.addf %x, %y : f32
    %relu = arith.maximumf %sum, %z : f32
    linalg.yield %relu : f32
  } -> tensor<1x8x28x28xf32>
  return %r : tensor<1x8x28x28xf32>
}

// -----

// Rows of 300 elements are long enough: the op is left as it is.
// CHECK-LABEL: func.func @long_rows
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x300xf32>, tensor<4x300xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @long_rows(%a: tensor<4x300xf32>, %b: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %e = tensor.empty() : tensor<4x300xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x300xf32>, tensor<4x300xf32>) outs(%e : tensor<4x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %sum = arith.addf %x, %y : f32
    linalg.yield %sum : f32
  } -> tensor<4x300xf32>
  return %r : tensor<4x300xf32>
}

// -----

// A transposing read does not walk the rows in order: left as it is.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8x28x28xf32>, tensor<8x28x28xf32>)
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
func.func @transposed(%a: tensor<8x28x28xf32>, %b: tensor<8x28x28xf32>) -> tensor<8x28x28xf32> {
  %e = tensor.empty() : tensor<8x28x28xf32>
  %r = linalg.generic {indexing_maps = [#id3, #tr3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : tensor<8x28x28xf32>, tensor<8x28x28xf32>) outs(%e : tensor<8x28x28xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %sum = arith.addf %x, %y : f32
    linalg.yield %sum : f32
  } -> tensor<8x28x28xf32>
  return %r : tensor<8x28x28xf32>
}
