// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-reassociate-sums))' | FileCheck %s

// GlobalAveragePool's sum: the rows and columns it reduces become one loop
// over a collapsed view (one long contiguous sum), and the add into the
// accumulator may be reassociated.
// CHECK-LABEL: func.func @pool
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x7x9xf32> into tensor<1x8x63xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[FLAT]] : tensor<1x8x63xf32>) outs(%{{.*}} : tensor<1x8x1x1xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @pool(%x: tensor<1x8x7x9xf32>) -> tensor<1x8x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                       affine_map<(n, c, h, w) -> (n, c, 0, 0)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<1x8x7x9xf32>) outs(%init : tensor<1x8x1x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x1xf32>
  return %sum : tensor<1x8x1x1xf32>
}

// -----

// A reduction over dims the input does not hold innermost (h and w of an
// NHWC tensor, c kept) stays as it is; its sum is still marked.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: tensor.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @strided(%x: tensor<1x7x9x8xf32>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>,
                       affine_map<(n, c, h, w) -> (n, c)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<1x7x9x8xf32>) outs(%init : tensor<1x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x8xf32>
  return %sum : tensor<1x8xf32>
}
