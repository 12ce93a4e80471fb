// RUN: mlc-opt %s --split-input-file --mlc-host-lower-assertions --mlc-host-plan-arena --verify-diagnostics | FileCheck %s

// Each assertion stores its number into the status word when it fails (the
// first failure is kept); the word is zeroed first, lives in the arena to
// the end of the run (after the 1 KiB buffer that is dead by then), and the
// messages are recorded in order.
// CHECK-LABEL: func.func @checks
// CHECK-SAME: (%[[ARENA:.*]]: memref<1088xi8> {mlc_graph.name = "arena"}, %[[C:.*]]: i1,
// CHECK-SAME: mlc_loop.arena_size = 1088
// CHECK-SAME: mlc_loop.check_messages = ["first", "second"]
// CHECK-SAME: mlc_loop.status_offset = 1024
// CHECK: %[[S:.*]] = memref.view %[[ARENA]][%c1024{{.*}}][] : memref<1088xi8> to memref<1xi32>
// CHECK: memref.store %c0_i32, %[[S]][%c0]
// CHECK: %[[NOT:.*]] = arith.xori %[[C]], %true
// CHECK: scf.if %[[NOT]] {
// CHECK:   %[[OLD:.*]] = memref.load %[[S]]
// CHECK:   %[[NONE:.*]] = arith.cmpi eq, %[[OLD]], %c0_i32
// CHECK:   %[[NEW:.*]] = arith.select %[[NONE]], %c1_i32, %[[OLD]]
// CHECK:   memref.store %[[NEW]], %[[S]]
// CHECK: scf.if
// CHECK:   arith.select %{{.*}}, %c2_i32
// CHECK-NOT: cf.assert
func.func @checks(%c: i1, %in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.copy ins(%in : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.copy ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  cf.assert %c, "first"
  scf.if %c {
    %false = arith.constant false
    cf.assert %false, "second"
  }
  return
}

// -----

// A check that can never pass, outside any branch, is a compile error.
func.func @always(%out: memref<4xf32>) {
  %false = arith.constant false
  // expected-error @below {{the model always fails this check: no way}}
  cf.assert %false, "no way"
  return
}
