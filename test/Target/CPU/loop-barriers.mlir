// RUN: mlc-opt %s --mlc-cpu-loop-barriers | FileCheck %s

// A worksharing loop that ends its parallel region needs no barrier of its
// own: the region's join waits for every thread.
// CHECK-LABEL: func.func @last_loop
// CHECK: omp.wsloop nowait
func.func @last_loop(%lb: index, %ub: index, %step: index, %m: memref<?xf32>) {
  %c = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%lb) to (%ub) step (%step) {
        memref.store %c, %m[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// A loop followed by more work in the region keeps its barrier: that work
// may read what other threads wrote.
// CHECK-LABEL: func.func @loop_then_work
// CHECK: omp.wsloop {
// CHECK: omp.wsloop nowait
func.func @loop_then_work(%lb: index, %ub: index, %step: index, %m: memref<?xf32>) {
  %c = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%lb) to (%ub) step (%step) {
        memref.store %c, %m[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%lb) to (%ub) step (%step) {
        %v = memref.load %m[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
