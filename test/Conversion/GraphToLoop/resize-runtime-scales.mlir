// RUN: not mlc-opt %s -mlc-convert-graph-to-loop 2>&1 | FileCheck %s

// Scales known only at run time: no lowering, and a diagnostic naming the
// op instead of a crash.
// CHECK: error: 'mlc_graph.resize' (1 in this function) has no lowering to the loop level
func.func @runtime_scales(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  %0 = "mlc_graph.resize"(%x, %s) <{mode = "nearest", operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
