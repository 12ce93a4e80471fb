// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{m-tile=4 k-tile=64 n-block=32 pack-blocks=true}))' | FileCheck %s

// A right-hand side computed at run time is copied into panels of 16
// columns once per cache block (32 columns: two panels) and the register
// tiles of every row block read the panels.
// CHECK-LABEL: func.func @run_time_rhs
// CHECK: scf.for %[[N:[[:alnum:]_]+]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[BLOCK:[[:alnum:]_]+]] = tensor.extract_slice %{{.*}}[0, %[[N]]] [128, 32] [1, 1] : tensor<128x64xf32> to tensor<128x32xf32>
// CHECK: %[[EMPTY:[[:alnum:]_]+]] = tensor.empty() : tensor<2x128x16xf32>
// CHECK: %[[PANELS:[[:alnum:]_]+]] = linalg.generic {{.*}} ins(%[[BLOCK]] : tensor<128x32xf32>) outs(%[[EMPTY]] : tensor<2x128x16xf32>)
// CHECK: scf.for %{{.*}} step %c4
// CHECK: scf.for %[[P:[[:alnum:]_]+]] = %{{.*}} to %c2 step %c1
// CHECK: scf.for %[[K:[[:alnum:]_]+]] = {{.*}} -> (vector<4x1x16xf32>)
// CHECK: vector.transfer_read %[[PANELS]][%[[P]], %[[K]], %c0]{{.*}} : tensor<2x128x16xf32>, vector<16xf32>
func.func @run_time_rhs(%a: tensor<24x128xf32>, %b: tensor<128x64xf32>) -> tensor<24x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<24x64xf32>) -> tensor<24x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x128xf32>, tensor<128x64xf32>) outs(%f : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %r : tensor<24x64xf32>
}

// -----

// A shallow reduction (32 < 64), or a single register tile of rows, reads
// the right-hand side in place.
// CHECK-LABEL: func.func @shallow
// CHECK-NOT: tensor<2x32x16xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<32x64xf32>, vector<16xf32>
func.func @shallow(%a: tensor<24x32xf32>, %b: tensor<32x64xf32>) -> tensor<24x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<24x64xf32>) -> tensor<24x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x32xf32>, tensor<32x64xf32>) outs(%f : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %r : tensor<24x64xf32>
}

// -----

// CHECK-LABEL: func.func @one_row_tile
// CHECK-NOT: tensor<2x128x16xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<128x64xf32>, vector<16xf32>
func.func @one_row_tile(%a: tensor<4x128xf32>, %b: tensor<128x64xf32>) -> tensor<4x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x128xf32>, tensor<128x64xf32>) outs(%f : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}
