// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=4},mlc-loop-pack-weights,mlc-cpu-tile-and-vectorize{m-tile=2 n-tile=4 k-tile=0 n-block=0 unpacked-tiles=3,2,0,0 vector-width=2 print-schedules=true}))' | FileCheck %s
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{unpacked-tiles=3,2}))' 2>&1 | FileCheck %s --check-prefix=BAD

// Weights packed into panels of 4 columns are read one 4-wide panel row per
// step of k: they keep the 2 x 4 register tiles the panels were made for.
// A right-hand side read in rows (here an argument: an activation) takes
// the unpacked tiles, 3 x 2.
// CHECK: "?" loops = [6, 2, 3, 4] {{.*}}vector_sizes = [2, 1, 1, 4]
// CHECK: "?" loops = [6, 8, 3] {{.*}}vector_sizes = [3, 2, 1]
// CHECK-LABEL: func.func @packed
// CHECK: iter_args(%{{.*}}) -> (vector<2x1x4xf32>)
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c3
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c2
// CHECK: vector.transfer_read %{{.*}} : tensor<3x8xf32>, vector<2xf32>
// BAD: unpacked-tiles takes four sizes (m, n, k, n-block)
func.func @packed(%a: tensor<6x3xf32>) -> tensor<6x8xf32> {
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0]]> : tensor<3x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x8xf32>) -> tensor<6x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<6x3xf32>, tensor<3x8xf32>) outs(%f : tensor<6x8xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}

func.func @rows(%a: tensor<6x3xf32>, %b: tensor<3x8xf32>) -> tensor<6x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x8xf32>) -> tensor<6x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<6x3xf32>, tensor<3x8xf32>) outs(%f : tensor<6x8xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}
