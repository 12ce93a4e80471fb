// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlir-print-op-generic | mlc-opt | FileCheck %s

// CHECK-LABEL: func @placed
// CHECK: mlc_npu.matmul "large" ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x16xbf16>) outs(%{{.*}} : tensor<16x16xf32>) {accumulate, tile_cols = 16 : i64, tile_rows = 16 : i64} -> tensor<16x16xf32>
func.func @placed(%a: tensor<16x32xf32>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = mlc_npu.matmul "large" ins(%a, %b : tensor<16x32xf32>, tensor<32x16xbf16>) outs(%c : tensor<16x16xf32>) {tile_rows = 16, tile_cols = 16, accumulate} -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// An int8 product requantized on the NPU: each column's bias and scale in
// a table, relu, int8 out.
// CHECK-LABEL: func @requantized
// CHECK: mlc_npu.matmul "edge" ins(%{{.*}}, %{{.*}} : tensor<16x32xi8>, tensor<32x8xi8>) requantize(%{{.*}} : tensor<8x2xi32>) outs(%{{.*}} : tensor<16x8xi8>) {relu, tile_cols = 8 : i64, tile_rows = 16 : i64, zero_point = -128 : i32} -> tensor<16x8xi8>
func.func @requantized(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %c: tensor<16x8xi8>, %columns: tensor<8x2xi32>) -> tensor<16x8xi8> {
  %r = mlc_npu.matmul "edge" ins(%a, %b : tensor<16x32xi8>, tensor<32x8xi8>) requantize(%columns : tensor<8x2xi32>) outs(%c : tensor<16x8xi8>) {tile_rows = 16, tile_cols = 8, relu, zero_point = -128 : i32} -> tensor<16x8xi8>
  return %r : tensor<16x8xi8>
}

// CHECK-LABEL: func @buffers
// CHECK: mlc_npu.matmul "edge" ins(%{{.*}}, %{{.*}} : memref<16x32xi8>, memref<32x16xi8>) outs(%{{.*}} : memref<16x16xi32>) {tile_cols = 16 : i64, tile_rows = 16 : i64}
// CHECK: mlc_npu.launch @program(%{{.*}}, %{{.*}}) {dram_offsets = array<i64: 0, 512>, writes = array<i1: false, true>} : memref<16x32xi8>, memref<16x16xi32>
func.func @buffers(%a: memref<16x32xi8>, %b: memref<32x16xi8>, %c: memref<16x16xi32>) {
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xi8>, memref<32x16xi8>) outs(%c : memref<16x16xi32>) {tile_rows = 16, tile_cols = 16}
  mlc_npu.launch @program(%a, %c) {dram_offsets = array<i64: 0, 512>, writes = array<i1: false, true>} : memref<16x32xi8>, memref<16x16xi32>
  return
}

// CHECK: mlc_npu.program @program "edge"
mlc_npu.program @program "edge" {
  mlc_npu.load {element_type = i8, dram = 0, local = 0, rows = 16, cols = 32, dram_stride = 32}
}
