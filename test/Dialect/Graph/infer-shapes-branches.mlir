// RUN: not mlc-opt %s -mlc-graph-infer-shapes -split-input-file 2>/dev/null | FileCheck %s
// RUN: not mlc-opt %s -mlc-graph-infer-shapes -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not mlc-opt %s -mlc-graph-infer-shapes -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEITHER
// (The last function has no branch that can run, so mlc-opt fails.)

// A branch of a run-time If that does not type-check at these shapes (an
// exporter's guard for another sample rate) becomes a check that fails if
// the branch is taken, yielding zeros of the other branch's types; the
// compile warns. The other branch and the If's result are refined as usual.
// WARN: warning: loc("If_7"): If node 'If_7': the else_branch taken cannot run at the shapes the model was compiled for: node 'Squeeze_9': 'mlc_graph.squeeze' op cannot squeeze dim 1 of size 2; the model reports this as an error if it is taken at run time
// CHECK-LABEL: func @if_branch_cannot_run
// CHECK-SAME: -> tensor<1x512xf32>
// CHECK: mlc_graph.if %{{.*}} {
// CHECK-NEXT: mlc_graph.relu %{{.*}} -> tensor<1x512xf32>
// CHECK: } else {
// CHECK-NEXT: %[[F:.*]] = arith.constant false
// CHECK-NEXT: cf.assert %[[F]], "If node 'If_7': the else_branch taken cannot run at the shapes the model was compiled for: node 'Squeeze_9': 'mlc_graph.squeeze' op cannot squeeze dim 1 of size 2"
// CHECK-NEXT: %[[Z:.*]] = mlc_graph.constant dense<0.000000e+00> : tensor<1x512xf32>
// CHECK-NEXT: mlc_graph.yield %[[Z]]
// CHECK-NEXT: } : (tensor<i1>) -> tensor<1x512xf32>
func.func @if_branch_cannot_run(%c: tensor<i1>, %x: tensor<1x512xf32>) -> tensor<*xf32> {
  %shape = mlc_graph.constant dense<[1, -1, 256]> : tensor<3xi64>
  %0 = mlc_graph.if %c {
    %r = mlc_graph.relu %x : (tensor<1x512xf32>) -> tensor<*xf32>
    mlc_graph.yield %r : tensor<*xf32>
  } else {
    %r = mlc_graph.reshape %x, %shape : (tensor<1x512xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    %s = mlc_graph.squeeze %r {axes = array<i64: 1>} : (tensor<?x?x?xf32>) -> tensor<*xf32> loc("Squeeze_9")
    mlc_graph.yield %s : tensor<*xf32>
  } : (tensor<i1>) -> tensor<*xf32> loc("If_7")
  return %0 : tensor<*xf32>
}

// -----

// When both branches fail, the If is an error.
// NEITHER: error: neither branch can run at these shapes: then_branch: node 'Squeeze_1': 'mlc_graph.squeeze' op cannot squeeze dim 1 of size 2; else_branch: node 'Squeeze_2': {{.*}}
func.func @if_no_branch_can_run(%c: tensor<i1>, %x: tensor<1x512xf32>) -> tensor<*xf32> {
  %shape = mlc_graph.constant dense<[1, -1, 256]> : tensor<3xi64>
  %0 = mlc_graph.if %c {
    %r = mlc_graph.reshape %x, %shape : (tensor<1x512xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    %s = mlc_graph.squeeze %r {axes = array<i64: 1>} : (tensor<?x?x?xf32>) -> tensor<*xf32> loc("Squeeze_1")
    mlc_graph.yield %s : tensor<*xf32>
  } else {
    %r = mlc_graph.reshape %x, %shape : (tensor<1x512xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    %s = mlc_graph.squeeze %r {axes = array<i64: 1>} : (tensor<?x?x?xf32>) -> tensor<*xf32> loc("Squeeze_2")
    mlc_graph.yield %s : tensor<*xf32>
  } : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

