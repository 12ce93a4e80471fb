// RUN: mlc-opt %s --split-input-file --mlc-gpu-map-to-launches="threads-per-block=64" | FileCheck %s
// RUN: mlc-opt %s --split-input-file --mlc-gpu-map-to-launches="threads-per-block=64 emulate=true" | FileCheck %s --check-prefix=EMU

// A loop nest whose size the host knows only when it runs: the grid covers
// the rows times 8 columns, a launch of nothing is skipped, and the kernel
// gets the buffer as a one-element view plus its sizes.
// CHECK-LABEL: func.func @copy_rows
// CHECK: %[[SRC:.*]] = memref.alloc(%[[N:.*]]) : memref<?x8xf32>
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %[[N]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[ROWS]], %c8
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[TOTAL]], %c0
// CHECK: scf.if %[[ANY]] {
// CHECK:   %[[GRID:.*]] = arith.ceildivui %[[TOTAL]], %c64
// CHECK-DAG:   memref.extract_strided_metadata %[[SRC]]
// CHECK-DAG:   %[[ADDR:.*]] = memref.reinterpret_cast %[[SRC]] to offset: [0], sizes: [1], strides: [1] : memref<?x8xf32> to memref<1xf32>
// CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}})
// CHECK:     %[[VIEW:.*]] = memref.reinterpret_cast %[[ADDR]] to offset: [0], sizes: [%{{.*}}, 8], strides: [8, 1]
// CHECK:     memref.cast %[[VIEW]] : memref<?x8xf32, strided<[8, 1]>> to memref<?x8xf32>
// CHECK:     arith.cmpi ult
// CHECK:     arith.remui %{{.*}}, %c8
// CHECK:     memref.load %{{.*}} : memref<?x8xf32>
// CHECK: gpu.wait
// CHECK-NEXT: memref.dealloc %[[SRC]]
// EMU-LABEL: func.func @copy_rows
// EMU: scf.if
// EMU:   %[[GRID:.*]] = arith.ceildivui
// EMU:   scf.for %{{.*}} = %{{.*}} to %[[GRID]] step %{{.*}} {
// EMU-NOT: gpu.launch
func.func @copy_rows(%n: index, %dst: memref<64x8xf32>) attributes {mlc_loop.check_messages = ["never"]} {
  %src = memref.alloc(%n) : memref<?x8xf32>
  %view = memref.subview %dst[0, 0] [%n, 8] [1, 1] : memref<64x8xf32> to memref<?x8xf32, strided<[8, 1]>>
  linalg.copy ins(%src : memref<?x8xf32>) outs(%view : memref<?x8xf32, strided<[8, 1]>>)
  memref.dealloc %src : memref<?x8xf32>
  return
}

// -----

// A count one thread computes sizes a buffer: the host reads it from a
// one-element buffer after waiting for the kernel, and the host code keeps
// the stores of the output's record.
// CHECK-LABEL: func.func @count({{.*}}) attributes {mlc_loop.gpu_host_access}
// CHECK: %[[SLOT:.*]] = memref.alloc() : memref<index>
// CHECK: gpu.launch
// CHECK:   %[[N:.*]] = scf.for
// CHECK:   memref.store %[[N]], %[[SLOT]][]
// CHECK: gpu.wait
// CHECK: %[[COUNT:.*]] = memref.load %[[SLOT]][]
// CHECK: memref.dealloc %[[SLOT]]
// CHECK: %[[OUT:.*]] = memref.alloc(%[[COUNT]]) {mlc_loop.caller_owned}
// CHECK: %[[ANY:.*]] = arith.cmpi ugt
// CHECK: scf.if %[[ANY]] {
// CHECK:   gpu.launch
// CHECK: }
// CHECK: gpu.wait
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0]
// CHECK: return
func.func @count(%flags: memref<16xi1>, %record: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %c0) -> (index) {
    %f = memref.load %flags[%i] : memref<16xi1>
    %one = arith.index_cast %f : i1 to index
    %next = arith.addi %acc, %one : index
    scf.yield %next : index
  }
  %out = memref.alloc(%n) {mlc_loop.caller_owned} : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?xf32>)
  %address = memref.extract_aligned_pointer_as_index %out : memref<?xf32> -> index
  %word = arith.index_cast %address : index to i64
  memref.store %word, %record[%c0] : memref<2xi64>
  %size = arith.index_cast %n : index to i64
  memref.store %size, %record[%c1] : memref<2xi64>
  return
}

// -----

// A constant the host code hands on as an If's result is host memory: it
// gets a copy in device memory (made by a kernel, released before the
// return), which is what the If yields (here in the kernel that reads it).
// CHECK-LABEL: func.func @pick
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch
// CHECK:   memref.get_global @ones
// CHECK: gpu.launch
// CHECK:   scf.if %{{.*}} -> (memref<4xf32>) {
// CHECK:     scf.yield %[[COPY]]
// CHECK: gpu.wait
// CHECK-NEXT: memref.dealloc %[[COPY]]
memref.global "private" constant @ones : memref<4xf32> = dense<1.0>
func.func @pick(%flag: memref<i1>, %x: memref<4xf32>, %y: memref<4xf32>) attributes {mlc_loop.check_messages = ["never"]} {
  %ones = memref.get_global @ones : memref<4xf32>
  %f = memref.load %flag[] : memref<i1>
  %picked = scf.if %f -> (memref<4xf32>) {
    scf.yield %ones : memref<4xf32>
  } else {
    scf.yield %x : memref<4xf32>
  }
  memref.copy %picked, %y : memref<4xf32> to memref<4xf32>
  return
}
