// RUN: mlc-opt %s --split-input-file --mlc-cpu-stack-scratch | FileCheck %s

// A scratch buffer inside a loop goes on the stack, freed at the end of
// every iteration.
// CHECK-LABEL: func.func @pack_block
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x8x16xf32>
// CHECK-NEXT: memref.copy %{{.*}}, %[[BUF]]
// CHECK-NEXT: memref.copy %[[BUF]], %{{.*}}
// CHECK-NEXT: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: memref.alloc()
func.func @pack_block(%in: memref<2x8x16xf32>, %out: memref<2x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() {alignment = 64 : i64} : memref<2x8x16xf32>
    memref.copy %in, %a : memref<2x8x16xf32> to memref<2x8x16xf32>
    memref.copy %a, %out : memref<2x8x16xf32> to memref<2x8x16xf32>
  }
  return
}

// -----

// Top-level buffers, and loop-local ones over 512 KiB, are not scratch.
// CHECK-LABEL: func.func @not_scratch
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() : memref<262144xf32>
func.func @not_scratch() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %b = memref.alloc() : memref<262144xf32>
  }
  return
}

// -----

// Two scratch buffers of one loop body share one save and one restore:
// the stack is back where the iteration started (restoring one save per
// buffer in creation order left the first buffer's bytes behind).
// CHECK-LABEL: func.func @two_buffers
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<32x8xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<32x16xf32>
// CHECK-NOT: llvm.intr.stacksave
// CHECK: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: llvm.intr.stackrestore
func.func @two_buffers(%out: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
    %b = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32>
    memref.copy %b, %out : memref<32x16xf32> to memref<32x16xf32>
  }
  return
}
