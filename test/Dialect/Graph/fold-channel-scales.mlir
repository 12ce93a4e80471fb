// RUN: mlc-opt %s -mlc-graph-fold-channel-scales -split-input-file | FileCheck %s

// A squeeze-and-excitation scale before a 1x1 convolution: the 24 x 144
// weights are scaled instead of the 144 x 56 x 56 activation.
// CHECK-LABEL: func @excitation
// CHECK-SAME: (%[[X:.*]]: tensor<1x144x56x56xf32>, %[[S:.*]]: tensor<1x144x1x1xf32>, %[[W:.*]]: tensor<24x144x1x1xf32>, %[[B:.*]]: tensor<24xf32>)
// CHECK: %[[WS:.*]] = mlc_graph.mul %[[W]], %[[S]] : (tensor<24x144x1x1xf32>, tensor<1x144x1x1xf32>) -> tensor<24x144x1x1xf32>
// CHECK: mlc_graph.conv %[[X]], %[[WS]], %[[B]]
// CHECK-NOT: mlc_graph.mul
func.func @excitation(%x: tensor<1x144x56x56xf32>, %s: tensor<1x144x1x1xf32>,
                      %w: tensor<24x144x1x1xf32>, %b: tensor<24xf32>)
    -> tensor<1x24x56x56xf32> {
  %y = mlc_graph.mul %s, %x : (tensor<1x144x1x1xf32>, tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %z = mlc_graph.conv %y, %w, %b {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>, tensor<24xf32>) -> tensor<1x24x56x56xf32>
  return %z : tensor<1x24x56x56xf32>
}

// -----

// A padded 3x3 convolution takes the scale too (padding stays zero).
// CHECK-LABEL: func @window
// CHECK: %[[WS:.*]] = mlc_graph.mul %{{.*}}, %{{.*}} : (tensor<8x16x3x3xf32>, tensor<1x16x1x1xf32>) -> tensor<8x16x3x3xf32>
// CHECK: mlc_graph.conv %arg0, %[[WS]] {pads = array<i64: 1, 1, 1, 1>}
func.func @window(%x: tensor<1x16x28x28xf32>, %s: tensor<1x16x1x1xf32>,
                  %w: tensor<8x16x3x3xf32>) -> tensor<1x8x28x28xf32> {
  %y = mlc_graph.mul %x, %s : (tensor<1x16x28x28xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x28x28xf32>
  %z = mlc_graph.conv %y, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x28x28xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x28x28xf32>
  return %z : tensor<1x8x28x28xf32>
}

// -----

// Left alone: weights larger than the activation (a 7x7 map into 320
// channels), a scale per image (batch 2), a product with another user,
// and a grouped convolution.
// CHECK-LABEL: func @kept
// CHECK-COUNT-4: mlc_graph.mul %arg
func.func @kept(%x: tensor<1x64x7x7xf32>, %s: tensor<1x64x1x1xf32>,
                %w: tensor<320x64x1x1xf32>, %x2: tensor<2x64x28x28xf32>,
                %s2: tensor<2x64x1x1xf32>, %w2: tensor<8x64x1x1xf32>,
                %wg: tensor<8x32x1x1xf32>)
    -> (tensor<1x320x7x7xf32>, tensor<2x8x28x28xf32>, tensor<2x8x28x28xf32>,
        tensor<2x64x28x28xf32>, tensor<2x8x28x28xf32>) {
  %y = mlc_graph.mul %x, %s : (tensor<1x64x7x7xf32>, tensor<1x64x1x1xf32>) -> tensor<1x64x7x7xf32>
  %z = mlc_graph.conv %y, %w : (tensor<1x64x7x7xf32>, tensor<320x64x1x1xf32>) -> tensor<1x320x7x7xf32>
  %y2 = mlc_graph.mul %x2, %s2 : (tensor<2x64x28x28xf32>, tensor<2x64x1x1xf32>) -> tensor<2x64x28x28xf32>
  %z2 = mlc_graph.conv %y2, %w2 : (tensor<2x64x28x28xf32>, tensor<8x64x1x1xf32>) -> tensor<2x8x28x28xf32>
  %s3 = mlc_graph.relu %s : (tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32>
  %y3 = mlc_graph.mul %x2, %s3 : (tensor<2x64x28x28xf32>, tensor<1x64x1x1xf32>) -> tensor<2x64x28x28xf32>
  %z3 = mlc_graph.conv %y3, %w2 : (tensor<2x64x28x28xf32>, tensor<8x64x1x1xf32>) -> tensor<2x8x28x28xf32>
  %y4 = mlc_graph.mul %x2, %s : (tensor<2x64x28x28xf32>, tensor<1x64x1x1xf32>) -> tensor<2x64x28x28xf32>
  %z4 = mlc_graph.conv %y4, %wg {group = 2 : i64} : (tensor<2x64x28x28xf32>, tensor<8x32x1x1xf32>) -> tensor<2x8x28x28xf32>
  return %z, %z2, %z3, %y3, %z4 : tensor<1x320x7x7xf32>, tensor<2x8x28x28xf32>, tensor<2x8x28x28xf32>, tensor<2x64x28x28xf32>, tensor<2x8x28x28xf32>
}
