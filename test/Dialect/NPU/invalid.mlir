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

// -----

// expected-error @+1 {{'tpu' is neither a built-in NPU (edge, large) nor a readable file}}
mlc_npu.program "tpu" {
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': destination [262144, +16) is outside the scratchpad (262144 bytes)}}
  mlc_npu.load {element_type = i8, dram = 0, local = 262144, rows = 1, cols = 16, dram_stride = 16}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': the matrix unit of 'edge' has no bf16 -> f32}}
  mlc_npu.mma {element_type = bf16, a = 0, b = 64, c = 0, rows = 4, cols = 4, depth = 4}
}

// -----

mlc_npu.program "large" {
  // expected-error @+1 {{waits for token 16, not one of 0-15}}
  mlc_npu.mma {element_type = bf16, a = 0, b = 64, c = 0, rows = 4, cols = 4, depth = 4, wait = [16]}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{element type 'f64' is not one of i8, i32, bf16, f16, f32}}
  mlc_npu.store {element_type = f64, dram = 0, local = 0, rows = 1, cols = 1, dram_stride = 8}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': requantize goes from int32 to int8}}
  mlc_npu.vector {op = "requantize", element_type = f32, result_type = i8, memory = "accumulator", source = 0, result = 0, rows = 1, cols = 4}
}
