// RUN: mlc-opt %s --split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// A batched matmul on dims known at run time: the contraction and batch
// dims are checked to agree, both operands cut to the checked sizes (0 when
// they do not); loops over the batch dims, blocks of 64 rows and of 64
// columns (the static depth 8 whole) run static matmuls on blocks
// zero-padded to those sizes, in scratch tensors carried through the loops
// (buffers of the arena, not of each iteration).
// CHECK-LABEL: func.func @batch_matmul
// CHECK: cf.assert %{{.*}}, "MatMul node '?': the operands' dims known only at run time do not agree
// CHECK: tensor.extract_slice %{{.*}} : tensor<?x4x?x8xf32> to tensor<?x4x?x8xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for {{.*}} step %c64
// CHECK: scf.for {{.*}} step %c64
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [%{{.*}}, 8] [1, 1] : tensor<?x8xf32> into tensor<64x8xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [8, %{{.*}}] [1, 1] : tensor<8x?xf32> into tensor<8x64xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: tensor.insert_slice
func.func @batch_matmul(%a: tensor<?x4x?x8xf32>, %b: tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = mlc_graph.matmul %a, %b : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Rows of a run-time count times a weight: nothing to check; the weight's
// columns are one block, and it is read without a copy.
// CHECK-LABEL: func.func @rows_times_weight
// CHECK-NOT: cf.assert
// CHECK: scf.for {{.*}} step %c64
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [%{{.*}}, 8] [1, 1] : tensor<?x8xf32> into tensor<64x8xf32>
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
// The rows after the last whole block of 64, in blocks of 16.
// CHECK: scf.for {{.*}} step %c16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<16x16xf32>)
func.func @rows_times_weight(%a: tensor<1x?x8xf32>, %w: tensor<8x16xf32>) -> tensor<1x?x16xf32> {
  %0 = mlc_graph.matmul %a, %w : (tensor<1x?x8xf32>, tensor<8x16xf32>) -> tensor<1x?x16xf32>
  return %0 : tensor<1x?x16xf32>
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
