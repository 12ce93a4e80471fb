// RUN: mlc-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @add_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = mlc_graph.constant dense<0.0> : tensor<4xf32>
  %0 = mlc_graph.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Adding a broadcast zero changes the shape: not an identity.
// CHECK-LABEL: func @add_zero_broadcast
// CHECK: mlc_graph.add
func.func @add_zero_broadcast(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %z = mlc_graph.constant dense<0.0> : tensor<3x4xf32>
  %0 = mlc_graph.add %x, %z : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @mul_one_div_one_sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2xi32>)
// CHECK-NEXT: return %[[X]]
func.func @mul_one_div_one_sub_zero(%x: tensor<2xi32>) -> tensor<2xi32> {
  %one = mlc_graph.constant dense<1> : tensor<2xi32>
  %zero = mlc_graph.constant dense<0> : tensor<2xi32>
  %0 = mlc_graph.mul %x, %one : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = mlc_graph.div %0, %one : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = mlc_graph.sub %1, %zero : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %2 : tensor<2xi32>
}

// -----

// ((1 + 4) * 1 - 1) / 1 = 4 and ((2 + 6) * 2 - 2) / 2 = 7.
// CHECK-LABEL: func @fold_arith
// CHECK-NEXT: %[[C:.*]] = mlc_graph.constant dense<[4.000000e+00, 7.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_arith() -> tensor<2xf32> {
  %a = mlc_graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = mlc_graph.constant dense<[4.0, 6.0]> : tensor<2xf32>
  %0 = mlc_graph.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = mlc_graph.mul %0, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = mlc_graph.sub %1, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = mlc_graph.div %2, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %3 : tensor<2xf32>
}

// -----

