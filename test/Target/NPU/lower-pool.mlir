// RUN: mlc-opt %s --mlc-npu-lower-kernels | FileCheck %s

// ResNet's stem pooling on 8 planes of 112x112 f32 (3x3 windows every 2
// from one before the first row and column), in tiles of 4 planes, two
// buffer sets: per tile the planes loaded a plane a row (signals token 0),
// pooled by the vector unit from the set's input into its output (waits for
// 0, signals 1), stored (waits for 1). The stores signal 2 only for loads
// two tiles later, which two tiles do not have; the second tile uses the
// second set, a bank further on.

// CHECK-LABEL: func @stem
// CHECK: mlc_npu.launch @stem_npu0(%arg0, %arg1) {dram_offsets = array<i64: 0, 401408>, writes = array<i1: false, true>} : memref<1x8x112x112xf32>, memref<1x8x56x56xf32>
// CHECK: mlc_npu.program @stem_npu0 "large" {
// CHECK-NEXT: mlc_npu.load {cols = 12544 : i64, dram = 0 : i64, dram_stride = 50176 : i64, element_type = f32, local = 0 : i64, rows = 4 : i64, signal = 0 : i64}
// CHECK-NEXT: mlc_npu.vector {cols = 112 : i64, element_type = f32, op = "max_pool", plane_rows = 112 : i64, result = 200704 : i64, result_plane = array<i64: 56, 56>, result_type = f32, rows = 4 : i64, signal = 1 : i64, source = 0 : i64, wait = [0], window = array<i64: 3, 3>, window_pads = array<i64: 1, 1>, window_strides = array<i64: 2, 2>}
// CHECK-NEXT: mlc_npu.store {cols = 3136 : i64, dram = 401408 : i64, dram_stride = 12544 : i64, element_type = f32, local = 200704 : i64, rows = 4 : i64, wait = [1]}
// CHECK-NEXT: mlc_npu.load {cols = 12544 : i64, dram = 200704 : i64, dram_stride = 50176 : i64, element_type = f32, local = 524288 : i64, rows = 4 : i64, signal = 0 : i64}

func.func @stem(%x: memref<1x8x112x112xf32>, %y: memref<1x8x56x56xf32>) {
  mlc_npu.pool "large" "max" ins(%x : memref<1x8x112x112xf32>) outs(%y : memref<1x8x56x56xf32>) {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, tile = 4}
  return
}
