// RUN: mlc-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func @self_copy
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32, 1>)
// CHECK-NEXT: mlc_npu.dma_copy %[[A]], %[[B]]
// CHECK-NEXT: return
func.func @self_copy(%a: memref<8xf32>, %b: memref<8xf32, 1>) {
  mlc_npu.dma_copy %a, %a : memref<8xf32>, memref<8xf32>
  mlc_npu.dma_copy %a, %b : memref<8xf32>, memref<8xf32, 1>
  return
}
