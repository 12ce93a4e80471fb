// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-parallelize-loop-nests{parallel=true}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-parallelize-loop-nests{parallel=false}))' | FileCheck %s --check-prefix=SERIAL

// A pad becomes fills of its border and a copy of its interior; the copy
// and the exp after it, with no schedule of their own, run in chunks of
// rows on threads (LoopNestStrategy.h).
// CHECK-LABEL: func.func @pad_exp
// CHECK-NOT: tensor.pad
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} tensor<512x1xf32>
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} tensor<512x1xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (64)
// CHECK: linalg.copy ins(%{{.*}} : tensor<64x510xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (64)
// CHECK: math.exp
// SERIAL-LABEL: func.func @pad_exp
// SERIAL-NOT: scf.forall
// SERIAL: linalg.copy ins(%{{.*}} : tensor<512x510xf32>)
func.func @pad_exp(%x: tensor<512x510xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<512x510xf32> to tensor<512x512xf32>
  %e = tensor.empty() : tensor<512x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// The strategy decided one thread for this one: it stays whole.
// CHECK-LABEL: func.func @single_thread
// CHECK-NOT: scf.forall
// CHECK: math.exp
func.func @single_thread(%x: tensor<512x512xf32>, %o: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"], mlc_loop.schedule = #mlc_loop.schedule<tile_sizes = [[0, 0]], vector_sizes = [], parallel_dims = []>} ins(%x : tensor<512x512xf32>) outs(%o : tensor<512x512xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
