// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// LSTM: the input projection of all steps is one contraction before the
// loop; each step is the recurrent contraction plus one gate generic that
// writes into the carried H, C and Y's slice for the step.
// CHECK-LABEL: func @lstm
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<4x2x3xf32> into tensor<8x3xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<8x20xf32>)
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-COUNT-2: math.tanh
// CHECK: tensor.insert_slice
// CHECK: scf.yield
func.func @lstm(%x: tensor<4x2x3xf32>, %w: tensor<1x20x3xf32>, %r: tensor<1x20x5xf32>) -> (tensor<4x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>) {
  %y, %h, %c = mlc_graph.lstm %x, %w, %r {hidden_size = 5 : i64} : (tensor<4x2x3xf32>, tensor<1x20x3xf32>, tensor<1x20x5xf32>) -> (tensor<4x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>)
  return %y, %h, %c : tensor<4x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>
}

// -----

// A reverse pass counts its steps down from seq - 1.
// CHECK-LABEL: func @rnn_reverse
// CHECK: scf.for %[[STEP:[^ ]*]] =
// CHECK: %[[LAST:.*]] = arith.constant 3 : index
// CHECK: arith.subi %[[LAST]], %[[STEP]]
func.func @rnn_reverse(%x: tensor<4x2x3xf32>, %w: tensor<1x5x3xf32>, %r: tensor<1x5x5xf32>) -> (tensor<4x1x2x5xf32>, tensor<1x2x5xf32>) {
  %y, %h = mlc_graph.rnn %x, %w, %r {hidden_size = 5 : i64, direction = "reverse"} : (tensor<4x2x3xf32>, tensor<1x5x3xf32>, tensor<1x5x5xf32>) -> (tensor<4x1x2x5xf32>, tensor<1x2x5xf32>)
  return %y, %h : tensor<4x1x2x5xf32>, tensor<1x2x5xf32>
}
