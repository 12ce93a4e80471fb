// RUN: mlc-opt %s -split-input-file -verify-diagnostics

func.func @dma_shape(%a: memref<16x32xf32>, %b: memref<32x16xf32, 1>) {
  // expected-error @+1 {{'mlc_npu.dma_copy' op source shape 'memref<16x32xf32>' differs from target shape 'memref<32x16xf32, 1>'}}
  mlc_npu.dma_copy %a, %b : memref<16x32xf32>, memref<32x16xf32, 1>
  return
}

// -----

func.func @dma_element(%a: memref<16xf32>, %b: memref<16xf16, 1>) {
  // expected-error @+1 {{'mlc_npu.dma_copy' op copies 'f32' into 'f16'}}
  mlc_npu.dma_copy %a, %b : memref<16xf32>, memref<16xf16, 1>
  return
}

// -----

func.func @matmul_k(%a: memref<16x32xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op lhs 'memref<16x32xf32>' and rhs 'memref<16x16xf32>' disagree on the contracting dim}}
  mlc_npu.matmul %a, %b, %c : memref<16x32xf32>, memref<16x16xf32>, memref<16x16xf32>
  return
}

// -----

func.func @matmul_acc(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x16xf32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op accumulator 'memref<16x16xf32>' is not [M, N] of lhs 'memref<16x32xf32>' and rhs 'memref<32x8xf32>'}}
  mlc_npu.matmul %a, %b, %c : memref<16x32xf32>, memref<32x8xf32>, memref<16x16xf32>
  return
}

// -----

// expected-error @+1 {{NPU resources must be positive (local_memory_bytes = 0, array = 16x16, dma_channels = 1)}}
#bad = #mlc_npu.config<local_memory_bytes = 0, array_rows = 16, array_cols = 16, dma_channels = 1>
