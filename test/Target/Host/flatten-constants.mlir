// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-host-flatten-constants))' | FileCheck %s

// Weights of rank two or more become flat constants over the same data
// plus an expand_shape (a view after bufferization); splats, scalars and
// vectors stay as they are.
// CHECK-LABEL: func.func @weights
// CHECK-DAG: %[[R:.*]] = arith.constant dense_resource<w> : tensor<6xf32>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: arith.constant dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-DAG: tensor.expand_shape %[[R]] {{\[}}[0, 1, 2]] output_shape [1, 2, 3] : tensor<6xf32> into tensor<1x2x3xf32>
// CHECK-DAG: tensor.expand_shape %[[D]] {{\[}}[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
func.func @weights() -> (tensor<1x2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  %r = arith.constant dense_resource<w> : tensor<1x2x3xf32>
  %d = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = arith.constant dense<0.0> : tensor<2x2xf32>
  %v = arith.constant dense<[5.0, 6.0]> : tensor<2xf32>
  return %r, %d, %s, %v : tensor<1x2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000803F0000004000004040000080400000A040"
    }
  }
#-}
