// RUN: mlc-opt %s -mlc-convert-graph-to-loop | FileCheck %s

// CHECK-LABEL: func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<5x4xf32>, %[[C:.*]]: tensor<5xf32>)
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<5x4xf32>) outs(%{{.*}} : tensor<4x5xf32>) permutation = [1, 0]
// CHECK: %[[ACC:.*]] = linalg.fill
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %[[BT]] : tensor<2x4xf32>, tensor<4x5xf32>) outs(%[[ACC]] : tensor<2x5xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[C]] : tensor<2x5xf32>, tensor<5xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf
func.func @gemm(%a: tensor<2x4xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<2x5xf32> {
  %0 = mlc_graph.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_b = true} : (tensor<2x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: func @softmax_reshape_transpose
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: %[[S:.*]] = arith.constant dense<10> : tensor<1xi64>
// CHECK: tensor.reshape %{{.*}}(%[[S]]) : (tensor<5x2xf32>, tensor<1xi64>) -> tensor<10xf32>
func.func @softmax_reshape_transpose(%x: tensor<2x5xf32>) -> tensor<10xf32> {
  %0 = mlc_graph.softmax %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = mlc_graph.transpose %0 : (tensor<2x5xf32>) -> tensor<5x2xf32>
  %s = mlc_graph.constant dense<[-1]> : tensor<1xi64>
  %2 = mlc_graph.reshape %1, %s : (tensor<5x2xf32>, tensor<1xi64>) -> tensor<10xf32>
  return %2 : tensor<10xf32>
}

// Weights stay blobs through the conversion.
// CHECK-LABEL: func @weights
// CHECK: arith.constant dense_resource<w> : tensor<2x2xf32>
func.func @weights() -> tensor<2x2xf32> {
  %0 = mlc_graph.constant dense_resource<w> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}

// -----

// An If on a run-time condition branches on its one element: each branch
// computes only in its own region.
// CHECK-LABEL: func @if_runtime
// CHECK: %[[FLAG:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[FLAG]] -> (tensor<4xf32>) {
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: } else {
// CHECK: math.log
// CHECK: scf.yield
// CHECK-NOT: mlc_graph.if
func.func @if_runtime(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mlc_graph.if %c {
    %a = mlc_graph.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    mlc_graph.yield %a : tensor<4xf32>
  } else {
    %b = mlc_graph.log %x : (tensor<4xf32>) -> tensor<4xf32>
    mlc_graph.yield %b : tensor<4xf32>
  } : (tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A vector operand of MatMul is a row (lhs) or a column (rhs) of a matrix
// product, and the unit dim leaves the result.
// CHECK-LABEL: func @matmul_vectors
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 6] : tensor<6xf32> into tensor<1x6xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x6xf32>, tensor<6x9xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x9xf32> into tensor<9xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [12, 1] : tensor<12xf32> into tensor<12x1xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<5x4x1xf32> into tensor<5x4xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x6xf32>, tensor<6x1xf32>)
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
func.func @matmul_vectors(%v: tensor<6xf32>, %m: tensor<6x9xf32>, %b: tensor<5x4x12xf32>, %c: tensor<12xf32>) -> (tensor<9xf32>, tensor<5x4xf32>, tensor<f32>) {
  %0 = mlc_graph.matmul %v, %m : (tensor<6xf32>, tensor<6x9xf32>) -> tensor<9xf32>
  %1 = mlc_graph.matmul %b, %c : (tensor<5x4x12xf32>, tensor<12xf32>) -> tensor<5x4xf32>
  %2 = mlc_graph.matmul %v, %v : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<9xf32>, tensor<5x4xf32>, tensor<f32>
}
