// RUN: mlc-opt %s -mlc-convert-graph-to-loop -split-input-file -verify-diagnostics | FileCheck %s

// Broadcasting lives in the indexing maps: a missing leading dim is dropped,
// a size-1 dim reads index 0.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<3x1xf32>, tensor<4xf32>) outs(%[[E]] : tensor<3x4xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = mlc_graph.add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @activations
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.erf
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @activations(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = mlc_graph.relu %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = mlc_graph.sigmoid %x : (tensor<8xf32>) -> tensor<8xf32>
  %2 = mlc_graph.gelu %x : (tensor<8xf32>) -> tensor<8xf32>
  %3 = mlc_graph.leaky_relu %x : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func @compare_select_int
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: arith.maxsi
func.func @compare_select_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %c = mlc_graph.less %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %0 = mlc_graph.where %c, %a, %b : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = mlc_graph.max %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Ops without a lowering yet are named, once each.
func.func @unsupported(%x: tensor<*xf32>, %y: tensor<3x4xf32>, %z: tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<3x4xf32>) {
  // expected-error @+1 {{'mlc_graph.relu' (1 in this function) has no lowering to the loop level for these types and shapes yet}}
  %0 = mlc_graph.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  // expected-error @+1 {{'mlc_graph.sigmoid' (2 in this function) has no lowering to the loop level for these types and shapes yet}}
  %1 = mlc_graph.sigmoid %x : (tensor<*xf32>) -> tensor<*xf32>
  %2 = mlc_graph.sigmoid %z : (tensor<*xf32>) -> tensor<*xf32>
  %3 = mlc_graph.relu %y : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<3x4xf32>
}

// -----

// Dims known only at run time: the result takes an operand's size there;
// operands that do not broadcast must agree, which a run-time check holds
// them to (a 1 against 5 is not broadcast: the check fails and the result
// is empty). A static 1 still broadcasts.
// CHECK-LABEL: func @dynamic
// CHECK-DAG: %[[A:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG: %[[B:.*]] = tensor.dim %arg1, %c0
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[A]], %[[B]]
// CHECK: cf.assert %{{.*}}, "node 'add_3' (add): operands' dims known only at run time differ
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %[[A]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[ID]]]
// CHECK: %[[M:.*]] = tensor.dim %[[SUM]], %c0
// CHECK: tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[BC:.*]], #[[ID]]]
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %c: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %0 = "mlc_graph.add"(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc("add_3")
  %1 = mlc_graph.add %0, %c : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// BitShift on unsigned integers: a logical shift, 0 past the bit width.
// CHECK-LABEL: func @bit_shift_right
// CHECK: arith.shrui
// CHECK: arith.cmpi uge
// CHECK: arith.select
func.func @bit_shift_right(%a: tensor<3xui8>, %b: tensor<3xui8>) -> tensor<3xui8> {
  %0 = mlc_graph.bit_shift %a, %b {left = false} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}
