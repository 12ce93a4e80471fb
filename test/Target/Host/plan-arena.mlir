// RUN: mlc-opt %s --split-input-file --mlc-host-plan-arena="loop-scratch-bytes=524288" --verify-diagnostics | FileCheck %s

// Three 1 KiB buffers in a chain: %c is allocated after %a's last use, so
// it reuses %a's memory; %b overlaps both and gets its own slot.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[ARENA:.*]]: memref<2048xi8> {mlc_graph.name = "arena"}, %{{.*}}: memref<256xf32>, %{{.*}}: memref<256xf32>)
// CHECK-SAME: mlc_loop.arena_size = 2048
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%c1024{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK: %[[C:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<2048xi8> to memref<256xf32>
// CHECK-NOT: memref.alloc
func.func @chain(%in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.copy ins(%in : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.copy ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
  %c = memref.alloc() : memref<256xf32>
  linalg.copy ins(%b : memref<256xf32>) outs(%c : memref<256xf32>)
  linalg.copy ins(%c : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// A view keeps its buffer alive: %a is read through %flat after %b is
// allocated, so they cannot share. Sizes round up to 64 bytes.
// CHECK-LABEL: func.func @view_extends_liveness
// CHECK-SAME: mlc_loop.arena_size = 128
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : memref<128xi8> to memref<2x2xf32>
// CHECK: memref.view %{{.*}}[%c64{{.*}}][] : memref<128xi8> to memref<4xf32>
func.func @view_extends_liveness(%in: memref<2x2xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<2x2xf32>
  linalg.copy ins(%in : memref<2x2xf32>) outs(%a : memref<2x2xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%flat : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.copy ins(%b : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// A buffer whose size is known only at run time stays on the heap and is
// freed after its last use; an output the caller will own is left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]] : memref<?xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[O:.*]] = memref.alloc(%{{.*}}) {mlc_loop.caller_owned} : memref<?xf32>
// CHECK-NOT: memref.dealloc
func.func @dynamic(%n: index, %out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  %o = memref.alloc(%n) {mlc_loop.caller_owned} : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<?xf32>)
  return
}

// -----

func.func @dynamic_strided(%n: index, %out: memref<4xf32>) {
  // expected-error @below {{has a dynamic size or a strided layout; the static memory plan cannot place it}}
  %a = memref.alloc(%n) : memref<?xf32, strided<[2]>>
  return
}

// -----

// A loop-local scratch buffer of at most loop-scratch-bytes is left to the
// backend (the CPU's mlc-cpu-stack-scratch).
// CHECK-LABEL: func.func @scratch_in_loop
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() : memref<4xf32>
func.func @scratch_in_loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<4xf32>
  }
  return
}

// -----

func.func @in_loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{is allocated inside a loop or branch}}
    %b = memref.alloc() : memref<262144xf32>
  }
  return
}

// -----

// Buffers allocated inside the branches of a run-time if get places for the
// whole if: the then-branch's 1 KiB and the else-branch's 2 KiB do not share
// (either may run), and the if's result, yielded from either, lives until
// its last use after the if.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: mlc_loop.arena_size = 3072
// CHECK: memref.view {{.*}} to memref<256xf32>
// CHECK: memref.view {{.*}} to memref<512xf32>
// CHECK: scf.if
// CHECK-NOT: memref.alloc
// CHECK: } else {
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @branches(%c: i1, %in: memref<256xf32>, %out: memref<256xf32>) {
  %r = scf.if %c -> (memref<256xf32>) {
    %t = memref.alloc() : memref<256xf32>
    linalg.copy ins(%in : memref<256xf32>) outs(%t : memref<256xf32>)
    scf.yield %t : memref<256xf32>
  } else {
    %e = memref.alloc() : memref<512xf32>
    %s = memref.subview %e[0] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1]>>
    linalg.copy ins(%in : memref<256xf32>) outs(%s : memref<256xf32, strided<[1]>>)
    %cast = memref.cast %s : memref<256xf32, strided<[1]>> to memref<256xf32>
    scf.yield %cast : memref<256xf32>
  }
  linalg.copy ins(%r : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}