// Integer division by a constant zero must stay for the runtime to report.
// CHECK-LABEL: func @no_fold_int_div
// CHECK: mlc_graph.div
func.func @no_fold_int_div() -> tensor<2xi32> {
  %a = mlc_graph.constant dense<[1, 2]> : tensor<2xi32>
  %b = mlc_graph.constant dense<[0, 1]> : tensor<2xi32>
  %0 = mlc_graph.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT: return %[[X]], %[[B]]
func.func @identities(%x: tensor<2x3xf32>, %b: tensor<4xi1>) -> (tensor<2x3xf32>, tensor<4xi1>) {
  %0 = mlc_graph.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mlc_graph.cast %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mlc_graph.transpose %1 {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = mlc_graph.concat %2 {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = mlc_graph.constant dense<[2, 3]> : tensor<2xi64>
  %4 = mlc_graph.reshape %3, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %n = mlc_graph.not %b : (tensor<4xi1>) -> tensor<4xi1>
  %nn = mlc_graph.not %n : (tensor<4xi1>) -> tensor<4xi1>
  return %4, %nn : tensor<2x3xf32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @compose_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = mlc_graph.transpose %[[X]] {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = mlc_graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = mlc_graph.transpose %0 {perm = array<i64: 2, 1, 0>} : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// Two transposes that cancel fold away entirely.
// CHECK-LABEL: func @cancel_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cancel_transposes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mlc_graph.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = mlc_graph.transpose %0 : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @compose_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = mlc_graph.constant dense<[4, 6]> : tensor<2xi64>
// CHECK-NEXT: %[[R:.*]] = mlc_graph.reshape %[[X]], %[[S]] {allowzero = true}
// CHECK-NEXT: return %[[R]]
func.func @compose_reshapes(%x: tensor<2x3x4xf32>, %s1: tensor<2xi64>) -> tensor<4x6xf32> {
  %s2 = mlc_graph.constant dense<[4, 6]> : tensor<2xi64>
  %0 = mlc_graph.reshape %x, %s1 : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = mlc_graph.reshape %0, %s2 : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func @fold_shape
// CHECK-NEXT: %[[C:.*]] = mlc_graph.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @fold_shape(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = mlc_graph.shape %x {start = -2 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Axes operands known at compile time (constants, or of length 0) move
// into the attribute the lowerings read; run-time ones stay.
// CHECK-LABEL: func @known_axes
// CHECK: mlc_graph.squeeze %{{.*}} {axes = array<i64: 0>} : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK: mlc_graph.reduce_sum %{{.*}} : (tensor<1x3xf32>) -> tensor<1x1xf32>
// CHECK: mlc_graph.unsqueeze %{{.*}} {axes = array<i64>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK: mlc_graph.reduce_l2 %{{.*}} axes %{{.*}} : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1x?xf32>
func.func @known_axes(%x: tensor<1x3xf32>, %none: tensor<0xi64>, %axes: tensor<1xi64>)
    -> (tensor<3xf32>, tensor<1x1xf32>, tensor<1x3xf32>, tensor<1x?xf32>) {
  %c = mlc_graph.constant dense<[0]> : tensor<1xi64>
  %0 = mlc_graph.squeeze %x axes %c : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  %1 = mlc_graph.reduce_sum %x axes %none : (tensor<1x3xf32>, tensor<0xi64>) -> tensor<1x1xf32>
  %2 = mlc_graph.unsqueeze %x axes %none : (tensor<1x3xf32>, tensor<0xi64>) -> tensor<1x3xf32>
  %3 = mlc_graph.reduce_l2 %x axes %axes : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1x?xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<1x1xf32>, tensor<1x3xf32>, tensor<1x?xf32>
}

// -----

// Sequences known at compile time resolve: a split of a static dim becomes
// a construct of slices, reads of a construct its elements, its length a
// constant; a run-time position stays.
// CHECK-LABEL: func @known_sequences
// CHECK-DAG: %[[TWO:.*]] = mlc_graph.constant dense<2> : tensor<i64>
// CHECK-DAG: %[[S0:.*]] = mlc_graph.slice %arg0, {{.*}} -> tensor<2x1xf32>
// CHECK-DAG: %[[S1:.*]] = mlc_graph.slice %arg0, {{.*}} -> tensor<2x1xf32>
// CHECK: %[[SEQ:.*]] = mlc_graph.sequence_construct %[[S0]], %[[S1]]
// CHECK: %[[AT:.*]] = mlc_graph.sequence_at %[[SEQ]], %arg1
// CHECK: return %[[S1]], %[[TWO]], %[[AT]]
func.func @known_sequences(%x: tensor<2x2xf32>, %i: tensor<i64>)
    -> (tensor<2x1xf32>, tensor<i64>, tensor<2x1xf32>) {
  %one = mlc_graph.constant dense<1> : tensor<i64>
  %seq = mlc_graph.split_to_sequence %x {axis = 1 : i64} : (tensor<2x2xf32>) -> !mlc_graph.sequence<tensor<2x1xf32>>
  %0 = mlc_graph.sequence_at %seq, %one : (!mlc_graph.sequence<tensor<2x1xf32>>, tensor<i64>) -> tensor<2x1xf32>
  %1 = mlc_graph.sequence_length %seq : (!mlc_graph.sequence<tensor<2x1xf32>>) -> tensor<i64>
  %2 = mlc_graph.sequence_at %seq, %i : (!mlc_graph.sequence<tensor<2x1xf32>>, tensor<i64>) -> tensor<2x1xf32>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<i64>, tensor<2x1xf32>
}

// -----

// An empty sequence grows by insertion (and the concat of its one element
// is that element); an optional of a value folds.
// CHECK-LABEL: func @empty_and_optional
// CHECK-DAG: %[[TRUE:.*]] = mlc_graph.constant dense<true> : tensor<i1>
// CHECK-DAG: %[[FALSE:.*]] = mlc_graph.constant dense<false> : tensor<i1>
// CHECK: return %arg0, %arg0, %[[TRUE]], %[[FALSE]]
func.func @empty_and_optional(%x: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<i1>, tensor<i1>) {
  %e = mlc_graph.sequence_empty : !mlc_graph.sequence<tensor<*xf32>>
  %s = mlc_graph.sequence_insert %e, %x : (!mlc_graph.sequence<tensor<*xf32>>, tensor<3xf32>) -> !mlc_graph.sequence<tensor<3xf32>>
  %c = mlc_graph.concat_from_sequence %s {axis = 0 : i64} : (!mlc_graph.sequence<tensor<3xf32>>) -> tensor<3xf32>
  %o = mlc_graph.optional %x : tensor<3xf32> : !mlc_graph.optional<tensor<3xf32>>
  %v = mlc_graph.optional_get_element %o : (!mlc_graph.optional<tensor<3xf32>>) -> tensor<3xf32>
  %h = mlc_graph.optional_has_element %o : (!mlc_graph.optional<tensor<3xf32>>) -> tensor<i1>
  %n = mlc_graph.optional : !mlc_graph.optional<tensor<3xf32>>
  %g = mlc_graph.optional_has_element %n : (!mlc_graph.optional<tensor<3xf32>>) -> tensor<i1>
  return %c, %v, %h, %g : tensor<3xf32>, tensor<3xf32>, tensor<i1>, tensor<i1>
}
