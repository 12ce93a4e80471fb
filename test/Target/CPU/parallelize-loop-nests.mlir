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

// -----

// A depthwise convolution (a window with register tiles) whose result is
// quantized to another element type: the quantization runs on each
// thread's chunk of rows right after it, not as a pass of its own.
// CHECK-LABEL: func.func @window_quantized
// CHECK: %[[R:.*]] = scf.forall (%[[H:.*]]) = (0) to (16) step (2) shared_outs(%[[S:.*]] = %{{.*}}) -> (tensor<1x32x16x16xi8>)
// CHECK: %[[W:.*]] = linalg.depthwise_conv_2d_nchw_chw {{.*}}mlc_loop.register_tiles
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<1x32x2x16xf32>) outs(%{{.*}} : tensor<1x32x2x16xi8>)
// CHECK: arith.fptosi
// CHECK: tensor.parallel_insert_slice %[[Q]] into %[[S]][0, 0, %[[H]], 0] [1, 32, 2, 16]
// CHECK-NOT: scf.forall
// CHECK: return %[[R]]
// SERIAL-LABEL: func.func @window_quantized
// SERIAL-NOT: scf.forall
// SERIAL: linalg.depthwise_conv_2d_nchw_chw
// SERIAL: linalg.generic
func.func @window_quantized(%x: tensor<1x32x18x18xf32>, %w: tensor<32x3x3xf32>, %init: tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xi8> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, mlc_loop.register_tiles = array<i64: 1, 1, 4, 16, 1, 1>, mlc_loop.loop_order = array<i64: 0, 1, 2, 3, 4, 5>} ins(%x, %w : tensor<1x32x18x18xf32>, tensor<32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %e = tensor.empty() : tensor<1x32x16x16xi8>
  %s = arith.constant 0.25 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x16x16xf32>) outs(%e : tensor<1x32x16x16xi8>) {
  ^bb0(%v: f32, %o: i8):
    %d = arith.divf %v, %s : f32
    %i = arith.fptosi %d : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x32x16x16xi8>
  return %q : tensor<1x32x16x16xi8>
}

// -----

// Chunks already on threads (a strided window computes one plane each and
// inserts it rank-reduced) run the quantization too: the plane gets its
// unit dims back so the quantization's slice matches.
// CHECK-LABEL: func.func @planes_quantized
// CHECK: %[[R:.*]] = scf.forall (%[[C:.*]]) in (4) shared_outs(%[[S:.*]] = %{{.*}}) -> (tensor<1x4x8x8xi8>)
// CHECK: %[[P:.*]] = math.exp %{{.*}} : tensor<8x8xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1, 2], [3]]
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<1x1x8x8xf32>) outs(%{{.*}} : tensor<1x1x8x8xi8>)
// CHECK: tensor.parallel_insert_slice %[[Q]] into %[[S]][0, %[[C]], 0, 0] [1, 1, 8, 8]
// CHECK: return %[[R]]
func.func @planes_quantized(%x: tensor<1x4x8x8xf32>, %init: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xi8> {
  %planes = scf.forall (%c) in (4) shared_outs(%o = %init) -> (tensor<1x4x8x8xf32>) {
    %in = tensor.extract_slice %x[0, %c, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> to tensor<8x8xf32>
    %p = math.exp %in : tensor<8x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %p into %o[0, %c, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : tensor<8x8xf32> into tensor<1x4x8x8xf32>
    }
  }
  %e = tensor.empty() : tensor<1x4x8x8xi8>
  %s = arith.constant 0.25 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%planes : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xi8>) {
  ^bb0(%v: f32, %o: i8):
    %d = arith.divf %v, %s : f32
    %i = arith.fptosi %d : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x4x8x8xi8>
  return %q : tensor<1x4x8x8xi8>
}
