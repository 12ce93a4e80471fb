// RUN: mlc-opt %s -mlc-graph-infer-shapes -split-input-file -verify-diagnostics | FileCheck %s

// Static input shapes reach every op and the function's results.
// CHECK-LABEL: func @cnn_head
// CHECK-SAME: -> tensor<1x10xf32>
// CHECK: mlc_graph.conv {{.*}} -> tensor<1x8x16x16xf32>
// CHECK: mlc_graph.relu {{.*}} -> tensor<1x8x16x16xf32>
// CHECK: mlc_graph.max_pool {{.*}} -> tensor<1x8x8x8xf32>
// CHECK: mlc_graph.global_average_pool {{.*}} -> tensor<1x8x1x1xf32>
// CHECK: mlc_graph.flatten {{.*}} -> tensor<1x8xf32>
// CHECK: mlc_graph.gemm {{.*}} -> tensor<1x10xf32>
// CHECK: mlc_graph.softmax {{.*}} -> tensor<1x10xf32>
// CHECK: return {{.*}} : tensor<1x10xf32>
func.func @cnn_head(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>,
                    %fc: tensor<10x8xf32>, %b: tensor<10xf32>) -> tensor<*xf32> {
  %0 = mlc_graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<*xf32>
  %1 = mlc_graph.relu %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = mlc_graph.max_pool %1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> tensor<*xf32>
  %3 = mlc_graph.global_average_pool %2 : (tensor<*xf32>) -> tensor<*xf32>
  %4 = mlc_graph.flatten %3 : (tensor<*xf32>) -> tensor<?x?xf32>
  %5 = mlc_graph.gemm %4, %fc, %b {trans_b = true} : (tensor<?x?xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<?x?xf32>
  %6 = mlc_graph.softmax %5 : (tensor<?x?xf32>) -> tensor<*xf32>
  return %6 : tensor<*xf32>
}

// -----

// A reshape whose shape comes from Shape/Gather-free constants becomes
// static; a dynamic batch stays dynamic.
// CHECK-LABEL: func @attention_reshape
// CHECK: mlc_graph.reshape {{.*}} -> tensor<?x128x12x64xf32>
// CHECK: mlc_graph.transpose {{.*}} -> tensor<?x12x128x64xf32>
// CHECK: mlc_graph.matmul {{.*}} -> tensor<?x12x128x128xf32>
func.func @attention_reshape(%x: tensor<?x128x768xf32>) -> tensor<*xf32> {
  %s = mlc_graph.constant dense<[0, 0, 12, 64]> : tensor<4xi64>
  %0 = mlc_graph.reshape %x, %s : (tensor<?x128x768xf32>, tensor<4xi64>) -> tensor<*xf32>
  %1 = mlc_graph.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<*xf32>) -> tensor<*xf32>
  %2 = mlc_graph.transpose %1 {perm = array<i64: 0, 1, 3, 2>} : (tensor<*xf32>) -> tensor<*xf32>
  %3 = mlc_graph.matmul %1, %2 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %3 : tensor<*xf32>
}

// -----

