// RUN: mlc-opt %s --split-input-file -mlc-convert-graph-to-loop --verify-diagnostics | FileCheck %s

// Scales known only at run time: the output dims are computed and checked
// when the model runs, then one generic per axis, the innermost first.
// CHECK-LABEL: func.func @runtime_scales
// CHECK: math.floor
// CHECK: cf.assert %{{.*}}, "Resize node '?': its scales must be positive and its sizes not negative, for an output of at most 4 GiB"
// CHECK-COUNT-4: linalg.generic
// CHECK: tensor.cast %{{.*}} : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
func.func @runtime_scales(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  %0 = "mlc_graph.resize"(%x, %s) <{mode = "nearest", operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Opset 18's antialiasing filter needs its taps counted at compile time.
func.func @runtime_antialias(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @+1 {{'mlc_graph.resize' (1 in this function) has no lowering to the loop level}}
  %0 = "mlc_graph.resize"(%x, %s) <{mode = "linear", antialias = true, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
