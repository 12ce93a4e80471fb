// RUN: mlc-opt %s --mlc-host-plan-arena="cache-heap-buffers=true" | FileCheck %s

// With cache-heap-buffers, a buffer whose size is known only at run time is
// taken from the cache in the arena (its rows live there for the whole
// function, at the offset the function records) with room to align it to
// 64 bytes, and given back right after its last use, in the loop it is
// allocated in. An output the caller will own still comes from malloc.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: mlc_loop.buffer_cache_offset = [[OFF:[0-9]+]]
// CHECK: %[[ROWS:.*]] = memref.view %arg0[%c[[OFF]]{{.*}}][] : memref<{{[0-9]+}}xi8> to memref<33x4xi64>
// CHECK: scf.for
// CHECK: %[[BYTES:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[NEED:.*]] = arith.addi %[[BYTES]], %c64_i64
// CHECK: %[[BLOCK:.*]] = func.call @mlc_buffer_cache_take(%[[ROWS]], %[[NEED]])
// CHECK: llvm.inttoptr
// CHECK: %[[RAW:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi8>
// CHECK: %[[A:.*]] = memref.view %[[RAW]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?x8xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]] : memref<?x8xf32>)
// CHECK-NEXT: func.call @mlc_buffer_cache_give(%[[ROWS]], %[[BLOCK]])
// CHECK: %[[O:.*]] = memref.alloc(%{{.*}}) {mlc_loop.caller_owned} : memref<?xf32>
// CHECK-NOT: memref.dealloc
func.func @dynamic(%n: index, %out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc(%n) : memref<?x8xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<?x8xf32>)
  }
  %o = memref.alloc(%n) {mlc_loop.caller_owned} : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<?xf32>)
  return
}

// A function without buffers of run-time size has no cache. The cache's
// functions are added to the module once.
// CHECK-LABEL: func.func @static
// CHECK-NOT: buffer_cache
// CHECK: return
// CHECK: func.func private @mlc_buffer_cache_take
// CHECK: llvm.call @malloc
// CHECK: func.func private @mlc_buffer_cache_give
// CHECK: llvm.call @free
func.func @static(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  return
}
