// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// Constant padding is a tensor.pad; a negative pad crops first.
// CHECK-LABEL: func @constant
// CHECK: %[[CROP:.*]] = tensor.extract_slice %arg0[0, 0, 0] [2, 3, 3] [1, 1, 1]
// CHECK: tensor.pad %[[CROP]] low[0, 1, 2] high[0, 2, 0]
func.func @constant(%x: tensor<2x3x4xf32>) -> tensor<2x6x5xf32> {
  %p = mlc_graph.constant dense<[0, 1, 2, 0, 2, -1]> : tensor<6xi64>
  %0 = mlc_graph.pad %x, %p : (tensor<2x3x4xf32>, tensor<6xi64>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// Reflect: one generic over the result reading the mirrored position of the
// padded axis; the other axes read through.
// CHECK-LABEL: func @reflect
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: arith.select
// CHECK: tensor.extract %arg0
func.func @reflect(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  %p = mlc_graph.constant dense<[0, 2, 0, 2]> : tensor<4xi64>
  %0 = mlc_graph.pad %x, %p {mode = #mlc_graph.pad_mode<reflect>} : (tensor<1x4xf32>, tensor<4xi64>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Tile reads input[i mod n] on the repeated axes.
// CHECK-LABEL: func @tile
// CHECK: linalg.generic
// CHECK: arith.remui
// CHECK: tensor.extract %arg0
func.func @tile(%x: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %r = mlc_graph.constant dense<[1, 3]> : tensor<2xi64>
  %0 = mlc_graph.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}
