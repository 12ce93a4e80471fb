// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-threads-and-caches{m-tile=4 n-tile=16 k-tile=64 n-block=32 vector-width=8}))' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-threads-and-caches{m-tile=4 n-tile=16 k-tile=64 n-block=32 vector-width=8},mlc-cpu-vectorize-register-tiles{m-tile=4 n-tile=16 k-tile=64 n-block=32 vector-width=8}))' | FileCheck %s --check-prefix=VEC

// The first half tiles a contraction for caches as its schedule says (here
// a k block of 32 and a 16-column block) and leaves the register tile as a
// mark; the second tiles by the mark and vectorizes: no mark is left, the
// tiles are 16-lane multiply-adds that LLVM may contract into FMAs.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for
// CHECK: linalg.{{.*}}mlc_loop.loop_order = array<i64: 0, 1, 2>, mlc_loop.register_tiles = array<i64: 2, 16, 1>
// VEC-LABEL: func.func @matmul
// VEC-NOT: mlc_loop.register_tiles
// VEC: arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// VEC: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
func.func @matmul(%a: tensor<8x128xf32>, %b: tensor<128x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %m = linalg.matmul {mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 0, 0], [0, 32, 32], [2, 16, 1]], vector_sizes = [2, 16, 1], parallel_dims = []>} ins(%a, %b : tensor<8x128xf32>, tensor<128x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}
