// RUN: mlc-opt %s --mlc-npu-lower-kernels | FileCheck %s
// RUN: mlc-opt %s --mlc-npu-lower-kernels --mlc-npu-serialize | FileCheck %s --check-prefix=BINARY

// An int8 matmul in one 16x32 tile: the lhs rows, the rhs columns (the
// tile's last load signals token 4, for the matrix unit; a tile with a
// conversion signals token 0, for the vector unit), the matrix unit (waits
// for 4, signals 2), the store (waits for 2); each buffer in a bank of its
// own; lhs, rhs and out at 64-byte aligned offsets of the DRAM window, out
// written.

// CHECK-LABEL: func @int8
// CHECK: mlc_npu.launch @int8_npu0(%arg0, %arg1, %arg2) {dram_offsets = array<i64: 0, 512, 1536>, writes = array<i1: false, false, true>} : memref<16x32xi8>, memref<32x32xi8>, memref<16x32xi32>
// CHECK-NOT: mlc_npu.matmul
// CHECK: mlc_npu.program @int8_npu0 "edge" {
// CHECK-NEXT: mlc_npu.load {cols = 32 : i64, dram = 0 : i64, dram_stride = 32 : i64, element_type = i8, local = 0 : i64, rows = 16 : i64}
// CHECK-NEXT: mlc_npu.load {cols = 32 : i64, dram = 512 : i64, dram_stride = 32 : i64, element_type = i8, local = {{[0-9]+}} : i64, rows = 32 : i64, signal = 4 : i64}
// CHECK-NEXT: mlc_npu.mma {a = 0 : i64, b = {{[0-9]+}} : i64, c = 0 : i64, cols = 32 : i64, depth = 32 : i64, element_type = i8, rows = 16 : i64, signal = 2 : i64, wait = [4]}
// CHECK-NEXT: mlc_npu.store {cols = 32 : i64, dram = 1536 : i64, dram_stride = 128 : i64, element_type = i32, local = 0 : i64, memory = "accumulator", rows = 16 : i64, wait = [2]}
// CHECK-NEXT: }

// BINARY: mlc_npu.binary @int8_npu0 "edge" dense<"0x4D4C434E5055000001000000

func.func @int8(%a: memref<16x32xi8>, %b: memref<32x32xi8>, %c: memref<16x32xi32>) {
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xi8>, memref<32x32xi8>) outs(%c : memref<16x32xi32>) {tile_rows = 16, tile_cols = 32}
  return
}

