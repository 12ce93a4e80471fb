// RUN: mlc-opt %s --mlc-cpu-lower-copies --split-input-file | FileCheck %s

// The copy into a padded buffer's interior: rows are contiguous on both
// sides, so it becomes loops over channels and rows around a row copy.
// CHECK-LABEL: func.func @pad_interior
// CHECK-NOT: linalg.copy
// CHECK: scf.for %[[C:.*]] = %c0 to %c16 step %c1
// CHECK: scf.for %[[H:.*]] = %c0 to %c56 step %c1
// CHECK: %[[SRCV:.*]] = memref.subview %arg0[0, %[[C]], %[[H]], 0] [1, 1, 1, 56] [1, 1, 1, 1] : memref<1x16x56x56xf32> to memref<1x1x1x56xf32, strided<[50176, 3136, 56, 1], offset: ?>>
// CHECK: %[[SRC:.*]] = memref.collapse_shape %[[SRCV]] {{\[}}[0, 1, 2, 3]] : {{.*}} into memref<56xf32, strided<[1], offset: ?>>
// CHECK: %[[DSTV:.*]] = memref.subview %subview[0, %[[C]], %[[H]], 0] [1, 1, 1, 56] [1, 1, 1, 1] : memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>> to memref<1x1x1x56xf32, strided<[53824, 3364, 58, 1], offset: ?>>
// CHECK: %[[DST:.*]] = memref.collapse_shape %[[DSTV]] {{\[}}[0, 1, 2, 3]] : {{.*}} into memref<56xf32, strided<[1], offset: ?>>
// CHECK: memref.copy %[[SRC]], %[[DST]]
func.func @pad_interior(%src: memref<1x16x56x56xf32>, %dst: memref<1x16x58x58xf32>) {
  %interior = memref.subview %dst[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1] : memref<1x16x58x58xf32> to memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>
  linalg.copy ins(%src : memref<1x16x56x56xf32>) outs(%interior : memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>)
  return
}

// -----

// A channel slice of a concatenation is contiguous across rows: one loop
// over channels around a copy of 55 x 55 elements, collapsed to one
// dimension.
// CHECK-LABEL: func.func @concat_slice
// CHECK: scf.for %[[C:.*]] = %c0 to %c64 step %c1
// CHECK: memref.subview %arg0[0, %[[C]], 0, 0] [1, 1, 55, 55] [1, 1, 1, 1] : memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>> to memref<1x1x55x55xf32, strided<[387200, 3025, 55, 1], offset: ?>>
// CHECK: memref.collapse_shape {{.*}} {{\[}}[0, 1, 2, 3]] : memref<1x1x55x55xf32, strided<[387200, 3025, 55, 1], offset: ?>> into memref<3025xf32, strided<[1], offset: ?>>
// CHECK: memref.copy {{.*}} : memref<3025xf32, strided<[1], offset: ?>> to memref<3025xf32, strided<[1], offset: ?>>
func.func @concat_slice(%src: memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>>, %dst: memref<1x64x55x55xf32, strided<[387200, 6050, 55, 1]>>) {
  memref.copy %src, %dst : memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>> to memref<1x64x55x55xf32, strided<[387200, 6050, 55, 1]>>
  return
}

// -----

// A copy whose innermost stride is not one on both sides (a window's column
// phase) stays an element-wise linalg.copy; contiguous copies between
// whole buffers stay memref.copy (memcpy).
// CHECK-LABEL: func.func @strided_and_whole
// CHECK: linalg.copy ins(%arg0 : memref<8x16xf32, strided<[32, 2]>>)
// CHECK: memref.copy %arg2, %arg3 : memref<8x16xf32> to memref<8x16xf32>
func.func @strided_and_whole(%a: memref<8x16xf32, strided<[32, 2]>>, %b: memref<8x16xf32>, %c: memref<8x16xf32>, %d: memref<8x16xf32>) {
  memref.copy %a, %b : memref<8x16xf32, strided<[32, 2]>> to memref<8x16xf32>
  memref.copy %c, %d : memref<8x16xf32> to memref<8x16xf32>
  return
}

// -----