// A target computed from the input's own Shape, as exporters write it
// ([batch, seq, 12, 768 / 12] from Gather, Div, Unsqueeze and Concat): the
// elements known at compile time give static dims, the others dims known
// at run time. The head dims stay static for the attention's matmuls.
// CHECK-LABEL: func @reshape_from_shape
// CHECK: mlc_graph.reshape {{.*}} -> tensor<?x?x12x64xf32>
// CHECK: mlc_graph.slice {{.*}} -> tensor<?x?x12x1xf32>
// A target whose run-time elements come from data: only its length is
// known.
// CHECK: mlc_graph.reshape {{.*}} -> tensor<?x?xf32>
func.func @reshape_from_shape(%x: tensor<?x?x768xf32>, %n: tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %i0 = mlc_graph.constant dense<0> : tensor<i64>
  %i1 = mlc_graph.constant dense<1> : tensor<i64>
  %i2 = mlc_graph.constant dense<2> : tensor<i64>
  %heads = mlc_graph.constant dense<12> : tensor<i64>
  %heads1 = mlc_graph.constant dense<12> : tensor<1xi64>
  %shape = mlc_graph.shape %x : (tensor<?x?x768xf32>) -> tensor<3xi64>
  %b = mlc_graph.gather %shape, %i0 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %s = mlc_graph.gather %shape, %i1 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %c = mlc_graph.gather %shape, %i2 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d = mlc_graph.div %c, %heads : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %b1 = mlc_graph.unsqueeze %b {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %s1 = mlc_graph.unsqueeze %s {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %d1 = mlc_graph.unsqueeze %d {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %target = mlc_graph.concat %b1, %s1, %heads1, %d1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %0 = mlc_graph.reshape %x, %target : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<*xf32>
  %starts = mlc_graph.constant dense<[0]> : tensor<1xi64>
  %ends = mlc_graph.constant dense<[1]> : tensor<1xi64>
  %axes = mlc_graph.constant dense<[3]> : tensor<1xi64>
  %1 = mlc_graph.slice %0, %starts, %ends axes %axes : (tensor<*xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  %2 = mlc_graph.reshape %1, %n : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %1, %2 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Slicing with constant bounds (negative start, clamped end, step 2).
// CHECK-LABEL: func @slice
// CHECK: mlc_graph.slice {{.*}} -> tensor<2x3x5xf32>
func.func @slice(%x: tensor<2x7x10xf32>) -> tensor<*xf32> {
  %starts = mlc_graph.constant dense<[-6, 1]> : tensor<2xi64>
  %ends = mlc_graph.constant dense<[9223372036854775807, 100]> : tensor<2xi64>
  %axes = mlc_graph.constant dense<[1, 2]> : tensor<2xi64>
  %steps = mlc_graph.constant dense<[2, 2]> : tensor<2xi64>
  %0 = mlc_graph.slice %x, %starts, %ends axes %axes steps %steps : (tensor<2x7x10xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A declared static dim that contradicts what refinement finds upstream
// is reported (the IR verified before the pass: ? was compatible with 5).
func.func @conflict(%x: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = mlc_graph.relu %x : (tensor<3x4xf32>) -> tensor<?x4xf32>
  // expected-error @+1 {{result type 'tensor<5x4xf32>' conflicts with the inferred type 'tensor<3x4xf32>'}}
  %1 = mlc_graph.relu %0 : (tensor<?x4xf32>) -> tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// An If whose condition becomes constant once shapes are known (exporters
// test a rank at run time) is replaced by the branch it takes, even when
// the other branch yields another rank; what follows becomes static.
// CHECK-LABEL: func @if_on_rank
// CHECK-SAME: -> tensor<1x4x8xf32>
// CHECK-NOT: mlc_graph.if
// CHECK: mlc_graph.unsqueeze {{.*}} -> tensor<1x4x8xf32>
// CHECK-NOT: mlc_graph.if
// CHECK: mlc_graph.relu {{.*}} -> tensor<1x4x8xf32>
func.func @if_on_rank(%x: tensor<4x8xf32>) -> tensor<*xf32> {
  %two = mlc_graph.constant dense<2> : tensor<1xi64>
  %s = mlc_graph.shape %x : (tensor<4x8xf32>) -> tensor<?xi64>
  %r = mlc_graph.shape %s : (tensor<?xi64>) -> tensor<1xi64>
  %c = mlc_graph.equal %r, %two : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  %0 = mlc_graph.if %c {
    %u = mlc_graph.unsqueeze %x {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<*xf32>
    mlc_graph.yield %u : tensor<*xf32>
  } else {
    mlc_graph.yield %x : tensor<4x8xf32>
  } : (tensor<1xi1>) -> tensor<*xf32>
  %1 = mlc_graph.relu %0 : (tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// An If on a run-time condition stays; its results take the dims both
// branches agree on.
// CHECK-LABEL: func @if_runtime
// CHECK-SAME: -> tensor<2x?xf32>
// CHECK: mlc_graph.if
// CHECK: } : (tensor<i1>) -> tensor<2x?xf32>
func.func @if_runtime(%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<*xf32> {
  %0 = mlc_graph.if %c {
    %r = mlc_graph.relu %a : (tensor<2x3xf32>) -> tensor<*xf32>
    mlc_graph.yield %r : tensor<*xf32>
  } else {
    mlc_graph.yield %b : tensor<2x5xf32>
  } : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Axes computed at run time leave only what does not depend on them: the
// rank from how many axes there are (or kept dims), and kept size-1 dims.
// Constant operands give the full shape.
// CHECK-LABEL: func @run_time_axes
// CHECK: mlc_graph.squeeze {{.*}} -> tensor<?x?xf32>
// CHECK: mlc_graph.unsqueeze {{.*}} -> tensor<?x?x?x?x?xf32>
// CHECK: mlc_graph.reduce_sum {{.*}} -> tensor<1x?x?xf32>
// CHECK: mlc_graph.reduce_max {{.*}} {keepdims = false} {{.*}} -> tensor<?xf32>
// CHECK: mlc_graph.unsqueeze {{.*}} -> tensor<?x?x?x?xf32>
// CHECK: mlc_graph.reduce_mean {{.*}} -> tensor<1x3x1xf32>
// CHECK: mlc_graph.unsqueeze {{.*}} -> tensor<1x3x4x1xf32>
func.func @run_time_axes(%x: tensor<1x3x4xf32>, %axes: tensor<1xi64>,
                         %two: tensor<2xi64>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>,
        tensor<*xf32>, tensor<*xf32>) {
  %c = mlc_graph.constant dense<[-1]> : tensor<1xi64>
  %0 = mlc_graph.squeeze %x axes %axes : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  %1 = mlc_graph.unsqueeze %x axes %two : (tensor<1x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  %2 = mlc_graph.reduce_sum %x axes %axes : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  %3 = mlc_graph.reduce_max %x axes %two {keepdims = false} : (tensor<1x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  %4 = mlc_graph.unsqueeze %0 axes %two : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  %5 = mlc_graph.reduce_mean %x axes %c : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  %6 = mlc_graph.unsqueeze %x axes %c : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0, %1, %2, %3, %5, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
