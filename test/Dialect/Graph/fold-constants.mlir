// RUN: mlc-opt %s -mlc-graph-infer-shapes -split-input-file | FileCheck %s
// RUN: mlc-opt %s -mlc-graph-infer-shapes=fold-constants=false -split-input-file | FileCheck %s --check-prefix=NOFOLD

// The shape subgraph exporters write for `x.reshape(x.shape[0], -1)`:
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape. With a static input it
// folds to a constant and the reshape gets a static type.
// CHECK-LABEL: func @flatten_by_shape
// CHECK-NOT: mlc_graph.shape
// CHECK-NOT: mlc_graph.gather
// CHECK: %[[S:.*]] = mlc_graph.constant dense<[2, -1]> : tensor<2xi64>
// CHECK: mlc_graph.reshape %{{.*}}, %[[S]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// NOFOLD-LABEL: func @flatten_by_shape
// NOFOLD: mlc_graph.gather
func.func @flatten_by_shape(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %s = mlc_graph.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = mlc_graph.constant dense<0> : tensor<i64>
  %d = mlc_graph.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<*xi64>
  %u = mlc_graph.unsqueeze %d {axes = array<i64: 0>} : (tensor<*xi64>) -> tensor<*xi64>
  %m = mlc_graph.constant dense<[-1]> : tensor<1xi64>
  %c = mlc_graph.concat %u, %m {axis = 0 : i64} : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %r = mlc_graph.reshape %x, %c : (tensor<2x3x4xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// ConstantOfShape of a computed shape folds to a splat; Range to its values.
// CHECK-LABEL: func @generators
// CHECK-DAG: mlc_graph.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: mlc_graph.constant dense<[1, 3, 5]> : tensor<3xi64>
func.func @generators() -> (tensor<*xf32>, tensor<*xi64>) {
  %a = mlc_graph.constant dense<[1, 3]> : tensor<2xi64>
  %b = mlc_graph.constant dense<[1, 0]> : tensor<2xi64>
  %s = mlc_graph.add %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %0 = mlc_graph.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<*xf32>
  %start = mlc_graph.constant dense<1> : tensor<i64>
  %limit = mlc_graph.constant dense<6> : tensor<i64>
  %delta = mlc_graph.constant dense<2> : tensor<i64>
  %1 = mlc_graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<*xi64>
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

// Integer division by zero is left for the runtime.
// CHECK-LABEL: func @div_by_zero
// CHECK: mlc_graph.div
func.func @div_by_zero() -> tensor<2xi64> {
  %a = mlc_graph.constant dense<[4, 6]> : tensor<2xi64>
  %b = mlc_graph.constant dense<[2, 0]> : tensor<2xi64>
  %0 = mlc_graph.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// A reduction whose axes operand is a constant folds with those axes.
// CHECK-LABEL: func @reduce_constant_axes_operand
// CHECK: mlc_graph.constant dense<[5, 7, 9]> : tensor<3xi64>
// NOFOLD-LABEL: func @reduce_constant_axes_operand
// NOFOLD: mlc_graph.reduce_sum
func.func @reduce_constant_axes_operand() -> tensor<*xi64> {
  %x = mlc_graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %axes = mlc_graph.constant dense<[0]> : tensor<1xi64>
  %0 = mlc_graph.reduce_sum %x axes %axes {keepdims = false} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}
