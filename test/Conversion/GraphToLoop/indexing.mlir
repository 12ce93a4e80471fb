// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// Trilu keeps j - i >= k (upper), with k read at run time.
// CHECK-LABEL: func @triu
// CHECK: %[[K:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: linalg.generic
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @triu(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %0 = mlc_graph.trilu %x k %k : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// GatherElements reads data at the (wrapped) index inside the generic.
// CHECK-LABEL: func @gather_elements
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2xi64>)
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %{{.*}} : tensor<2x3xf32>
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %0 = mlc_graph.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CumSum is a reduction over a second copy of the axis.
// CHECK-LABEL: func @cumsum
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpi ule
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %axis = mlc_graph.constant dense<1> : tensor<i64>
  %0 = mlc_graph.cum_sum %x, %axis : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// ScatterElements visits the updates in order.
// CHECK-LABEL: func @scatter
// CHECK: scf.for {{.*}} iter_args
// CHECK: tensor.insert
func.func @scatter(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = mlc_graph.scatter_elements %d, %i, %u : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// LogSoftmax becomes graph ops that lower in turn: max, exp, sum, log.
// CHECK-LABEL: func @log_softmax
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK-NOT: mlc_graph.
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = mlc_graph.log_softmax %x {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// ConvTranspose in gather form: bias broadcast into the accumulator, then a
// reduction over (c, kh, kw) that reads input and weight by index.
// CHECK-LABEL: func @conv_transpose
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.*}} : tensor<1x1x3x3xf32>
// CHECK: tensor.extract %{{.*}} : tensor<1x2x3x3xf32>
func.func @conv_transpose(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x7x7xf32> {
  %0 = mlc_graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

// GatherND reads each index tuple, then the element it names (clamped).
// CHECK-LABEL: func @gather_nd
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}} : tensor<2x2xi64>
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<2x2x3xf32>
func.func @gather_nd(%x: tensor<2x2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %0 = mlc_graph.gather_nd %x, %i : (tensor<2x2x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// ScatterND visits (tuple, slice element) pairs in order over a copy.
// CHECK-LABEL: func @scatter_nd_add
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C6]]
// CHECK: arith.addf
// CHECK: tensor.insert
func.func @scatter_nd_add(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = mlc_graph.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CumSum with the axis a graph input: a reduction over the longest dim
// whose body picks the axis at run time.
// CHECK-LABEL: func @cumsum_runtime_axis
// CHECK: tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<3xf32>)
// CHECK: arith.minui
// CHECK: tensor.extract %{{.*}} : tensor<2x3xf32>
func.func @cumsum_runtime_axis(%x: tensor<2x3xf32>, %axis: tensor<i64>) -> tensor<2x3xf32> {
  %0 = mlc_graph.cum_sum %x, %axis : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// ReverseSequence reads each entry's steps backwards up to its length.
// CHECK-LABEL: func @reverse_sequence
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4xi64>)
// CHECK: arith.minsi
// CHECK: arith.select
// CHECK: tensor.extract %{{.*}} : tensor<3x4x2xf32>
func.func @reverse_sequence(%x: tensor<3x4x2xf32>, %l: tensor<4xi64>) -> tensor<3x4x2xf32> {
  %0 = mlc_graph.reverse_sequence %x, %l : (tensor<3x4x2xf32>, tensor<4xi64>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

// A negative step walks its axis backwards (starts clamp to dim - 1): a
// copy whose input map counts down, as x[:, ::-1] and a reflection pad's
// reversed edge are exported.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 9)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @slice_reverse
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}} : tensor<2x10xf32>) outs(%{{.*}} : tensor<2x10xf32>)
func.func @slice_reverse(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %start = mlc_graph.constant dense<100> : tensor<1xi64>
  %end = mlc_graph.constant dense<-9223372036854775807> : tensor<1xi64>
  %axis = mlc_graph.constant dense<1> : tensor<1xi64>
  %step = mlc_graph.constant dense<-1> : tensor<1xi64>
  %0 = mlc_graph.slice %x, %start, %end axes %axis steps %step : (tensor<2x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}
