// RUN: mlc-opt %s --mlc-npu-lower-kernels | FileCheck %s

// A quantized add of 2048 elements in tiles of 1024, two buffer sets: per
// tile both int8 operands loaded into the tile's set (the second load
// signals token 0), dequantized into f32 in the accumulator (the first
// waits for 0), added, requantized into the set's result (signals 1), stored
// (waits for 1). A store signals 2 only for the loads of the tile two
// later, which two tiles do not have; the second tile uses the second set,
// a bank further on.

// CHECK-LABEL: func @quantized_add
// CHECK: mlc_npu.launch @quantized_add_npu0(%arg0, %arg1, %arg2) {dram_offsets = array<i64: 0, 2048, 4096>, writes = array<i1: false, false, true>} : memref<2x1024xi8>, memref<2x1024xi8>, memref<2x1024xi8>
// CHECK: mlc_npu.program @quantized_add_npu0 "edge" {
// CHECK-NEXT: mlc_npu.load {cols = 1024 : i64, dram = 0 : i64, dram_stride = 1024 : i64, element_type = i8, local = 0 : i64, rows = 1 : i64}
// CHECK-NEXT: mlc_npu.load {cols = 1024 : i64, dram = 2048 : i64, dram_stride = 1024 : i64, element_type = i8, local = 1024 : i64, rows = 1 : i64, signal = 0 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 1024 : i64, element_type = i8, op = "dequantize", result = 0 : i64, result_memory = "accumulator", result_type = f32, rows = 1 : i64, scale = 5.000000e-01 : f32, source = 0 : i64, wait = [0], zero_point = 3 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 1024 : i64, element_type = i8, op = "dequantize", result = 4096 : i64, result_memory = "accumulator", result_type = f32, rows = 1 : i64, scale = 2.500000e-01 : f32, source = 1024 : i64, zero_point = -4 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 1024 : i64, element_type = f32, memory = "accumulator", op = "add", result = 0 : i64, result_memory = "accumulator", result_type = f32, rows = 1 : i64, source = 0 : i64, source2 = 4096 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 1024 : i64, element_type = f32, memory = "accumulator", op = "requantize", result = 2048 : i64, result_type = i8, rows = 1 : i64, scale = 2.000000e+00 : f32, signal = 1 : i64, source = 0 : i64, zero_point = -8 : i64}
// CHECK-NEXT: mlc_npu.store {cols = 1024 : i64, dram = 4096 : i64, dram_stride = 1024 : i64, element_type = i8, local = 2048 : i64, rows = 1 : i64, wait = [1]}
// CHECK-NEXT: mlc_npu.load {cols = 1024 : i64, dram = 1024 : i64, dram_stride = 1024 : i64, element_type = i8, local = {{[0-9]+}} : i64, rows = 1 : i64}

func.func @quantized_add(%a: memref<2x1024xi8>, %b: memref<2x1024xi8>, %c: memref<2x1024xi8>) {
  mlc_npu.quantized_add "edge" ins(%a, %b : memref<2x1024xi8>, memref<2x1024xi8>) outs(%c : memref<2x1024xi8>) {lhs_scale = 0.5 : f32, lhs_zero_point = 3 : i32, rhs_scale = 0.25 : f32, rhs_zero_point = -4 : i32, result_scale = 2.0 : f32, zero_point = -8 : i32, tile = 1024}
  return
}
