// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlc-npu-serialize | FileCheck %s --check-prefix=BINARY

// A command stream as IR: C[16x16] = A[16x64] B[64x16] in int8 on the edge
// NPU, each command ordered after what it reads by tokens.
// CHECK: mlc_npu.program "edge" {
// CHECK-NEXT: mlc_npu.load {cols = 64 : i64, dram = 0 : i64, dram_stride = 64 : i64, element_type = i8, local = 0 : i64, rows = 16 : i64, signal = 0 : i64}
// CHECK: mlc_npu.mma {a = 0 : i64, b = 1024 : i64, c = 0 : i64, cols = 16 : i64, depth = 64 : i64, element_type = i8, rows = 16 : i64, signal = 2 : i64, wait = [0, 1]}
// CHECK: mlc_npu.store
// BINARY: mlc_npu.binary "edge" dense<"0x4D4C434E5055000001000000040000000101
// BINARY-NOT: mlc_npu.program
mlc_npu.program "edge" {
  mlc_npu.load {element_type = i8, dram = 0, local = 0, rows = 16, cols = 64,
                dram_stride = 64, signal = 0}
  mlc_npu.load {element_type = i8, dram = 1024, local = 1024, rows = 64,
                cols = 16, dram_stride = 16, signal = 1}
  mlc_npu.mma {element_type = i8, a = 0, b = 1024, c = 0, rows = 16, cols = 16,
               depth = 64, wait = [0, 1], signal = 2}
  mlc_npu.store {element_type = i32, memory = "accumulator", dram = 2048,
                 local = 0, rows = 16, cols = 16, dram_stride = 64, wait = [2]}
}
