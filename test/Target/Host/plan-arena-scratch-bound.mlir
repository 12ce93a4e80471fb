// RUN: mlc-opt %s --mlc-host-plan-arena="loop-scratch-bytes=8" --verify-diagnostics
// RUN: mlc-opt %s --mlc-host-plan-arena --verify-diagnostics

// A loop-local buffer larger than the backend's bound (or any, when the
// backend sets none) cannot be left out of the arena, and the plan cannot
// place it either: an error naming the buffer.
func.func @scratch_too_big(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{buffer 'memref<4xf32>' is allocated inside a loop or branch; the static memory plan cannot place it}}
    %a = memref.alloc() : memref<4xf32>
  }
  return
}
