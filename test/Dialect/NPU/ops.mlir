// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlir-print-op-generic | mlc-opt | FileCheck %s

// CHECK-LABEL: func @tile_matmul
// CHECK-SAME: mlc_npu.config = #mlc_npu.config<local_memory_bytes = 262144, array_rows = 16, array_cols = 16, dma_channels = 2>
func.func @tile_matmul(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>)
    attributes {mlc_npu.config = #mlc_npu.config<local_memory_bytes = 262144, array_rows = 16, array_cols = 16, dma_channels = 2>} {
  %la = memref.alloc() : memref<16x32xf32, 1>
  %lb = memref.alloc() : memref<32x16xf32, 1>
  %lc = memref.alloc() : memref<16x16xf32, 1>
  // CHECK: mlc_npu.dma_copy %{{.*}}, %{{.*}} : memref<16x32xf32>, memref<16x32xf32, 1>
  mlc_npu.dma_copy %a, %la : memref<16x32xf32>, memref<16x32xf32, 1>
  mlc_npu.dma_copy %b, %lb : memref<32x16xf32>, memref<32x16xf32, 1>
  mlc_npu.dma_copy %c, %lc : memref<16x16xf32>, memref<16x16xf32, 1>
  // CHECK: mlc_npu.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<16x32xf32, 1>, memref<32x16xf32, 1>, memref<16x16xf32, 1>
  mlc_npu.matmul %la, %lb, %lc : memref<16x32xf32, 1>, memref<32x16xf32, 1>, memref<16x16xf32, 1>
  mlc_npu.dma_copy %lc, %c : memref<16x16xf32, 1>, memref<16x16xf32>
  return
}
