// RUN: mlc-opt %s --mlc-npu-lower-kernels | FileCheck %s

// A direct convolution of 2 taps (row shifts 0 and 1) over lhs rows of 8
// channels: the row block and the row its second tap reaches loaded once
// (17 rows), both taps' filters in one load ([16, 16]: tap-major), one
// matrix command per tap reading the rows shifted by 0 and 1 rows of 8
// bf16 (16 bytes), the second accumulating, the sums rounded to bf16 by the
// vector unit into the scratchpad and stored from there.

// CHECK-LABEL: func @direct
// CHECK: mlc_npu.program @direct_npu0 "large" {
// CHECK-NEXT: mlc_npu.load {cols = 8 : i64, dram = 0 : i64, dram_stride = 16 : i64, element_type = bf16, local = 0 : i64, rows = 17 : i64}
// CHECK-NEXT: mlc_npu.load {cols = 16 : i64, dram = 320 : i64, dram_stride = 32 : i64, element_type = bf16, local = [[B:[0-9]+]] : i64, rows = 16 : i64, signal = 4 : i64}
// CHECK-NEXT: mlc_npu.mma {a = 0 : i64, b = [[B]] : i64, c = 0 : i64, cols = 16 : i64, depth = 8 : i64, element_type = bf16, rows = 16 : i64, wait = [4]}
// CHECK-NEXT: mlc_npu.mma {a = 16 : i64, accumulate, b = {{[0-9]+}} : i64, c = 0 : i64, cols = 16 : i64, depth = 8 : i64, element_type = bf16, rows = 16 : i64, signal = 2 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 16 : i64, element_type = f32, memory = "accumulator", op = "copy", result = {{[0-9]+}} : i64, result_type = bf16, rows = 16 : i64, signal = 6 : i64, source = 0 : i64, wait = [2]}
// CHECK-NEXT: mlc_npu.store {cols = 16 : i64, dram = 832 : i64, dram_stride = 32 : i64, element_type = bf16, local = {{[0-9]+}} : i64, rows = 16 : i64, wait = [6]}
// CHECK-NEXT: }

func.func @direct(%a: memref<17x8xbf16>, %b: memref<16x16xbf16>, %c: memref<16x16xbf16>) {
  mlc_npu.matmul "large" ins(%a, %b : memref<17x8xbf16>, memref<16x16xbf16>) outs(%c : memref<16x16xbf16>) {tile_rows = 16, tile_cols = 16, row_shifts = array<i64: 0, 1>}
  return
}