// An im2col gather reads a strided view of its input (the windows overlap):
// it becomes a copy from that view, in rows of the 7 output columns. A
// gather with column stride 2 and a broadcast have no contiguous rows and
// stay as they are.
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#in2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#bias = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gathers
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %arg0
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [1, 8, 3, 3, 7, 7], strides: [648, 81, 9, 1, 9, 1]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.subview %[[VIEW]]{{.*}} to memref<1x1x1x1x1x7xf32, strided<[648, 81, 9, 1, 9, 1], offset: ?>>
// CHECK: memref.collapse_shape {{.*}} into memref<7xf32, strided<[1], offset: ?>>
// CHECK: memref.copy {{.*}} : memref<7xf32, strided<[1], offset: ?>> to memref<7xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<1x8x9x9xf32>) outs(%arg2 : memref<1x8x3x3x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg3 : memref<16xf32>) outs(%arg4 : memref<16x64xf32>)
func.func @gathers(%x: memref<1x8x9x9xf32>, %col: memref<1x8x3x3x7x7xf32>, %col2: memref<1x8x3x3x4x4xf32>, %b: memref<16xf32>, %out: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x9x9xf32>) outs(%col : memref<1x8x3x3x7x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#in2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x9x9xf32>) outs(%col2 : memref<1x8x3x3x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<16xf32>) outs(%out : memref<16x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A thread's chunk computed in place is "inserted" where it was taken
// from: two identical subviews of one buffer. That copy is no copy and
// goes away; one into another place of the buffer stays.
// CHECK-LABEL: func.func @self_copy
// CHECK: %[[A:.*]] = memref.subview %arg0[0, %arg1] [16, 64] [1, 1]
// CHECK: %[[B:.*]] = memref.subview %arg0[0, %arg1] [16, 64] [1, 1]
// CHECK: %[[C:.*]] = memref.subview %arg0[0, %arg2] [16, 64] [1, 1]
// CHECK-NOT: memref.copy %[[A]], %[[B]]
// CHECK: scf.for
// CHECK: memref.copy
// CHECK-NOT: memref.copy
// CHECK: return
func.func @self_copy(%buffer: memref<16x256xf32>, %j: index, %k: index) {
  %a = memref.subview %buffer[0, %j] [16, 64] [1, 1] : memref<16x256xf32> to memref<16x64xf32, strided<[256, 1], offset: ?>>
  %b = memref.subview %buffer[0, %j] [16, 64] [1, 1] : memref<16x256xf32> to memref<16x64xf32, strided<[256, 1], offset: ?>>
  %c = memref.subview %buffer[0, %k] [16, 64] [1, 1] : memref<16x256xf32> to memref<16x64xf32, strided<[256, 1], offset: ?>>
  memref.copy %a, %b : memref<16x64xf32, strided<[256, 1], offset: ?>> to memref<16x64xf32, strided<[256, 1], offset: ?>>
  memref.copy %a, %c : memref<16x64xf32, strided<[256, 1], offset: ?>> to memref<16x64xf32, strided<[256, 1], offset: ?>>
  return
}

// -----

// The gather of a 1x1 convolution with strides [2, 1] on two rows: the
// view's strides [140, 20, 10, 1, 20, 1] repeat on unit dims, so the row
// view keeps every dim and one collapse_shape makes it a row (a
// rank-reducing view would drop unit dims the verifier matches otherwise).
#rows = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @equal_unit_strides
// CHECK: memref.reinterpret_cast {{.*}} sizes: [2, 7, 1, 1, 1, 10], strides: [140, 20, 10, 1, 20, 1]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.subview {{.*}} [1, 1, 1, 1, 1, 10] [1, 1, 1, 1, 1, 1] : {{.*}} to memref<1x1x1x1x1x10xf32, strided<[140, 20, 10, 1, 20, 1], offset: ?>>
// CHECK: memref.collapse_shape {{.*}} into memref<10xf32, strided<[1], offset: ?>>
// CHECK: memref.copy {{.*}} : memref<10xf32, strided<[1], offset: ?>> to memref<10xf32, strided<[1], offset: ?>>
func.func @equal_unit_strides(%x: memref<2x7x2x10xf32>, %col: memref<2x7x1x1x1x10xf32>) {
  linalg.generic {indexing_maps = [#rows, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x7x2x10xf32>) outs(%col : memref<2x7x1x1x1x10xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
