// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// A Range on run-time values: its length is computed when the model runs;
// a step of 0 or a length past the size limit fails a run-time check and
// gives an empty result.
// CHECK-LABEL: func @range
// CHECK: %[[STEPS:.*]] = arith.ceildivsi
// CHECK: %[[POS:.*]] = arith.maxsi %[[STEPS]], %c0_i64
// CHECK: %[[LEN:.*]] = arith.select %{{.*}}, %c0_i64{{.*}}, %[[POS]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: cf.assert %[[OK]], "Range node 'range_0': the step is 0 or not a number, or the result would hold more than 1073741824 elements"
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[LEN]], %c0_i64
// CHECK: %[[N:.*]] = arith.index_cast %[[SAFE]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xi32>)
// CHECK:   linalg.index 0
func.func @range(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>) -> tensor<?xi32> {
  %0 = mlc_graph.range %s, %l, %d : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32> loc("range_0")
  return %0 : tensor<?xi32>
}

// -----

// NonZero counts, then writes each non-zero element's coordinates in
// row-major order.
// CHECK-LABEL: func @nonzero
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %c0) -> (index)
// CHECK: %[[E:.*]] = tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]], %{{.*}} = %c0) -> (tensor<2x?xi64>, index)
// CHECK:   scf.if
// CHECK:     tensor.insert
// CHECK:     tensor.insert
func.func @nonzero(%x: tensor<2x3xf32>) -> tensor<2x?xi64> {
  %0 = mlc_graph.non_zero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// ConstantOfShape checks every dim (>= 0, fitting the size limit without
// overflow) and fills.
// CHECK-LABEL: func @constant_of_shape
// CHECK-COUNT-2: tensor.extract %arg0
// CHECK: cf.assert %{{.*}}, "ConstantOfShape node 'cos_0': a dim is negative
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.fill ins(%cst{{.*}} : f32) outs(%[[E]] : tensor<?x?xf32>)
func.func @constant_of_shape(%shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = mlc_graph.constant_of_shape %shape {value = dense<1.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32> loc("cos_0")
  return %0 : tensor<?x?xf32>
}

// -----

// Reshape to a shape read at run time: 0 copies the input dim, one -1 is
// inferred; the dims are checked and the data reinterpreted.
// CHECK-LABEL: func @reshape
// CHECK-COUNT-2: tensor.extract %arg1
// CHECK: cf.assert %{{.*}}, "Reshape node 'reshape_0': the shape does not fit the input's 24 elements
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xi64>
// CHECK: tensor.reshape %arg0(%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @reshape(%x: tensor<2x3x4xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = mlc_graph.reshape %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32> loc("reshape_0")
  return %0 : tensor<?x?xf32>
}
