// RUN: mlc-opt %s --split-input-file --mlc-graph-separate-batch --verify-diagnostics | FileCheck %s
// RUN: mlc-opt %s --split-input-file --mlc-graph-separate-batch="strict=false" | FileCheck %s --check-prefix=LENIENT

// A batch that only elementwise ops, a contraction over other dims and a
// reshape computed from the input's shape touch: pinned to 1, recorded.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%arg0: tensor<1x4x8xf32> {mlc_graph.batched, mlc_graph.dim_names = ["batch", "", ""]}) -> (tensor<1x32xf32> {mlc_graph.batched})
// CHECK-SAME: attributes {mlc_graph.batch_symbol = "batch"}
// CHECK: mlc_graph.matmul %arg0, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
// CHECK: mlc_graph.reshape %{{.*}} : (tensor<1x4x8xf32>, tensor<2xi64>) -> tensor<1x32xf32>
func.func @mlp(%x: tensor<?x4x8xf32> {mlc_graph.dim_names = ["batch", "", ""]}) -> tensor<?x?xf32> {
  %w = mlc_graph.constant dense<1.0> : tensor<8x8xf32>
  %0 = mlc_graph.matmul %x, %w : (tensor<?x4x8xf32>, tensor<8x8xf32>) -> tensor<?x4x8xf32>
  %1 = mlc_graph.relu %0 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %s = mlc_graph.shape %x : (tensor<?x4x8xf32>) -> tensor<3xi64>
  %i = mlc_graph.constant dense<0> : tensor<1xi64>
  %n = mlc_graph.gather %s, %i : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %m = mlc_graph.constant dense<-1> : tensor<1xi64>
  %shape = mlc_graph.concat %n, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %2 = mlc_graph.reshape %1, %shape : (tensor<?x4x8xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// Rows of [N*4, 8] after a reshape keep each sample's block contiguous.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: -> (tensor<1x4x8xf32> {mlc_graph.batched})
func.func @rows(%x: tensor<?x4x8xf32> {mlc_graph.dim_names = ["N", "", ""]}) -> tensor<?x4x8xf32> {
  %r = mlc_graph.constant dense<[-1, 8]> : tensor<2xi64>
  %0 = mlc_graph.reshape %x, %r : (tensor<?x4x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  %1 = mlc_graph.softmax %0 {axis = 1 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %s = mlc_graph.shape %x : (tensor<?x4x8xf32>) -> tensor<3xi64>
  %2 = mlc_graph.reshape %1, %s : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x8xf32>
  return %2 : tensor<?x4x8xf32>
}

// -----

// expected-error @+5 {{symbolic dim 'N' (dim 0 of input '?') cannot stay symbolic: (mlc_graph.reduce_sum): its result does not keep the batch (it reduces or contracts over it). mlc compiles a symbolic batch once when no op mixes its samples; pin it with --dim N=N}}
// LENIENT-LABEL: func.func @sum
// LENIENT-SAME: (%arg0: tensor<?x8xf32>
// LENIENT-NOT: batch_symbol
func.func @sum(%x: tensor<?x8xf32> {mlc_graph.dim_names = ["N", ""]}) -> tensor<1x8xf32> {
  %0 = mlc_graph.reduce_sum %x {axes = array<i64: 0>} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// LENIENT-LABEL: func.func @softmax
func.func @softmax(%x: tensor<?x8xf32> {mlc_graph.dim_names = ["N", ""]}) -> tensor<?x8xf32> {
  // expected-error @+1 {{(mlc_graph.softmax): it normalizes along the batch}}
  %0 = mlc_graph.softmax %x {axis = 0 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @concat(%x: tensor<?x8xf32> {mlc_graph.dim_names = ["N", ""]}) -> tensor<?x8xf32> {
  // expected-error @+1 {{(mlc_graph.concat): it concatenates along the batch}}
  %0 = mlc_graph.concat %x, %x {axis = 0 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Transposed, the batch is dim 1; merged into rows it interleaves samples:
// row-wise ops keep that, an output may not.
func.func @interleave(%x: tensor<?x2x4xf32> {mlc_graph.dim_names = ["N", "", ""]}) -> tensor<?x4xf32> {
  %t = mlc_graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x2x4xf32>) -> tensor<2x?x4xf32>
  %r = mlc_graph.constant dense<[-1, 4]> : tensor<2xi64>
  %0 = mlc_graph.reshape %t, %r : (tensor<2x?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %1 = mlc_graph.relu %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-error @+1 {{(func.return): output 0 interleaves the samples in dim 0}}
  return %1 : tensor<?x4xf32>
}

// -----

// Sequence-first attention as nn.MultiheadAttention exports it: [S, N, E]
// to rows [S*N, E], a projection, and back; the samples stay apart.
// CHECK-LABEL: func.func @sequence_first
// CHECK-SAME: attributes {mlc_graph.batch_symbol = "N"}
func.func @sequence_first(%x: tensor<?x3x4xf32> {mlc_graph.dim_names = ["N", "", ""]}) -> tensor<?x3x4xf32> {
  %t = mlc_graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x3x4xf32>) -> tensor<3x?x4xf32>
  %r = mlc_graph.constant dense<[-1, 4]> : tensor<2xi64>
  %rows = mlc_graph.reshape %t, %r : (tensor<3x?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %w = mlc_graph.constant dense<1.0> : tensor<4x4xf32>
  %p = mlc_graph.matmul %rows, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %s = mlc_graph.constant dense<[3, -1, 4]> : tensor<3xi64>
  %back = mlc_graph.reshape %p, %s : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<3x?x4xf32>
  %y = mlc_graph.transpose %back {perm = array<i64: 1, 0, 2>} : (tensor<3x?x4xf32>) -> tensor<?x3x4xf32>
  return %y : tensor<?x3x4xf32>
}

// -----

// Rows of samples interleaved, then a reshape that splits them differently.
func.func @regroup(%x: tensor<?x2x4xf32> {mlc_graph.dim_names = ["N", "", ""]}) -> tensor<?x8xf32> {
  %t = mlc_graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x2x4xf32>) -> tensor<2x?x4xf32>
  %r = mlc_graph.constant dense<[-1, 8]> : tensor<2xi64>
  // expected-error @+1 {{(mlc_graph.reshape): the reshape moves elements across samples}}
  %0 = mlc_graph.reshape %t, %r : (tensor<2x?x4xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Samples side by side along dim 1 are apart, but an output must carry the
// batch on dim 0.
func.func @columns(%x: tensor<?x2x4xf32> {mlc_graph.dim_names = ["N", "", ""]}) -> tensor<2x?xf32> {
  %t = mlc_graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x2x4xf32>) -> tensor<2x?x4xf32>
  %r = mlc_graph.constant dense<[2, -1]> : tensor<2xi64>
  %0 = mlc_graph.reshape %t, %r : (tensor<2x?x4xf32>, tensor<2xi64>) -> tensor<2x?xf32>
  // expected-error @+1 {{(func.return): output 0 carries the batch on dim 1, not dim 0}}
  return %0 : tensor<2x?xf32>
}

// -----

// The batch size used as data (a position index over the batch).
func.func @range(%x: tensor<?xi64> {mlc_graph.dim_names = ["N"]}) -> tensor<?xi64> {
  %s = mlc_graph.shape %x : (tensor<?xi64>) -> tensor<1xi64>
  %z = mlc_graph.constant dense<0> : tensor<i64>
  %o = mlc_graph.constant dense<1> : tensor<i64>
  %q = mlc_graph.squeeze %s {axes = array<i64: 0>} : (tensor<1xi64>) -> tensor<i64>
  // expected-error @+1 {{(mlc_graph.constant): its values depend on the batch size}}
  %0 = mlc_graph.range %z, %q, %o : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %1 = mlc_graph.add %0, %x : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %1 : tensor<?xi64>
}

// -----

// Only dim 0 of the inputs may stay symbolic.
// expected-error @+1 {{input '?' has symbolic dim 1 ('seq'); mlc compiles one symbolic dim, the batch: dim 0 of the inputs, which no op may mix. Pin the others with --dim seq=N (or --shape)}}
func.func @sequence(%x: tensor<?x?xf32> {mlc_graph.dim_names = ["batch", "seq"]}) -> tensor<?x?xf32> {
  %0 = mlc_graph.relu %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A constant of the batch's shape is the same block for every sample.
// CHECK-LABEL: func.func @mask
// CHECK-SAME: attributes {mlc_graph.batch_symbol = "N"}
func.func @mask(%x: tensor<?x8xf32> {mlc_graph.dim_names = ["N", ""]}) -> tensor<?x8xf32> {
  %s = mlc_graph.shape %x : (tensor<?x8xf32>) -> tensor<2xi64>
  %m = mlc_graph.constant_of_shape %s {value = dense<2.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x8xf32>
  %0 = mlc_graph.mul %x, %m : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A dim of the model broadcast against the batch holds only at some batch
// sizes: the probe at a large prime size refuses it.
// expected-error @+1 {{symbolic dim 'N' cannot stay symbolic: the model does not shape-check at batch 1009 ('mlc_graph.expand' op shapes 7 and 1009 do not broadcast (dim 0: 7 vs 1009)); pin it with --dim N=N}}
func.func @broadcast_to_batch(%x: tensor<?xf32> {mlc_graph.dim_names = ["N"]}) -> tensor<?xf32> {
  %y = mlc_graph.constant dense<1.0> : tensor<7xf32>
  %s = mlc_graph.shape %x : (tensor<?xf32>) -> tensor<1xi64>
  %0 = mlc_graph.expand %y, %s : (tensor<7xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
