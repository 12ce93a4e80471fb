// RUN: mlc-opt %s --split-input-file --mlc-gpu-map-to-launches="threads-per-block=64" | FileCheck %s
// RUN: mlc-opt %s --split-input-file --mlc-gpu-map-to-launches="threads-per-block=64 emulate=true" | FileCheck %s --check-prefix=EMU

// One thread per element of a 3x40 elementwise op: 120 chunks, 2 blocks of
// 64 threads, the last 8 threads idle; the innermost dim is the fastest.
// CHECK-LABEL: func.func @relu
// CHECK-DAG: %[[GRID:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 64 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCK]], {{.*}}) module(@mlc_kernels) function(@relu_k0)
// CHECK:   %[[LINEAR:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[LINEAR]], %c120
// CHECK:   scf.if %[[IN]] {
// CHECK:     %[[COL:.*]] = arith.remui %[[LINEAR]], %c40
// CHECK:     %[[ROW:.*]] = arith.divui %[[LINEAR]], %c40
// CHECK:     %[[I:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[COL]])
// CHECK:     %[[J:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[COL]])
// CHECK:     memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:     arith.maximumf
// CHECK:     memref.store
// CHECK:   gpu.terminator
// CHECK-NOT: linalg.generic
// EMU-LABEL: func.func @relu
// EMU: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// EMU:   scf.for %[[T:.*]] = %c0 to %c64 step %c1 {
// EMU:     arith.cmpi ult
// EMU-NOT: gpu.launch
func.func @relu(%a: memref<3x40xf32>, %b: memref<3x40xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<3x40xf32>) outs(%b : memref<3x40xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A reduction: each thread owns one output and runs the reduction loop
// whole, its accumulator a loop-carried value: the output is loaded before
// the loop and stored after it, once. The view it reads through is cloned
// into the launch, so that only the arena crosses into the kernel.
// CHECK-LABEL: func.func @row_sums
// CHECK: gpu.launch
// CHECK:   memref.view
// CHECK:   %[[FIRST:.*]] = memref.load %{{.*}} : memref<8xf32>
// CHECK:   %[[SUM:.*]] = scf.for %[[K:.*]] = %c0{{.*}} to %c16{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32)
// CHECK:     %[[X:.*]] = memref.load %{{.*}} : memref<8x16xf32>
// CHECK:     %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK-NOT: memref.store
// CHECK:     scf.yield %[[NEXT]]
// CHECK:   memref.store %[[SUM]], %{{.*}} : memref<8xf32>
func.func @row_sums(%arena: memref<1024xi8>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %in = memref.view %arena[%c0][] : memref<1024xi8> to memref<8x16xf32>
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x16xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A schedule's chunks: each thread computes 4 consecutive columns.
// CHECK-LABEL: func.func @chunks
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c16{{.*}})
// CHECK:   scf.for %{{.*}} = %c0{{.*}} to %c4
func.func @chunks(%a: memref<4x16xf32>, %b: memref<4x16xf32>) {
  linalg.copy {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[1, 4]], vector_sizes = [], parallel_dims = [0, 1]>}
      ins(%a : memref<4x16xf32>) outs(%b : memref<4x16xf32>)
  return
}

// -----

// A reduction's register tile: each thread accumulates 2 columns of 2 rows,
// four accumulators carried through one reduction loop, the fill before
// the matmul written at each of the four elements first.
// CHECK-LABEL: func.func @register_tile
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK-COUNT-4: memref.store %{{.*}}, %{{.*}} : memref<4x16xf32>
// CHECK-COUNT-4: memref.load %{{.*}} : memref<4x16xf32>
// CHECK: %[[SUMS:.*]]:4 = scf.for {{.*}} = %c0{{.*}} to %c8{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK-COUNT-4: arith.mulf
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store %[[SUMS]]#{{[0-3]}}
// CHECK: gpu.terminator
func.func @register_tile(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %acc: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16xf32>)
  linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[2, 2, 0]], vector_sizes = [], parallel_dims = [0, 1]>}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>)
  return
}

