// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-fold-weight-transposes))' | FileCheck %s

// A transposed constant becomes a new constant with the data moved; a
// transpose of a run-time value stays.
// CHECK-LABEL: func.func @weights
// CHECK: %[[W:.*]] = arith.constant dense_resource<transposed> : tensor<3x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0
// CHECK: return %[[W]], %[[T]]
// CHECK: transposed: "0x400000000000803F00008040000000400000A040000040400000C040"
func.func @weights(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<3x2xf32>
  %u = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) permutation = [1, 0]
  return %t, %u : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A reshape of the transposed weights shares their blob.
// CHECK-LABEL: func.func @reshaped
// CHECK: %[[W:.*]] = arith.constant dense_resource<transposed{{.*}}> : tensor<3x2xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[W]]
func.func @reshaped() -> tensor<3x2xf32> {
  %w = arith.constant dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %e = tensor.empty() : tensor<3x1x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x1x3xf32>) outs(%e : tensor<3x1x2xf32>) permutation = [2, 1, 0]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<3x1x2xf32> into tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}
