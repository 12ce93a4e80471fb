// RUN: mlc-opt %s --split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// A batched matmul on dims known at run time: the batch dims are checked
// to agree (the depth is static on both sides), both operands cut to the
// checked size (0 when they do not), and the product is one contraction
// generic over sizes read at run time, as a static one is.
// CHECK-LABEL: func.func @batch_matmul
// CHECK: cf.assert %{{.*}}, "MatMul node '?': the operands' dims known only at run time do not agree
// CHECK: tensor.extract_slice %{{.*}} : tensor<?x4x?x8xf32> to tensor<?x4x?x8xf32>
// CHECK: tensor.extract_slice %{{.*}} : tensor<?x4x8x?xf32> to tensor<?x4x8x?xf32>
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) outs(%{{.*}} : tensor<?x4x?x?xf32>)
// CHECK-NOT: scf.for
func.func @batch_matmul(%a: tensor<?x4x?x8xf32>, %b: tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = mlc_graph.matmul %a, %b : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Rows of a run-time count times a weight: nothing to check or cut; the
// rows of every batch are one linalg.matmul against the weight as it is
// (which the target packs), between reshapes.
// CHECK-LABEL: func.func @rows_times_weight
// CHECK-NOT: cf.assert
// CHECK-NOT: tensor.extract_slice
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x?x8xf32> into tensor<?x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, %{{.*}}, 16] : tensor<?x16xf32> into tensor<1x?x16xf32>
func.func @rows_times_weight(%a: tensor<1x?x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x?x16xf32> {
  %0 = mlc_graph.matmul %a, %w : (tensor<1x?x8xf32>, tensor<8x16xf32>) -> tensor<1x?x16xf32>
  return %0 : tensor<1x?x16xf32>
}

// -----

// Rows whose depth is known only at run time (an export's reshape(b, s,
// -1)) times a weight: the depth is checked against the weight's, the
// weight stays whole (for the target to pack) and the rows are cut to the
// static depth, and to none where the check fails.
// CHECK-LABEL: func.func @run_time_depth
// CHECK: %[[OK:.*]] = arith.cmpi eq, %{{.*}}, %c8
// CHECK: cf.assert %[[OK]]
// CHECK: %[[ROWS:.*]] = arith.select %[[OK]], %dim, %c0
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[0, 0] [%[[ROWS]], 8] [1, 1] : tensor<?x?xf32> to tensor<?x8xf32>
// CHECK-NOT: tensor.extract_slice %arg1
// CHECK: linalg.matmul ins(%[[A]], %arg1 : tensor<?x8xf32>, tensor<8x16xf32>)
func.func @run_time_depth(%a: tensor<?x?xf32>, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %0 = mlc_graph.matmul %a, %w : (tensor<?x?xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Shape reads the dims; Unsqueeze reshapes to dims computed from them;
// Transpose and Softmax take their sizes from the input.
// CHECK-LABEL: func.func @shape_and_layout
// CHECK: tensor.dim
// CHECK: tensor.from_elements %{{.*}} : tensor<3xi64>
// CHECK: tensor.reshape
// CHECK: linalg.transpose
// CHECK: linalg.generic
func.func @shape_and_layout(%x: tensor<?x?x8xf32>) -> (tensor<3xi64>, tensor<?x1x?x8xf32>, tensor<8x?x?xf32>, tensor<?x?x8xf32>) {
  %0 = mlc_graph.shape %x : (tensor<?x?x8xf32>) -> tensor<3xi64>
  %1 = mlc_graph.unsqueeze %x {axes = array<i64: 1>} : (tensor<?x?x8xf32>) -> tensor<?x1x?x8xf32>
  %2 = mlc_graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x?x8xf32>) -> tensor<8x?x?xf32>
  %3 = mlc_graph.softmax %x {axis = -1 : i64} : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %0, %1, %2, %3 : tensor<3xi64>, tensor<?x1x?x8xf32>, tensor<8x?x?xf32>, tensor<?x?x8xf32>
}

// -----

// A mean over a dim known at run time divides by its size.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: tensor.dim
// CHECK: arith.uitofp
// CHECK: arith.divf
func.func @reduce_mean(%x: tensor<2x?xf32>) -> tensor<2x1xf32> {
  %0 = mlc_graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