// -----

// A sequential loop runs as one thread; a memref.copy is a loop nest.
// CHECK-LABEL: func.func @sequential
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK:   scf.for
// CHECK: gpu.launch
// CHECK-NOT: memref.copy
func.func @sequential(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %j = arith.addi %i, %c1 : index
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %a[%j] : memref<4xf32>
  }
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The fill that starts a matmul's accumulator and the activation after it
// run in the matmul's threads: one launch, each thread on one element.
// CHECK-LABEL: func.func @fused
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: memref.store %{{.*}}, %[[ACC:.*]][
// CHECK: scf.for {{.*}} iter_args
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK-NOT: memref.store
// CHECK: }
// CHECK: memref.store
// CHECK: arith.maximumf
// CHECK: gpu.terminator
func.func @fused(%arena: memref<4096xi8>, %a: memref<4x8xf32>, %b: memref<8x16xf32>, %out: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<4096xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The activation's result is planned where the matmul's input was: a thread
// writing it while others still read that input would corrupt them, so it
// is a launch of its own.
// CHECK-LABEL: func.func @overlapping
// CHECK: gpu.launch
// CHECK:   arith.mulf
// CHECK-NOT: arith.maximumf
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK:   arith.maximumf
func.func @overlapping(%arena: memref<4096xi8>, %b: memref<8x16xf32>, %out: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %a = memref.view %arena[%c0][] : memref<4096xi8> to memref<4x8xf32>
  %acc = memref.view %arena[%c1024][] : memref<4096xi8> to memref<4x16xf32>
  %relu = memref.view %arena[%c0][] : memref<4096xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xf32>) outs(%relu : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %relu, %out : memref<4x16xf32> to memref<4x16xf32>
  return
}

// -----

// The accumulator's init waits behind the padding of the input, which
// touches other memory, and runs in the convolution's threads.
// CHECK-LABEL: func.func @deferred_init
// CHECK: gpu.launch
// CHECK:   arith.constant 1.000000e+00
// CHECK:   memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK:   arith.constant 5.000000e-01
// CHECK:   memref.store
// CHECK:   scf.for
// CHECK:     arith.mulf
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @deferred_init(%arena: memref<4096xi8>, %a: memref<4x8xf32>, %b: memref<8x16xf32>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %acc = memref.view %arena[%c0][] : memref<4096xi8> to memref<4x16xf32>
  %pad = memref.view %arena[%c1024][] : memref<4096xi8> to memref<6x8xf32>
  linalg.fill ins(%half : f32) outs(%acc : memref<4x16xf32>)
  linalg.fill ins(%one : f32) outs(%pad : memref<6x8xf32>)
  %rows = memref.subview %pad[1, 0] [4, 8] [1, 1] : memref<6x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 8>>
  linalg.matmul ins(%rows, %b : memref<4x8xf32, strided<[8, 1], offset: 8>>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>)
  return
}

// -----

// Booleans take a byte each: the second op's result, planned over the
// first's, is not written while the first may still run.
// CHECK-LABEL: func.func @bytes_of_booleans
// CHECK: gpu.launch
// CHECK:   arith.cmpf
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK:   arith.uitofp
func.func @bytes_of_booleans(%arena: memref<256xi8>, %x: memref<6xf32>, %out: memref<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %mask = memref.view %arena[%c0][] : memref<256xi8> to memref<6xi1>
  %wide = memref.view %arena[%c4][] : memref<256xi8> to memref<6xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<6xf32>) outs(%mask : memref<6xi1>) {
  ^bb0(%v: f32, %m: i1):
    %p = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %p : i1
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%mask : memref<6xi1>) outs(%wide : memref<6xf32>) {
  ^bb0(%m: i1, %w: f32):
    %f = arith.uitofp %m : i1 to f32
    linalg.yield %f : f32
  }
  memref.copy %wide, %out : memref<6xf32> to memref<6xf32>
  return
}
