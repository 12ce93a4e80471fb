// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-graph-test-perturb-node{node=act}))' | FileCheck %s

// The planted wrong lowering: 0.5 is added to the result of node 'act' and
// only to it; its users read the changed value.
// CHECK-LABEL: func.func @f
// CHECK: %[[R:.*]] = mlc_graph.relu %arg0
// CHECK: %[[D:.*]] = mlc_graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[A:.*]] = mlc_graph.add %[[R]], %[[D]]
// CHECK: mlc_graph.tanh %[[A]]
// CHECK-NOT: mlc_graph.add
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mlc_graph.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("act")
  %1 = mlc_graph.tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("squash")
  return %1 : tensor<2x3xf32>
}
