// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 k-tile=64 n-block=32 stride2-windows=false}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-choose-layouts{matmuls=false panel=0},mlc-loop-convolutions-as-contractions,mlc-cpu-tile-and-vectorize{m-tile=4 parallel=true}))' | FileCheck %s --check-prefix=PAR

// A 64x136 * 136x50 matmul: k is split 64 + 64 + 8 (it is more than twice
// the k-tile) and n 32 + 18 at the cache
// level; register tiles are 4x16 with k innermost, the accumulator lives in
// vector registers across the k loop and each step is four multiply-adds
// (contractible into FMAs) of one broadcast element of A times a 16-wide
// row of B. The 2 columns left over
// become 4x2 tiles.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.matmul
// CHECK: scf.for %[[M:.*]] = %c0 to %c64 step %c4
// CHECK: scf.for %[[N:.*]] = %c0 to %c32 step %c16
// CHECK: %[[ACC:.*]] = vector.transfer_read %{{.*}}[%[[M]], %[[N]]]{{.*}} vector<4x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK-COUNT-4: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4x16xf32>, tensor<64x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK: iter_args(%{{.*}}) -> (vector<4x2xf32>)
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<2xf32>
// Its 0.9 MFLOP are below the threads' threshold (1 MFLOP).
// PAR-LABEL: func.func @matmul
// PAR-NOT: scf.forall
func.func @matmul(%a: tensor<64x136xf32>, %b: tensor<136x50xf32>) -> tensor<64x50xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x50xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x50xf32>) -> tensor<64x50xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x136xf32>, tensor<136x50xf32>) outs(%f : tensor<64x50xf32>) -> tensor<64x50xf32>
  return %r : tensor<64x50xf32>
}


// -----

// Rows known only at run time: a loop over pieces of one register tile's
// 4 rows, then one over the rows left, a row at a time; every piece is a
// static tile whose accumulators stay in registers across the depth.
// CHECK-LABEL: func.func @rows_of_run_time_count
// CHECK: %[[REST:.*]] = arith.remui %{{.*}}, %c4
// CHECK: %[[WHOLE:.*]] = arith.subi %{{.*}}, %[[REST]]
// CHECK: scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK: vector.transfer_write {{.*}} : vector<4x16xf32>, tensor<4x16xf32>
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<16xf32>)
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x16xf32>
// CHECK-NOT: linalg.matmul
// On threads, the rows (of a nominal large count) go in chunks.
// PAR-LABEL: func.func @rows_of_run_time_count
// PAR: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (8)
func.func @rows_of_run_time_count(%a: tensor<?x64xf32>, %b: tensor<64x16xf32>) -> tensor<?x16xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x16xf32>) outs(%f : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// An NCHW convolution becomes an im2col gather (a 6-D copy whose innermost
// loop runs along output columns, left for mlc-cpu-lower-copies to turn into
// row copies; its rows padded to 208 floats) and a vectorized contraction
// over it.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: tensor.empty() : tensor<1x576x208xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x64x16x16xf32>) outs(%{{.*}} : tensor<1x64x3x3x14x14xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<1x64x3x3x14x14xf32> into tensor<1x576x196xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<32x64x3x3xf32> into tensor<32x576xf32>
// CHECK: iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK-COUNT-4: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<1x32x14x14xf32>
// Its 196 output pixels have no even column chunk: its 32 output channels
// split into chunks of 4 rows for threads, each one whole 4-row register
// tile.
// PAR-LABEL: func.func @conv
// PAR: scf.forall (%{{.*}}) = (0) to (32) step (4)
func.func @conv(%x: tensor<1x64x16x16xf32>, %w: tensor<32x64x3x3xf32>) -> tensor<1x32x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x16x16xf32>, tensor<32x64x3x3xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  return %r : tensor<1x32x14x14xf32>
}

// -----

// A 1x1 convolution with unit strides reads its input in place.
// CHECK-LABEL: func.func @pointwise
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x64x16x16xf32> into tensor<1x64x256xf32>
// CHECK-NOT: linalg.generic
// CHECK: arith.addf {{.*}} fastmath<contract>
func.func @pointwise(%x: tensor<1x64x16x16xf32>, %w: tensor<32x64x1x1xf32>) -> tensor<1x32x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x16x16xf32>, tensor<32x64x1x1xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}

// -----

// With `parallel`, a large contraction is split into chunks of 128
// columns that threads take (an scf.forall the pipeline maps to OpenMP).
// PAR-LABEL: func.func @large
// PAR: scf.forall (%{{.*}}) = (0) to (256) step (128) shared_outs
// PAR: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// PAR: tensor.parallel_insert_slice {{.*}} [256, 128] [1, 1] : tensor<256x128xf32> into tensor<256x256xf32>
func.func @large(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// Integer contractions are left to the scalar lowering.
// CHECK-LABEL: func.func @integer
// CHECK: linalg.matmul
// CHECK-NOT: vector.
func.func @integer(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>, %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xi32>, tensor<8x8xi32>) outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}

// -----

// Depthwise convolutions (and pooling) iterate (n, c, oh, kh, kw, ow)
// instead of upstream's (n, oh, ow, c, kh, kw). With unit strides, each
// tile of 4 output rows by 16 columns is a block of accumulators kept in
// vector registers across the 3x3 window (four independent sums, not one
// chain of dependent adds): per step four row loads of the input times one
// broadcast weight. The accumulators start as the init's value (zero) in
// the registers, and the fill of the whole result is gone.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for {{.*}} to %c16 step %c4
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK: vector.transfer_read %{{.*}} : tensor<1x32x18x18xf32>, vector<4x16xf32>
// CHECK: vector.broadcast {{.*}} : f32 to vector<4x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4x16xf32>, tensor<1x32x16x16xf32>
func.func @depthwise(%x: tensor<1x32x18x18xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x18x18xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}

// -----

// With column stride 2 a row is not a vector load: the window is split into
// its two column phases (taps 0 and 2 read the even input columns, tap 1
// the odd ones) at unit stride, and both vectorize; the row stride stays in
// the index. The phases are the input's 28 whole column pairs transposed,
// [.., 28, 2] -> [.., 2, 28], in register tiles, plus the last (57th)
// column after the even ones.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-LABEL: func.func @depthwise_strided
// CHECK: %[[PAIRS:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 32, 57, 56] [1, 1, 1, 1]
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[PAIRS]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 32, 57, 28, 2]
// CHECK: %[[PHASES:.*]] = tensor.empty() : tensor<1x32x57x2x29xf32>
// CHECK: tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 0] [1, 32, 57, 2, 28]
// CHECK: vector.transfer_write {{.*}} : vector<2x8xf32>, tensor<1x32x57x2x28xf32>
// CHECK: %[[WHOLE:.*]] = tensor.insert_slice %{{.*}} into %[[PHASES]][0, 0, 0, 0, 0] [1, 32, 57, 2, 28]
// CHECK: %[[LAST:.*]] = tensor.extract_slice %arg0[0, 0, 0, 56] [1, 32, 57, 1]
// CHECK: %[[LASTCOL:.*]] = tensor.expand_shape %[[LAST]]
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[LASTCOL]] into %[[WHOLE]][0, 0, 0, 0, 28] [1, 32, 57, 1, 1]
// CHECK: tensor.extract_slice %arg1[0, 0, 0] [32, 3, 2] [1, 1, 2]
// CHECK: %[[FIRST:.*]] = scf.for
// CHECK: affine.apply #[[ROW]]
// CHECK: vector.transfer_read %[[ALL]]{{.*}} : tensor<1x32x57x2x29xf32>, vector<16xf32>
// CHECK: tensor.extract_slice %arg1[0, 0, 1] [32, 3, 1] [1, 1, 2]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[FIRST]])
// CHECK: vector.transfer_read %[[ALL]]{{.*}} : tensor<1x32x57x2x29xf32>, vector<16xf32>
func.func @depthwise_strided(%x: tensor<1x32x57x57xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x28x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x32x57x57xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %r : tensor<1x32x28x28xf32>
}

// -----

// A padded input (5x5, stride 2, padding 2, as EfficientNet's) is not
// copied into a padded tensor first: the phases are built from the
// unpadded input. Padded phase 0 (padded columns 0, 2, ...) is the
// input's even columns shifted right by one column of padding, phase 1 its
// odd columns, likewise shifted; each row holds [pad | 8 even | pad | pad |
// 8 odd | pad] (blocks of pitch 10 after one column of slack), the
// transpose writes the blocks, fills write the padded rows and the
// columns around the blocks, and the windows read phase 0 from column 0
// (10 columns) and phase 1 from column 10 (9 columns).
// CHECK-LABEL: func.func @depthwise_strided_padded
// CHECK-NOT: tensor.pad
// CHECK: %[[ROWS:.*]] = tensor.empty() : tensor<1x32x20x21xf32>
// CHECK: linalg.fill {{.*}} -> tensor<1x32x2x21xf32>
// CHECK: linalg.fill {{.*}} -> tensor<1x32x2x21xf32>
// CHECK-COUNT-4: linalg.fill {{.*}} -> tensor<1x32x16x1xf32>
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %{{.*}}[0, 0, 2, 1] [1, 32, 16, 20] [1, 1, 1, 1]
// CHECK: %[[PITCHED:.*]] = tensor.expand_shape %[[INTERIOR]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 32, 16, 2, 10]
// CHECK: tensor.extract_slice %[[PITCHED]][0, 0, 0, 0, 0] [1, 32, 16, 2, 8]
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 32, 16, 8, 2]
// CHECK: vector.transfer_write {{.*}} : vector<2x8xf32>, tensor<1x32x16x2x8xf32>
// CHECK: %[[PHASES:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 1] [1, 32, 16, 20] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %arg1[0, 0, 0] [32, 5, 3] [1, 1, 2]
// CHECK: vector.transfer_read %[[PHASES]]{{.*}} : tensor<1x32x20x21xf32>, vector<8xf32>
// CHECK: tensor.extract_slice %arg1[0, 0, 1] [32, 5, 2] [1, 1, 2]
// CHECK: vector.transfer_read %[[PHASES]]{{.*}} : tensor<1x32x20x21xf32>, vector<8xf32>
func.func @depthwise_strided_padded(%x: tensor<1x32x16x16xf32>, %w: tensor<32x5x5xf32>) -> tensor<1x32x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x20x20xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x32x20x20xf32>, tensor<32x5x5xf32>) outs(%f : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// -----

// Max pooling 3x3 with stride 2 (SqueezeNet's): the same phases, each a
// vector max over its taps. The rows are read with a stride (one row per
// tile), but the taps still loop inside the column loop, so that the row's
// maximum stays in a register across them.
// CHECK-LABEL: func.func @max_pool_strided
// CHECK: tensor<1x16x55x2x28xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
func.func @max_pool_strided(%x: tensor<1x16x55x55xf32>) -> tensor<1x16x27x27xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x27x27xf32>
  %f = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x16x27x27xf32>) -> tensor<1x16x27x27xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x55x55xf32>, tensor<3x3xf32>) outs(%f : tensor<1x16x27x27xf32>) -> tensor<1x16x27x27xf32>
  return %r : tensor<1x16x27x27xf32>
}

// -----

// 25 columns: one 16-wide register tile and 9 left over, which become an
// 8-wide tile (one vector register per row) and a 1-wide one instead of a
// 9-wide vector put together lane by lane. Both write the matrix directly,
// so that their accumulators are carried through the reduction loop in
// registers, not stored into a 4x9 slice and reloaded every step.
// CHECK-LABEL: func.func @remainder
// CHECK-NOT: vector<4x9xf32>
// CHECK: vector<4x16xf32>
// CHECK-NOT: vector<4x9xf32>
// CHECK-NOT: tensor<4x9xf32>
// CHECK: scf.for {{.*}} -> (vector<4x8xf32>, vector<4x1xf32>)
// CHECK-NOT: tensor<4x9xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4x1xf32>, tensor<64x25xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4x8xf32>, tensor<64x25xf32>
// CHECK-NOT: vector<4x9xf32>
// CHECK: return
func.func @remainder(%a: tensor<64x96xf32>, %b: tensor<96x25xf32>) -> tensor<64x25xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x25xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x25xf32>) -> tensor<64x25xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x25xf32>) outs(%f : tensor<64x25xf32>) -> tensor<64x25xf32>
  return %r : tensor<64x25xf32>
}

// -----

// Threads split a matrix-vector product whose 1000 columns no multiple of
// the register tile divides into two chunks of 500 (each ends in a
// narrower tile).
// CHECK-LABEL: func.func @matvec
// PAR-LABEL: func.func @matvec
// PAR: scf.forall (%{{.*}}) = (0) to (1000) step (500)
func.func @matvec(%a: tensor<1x1024xf32>, %b: tensor<1024x1000xf32>) -> tensor<1x1000xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1024xf32>, tensor<1024x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

// -----

// A reduction into a small result splits by its iterations (a global
// average pool's 96 channels of 784 pixels), and a loop nest whose outer
// loop does not split evenly (3 channels) splits the next one. When none
// splits into 8, 4 or 2 (3 x 111 x 111), the outermost that splits into at
// least 9 chunks does (37 chunks of 3 rows).
// CHECK-LABEL: func.func @pool_and_copy
// PAR-LABEL: func.func @pool_and_copy
// PAR: scf.forall (%{{.*}}) = (0) to (96) step (12)
// PAR: scf.forall (%{{.*}}) = (0) to (224) step (28)
// PAR: scf.forall (%{{.*}}) = (0) to (111) step (3)
func.func @pool_and_copy(%x: tensor<1x96x784xf32>, %img: tensor<1x3x224x224xf32>, %odd: tensor<1x3x111x111xf32>) -> (tensor<1x96xf32>, tensor<1x3x224x224xf32>, tensor<1x3x111x111xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x96xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x96xf32>) -> tensor<1x96xf32>
  %s = linalg.reduce ins(%x : tensor<1x96x784xf32>) outs(%f : tensor<1x96xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %e2 = tensor.empty() : tensor<1x3x224x224xf32>
  %c = linalg.copy ins(%img : tensor<1x3x224x224xf32>) outs(%e2 : tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf32>
  %e3 = tensor.empty() : tensor<1x3x111x111xf32>
  %c3 = linalg.copy ins(%odd : tensor<1x3x111x111xf32>) outs(%e3 : tensor<1x3x111x111xf32>) -> tensor<1x3x111x111xf32>
  return %s, %c, %c3 : tensor<1x96xf32>, tensor<1x3x224x224xf32>, tensor<1x3x111x111xf32>
}

// -----

// Loop nests of fewer than 16384 iterations stay on the calling thread: an
// OpenMP fork and join costs a few microseconds, more than a ReLU over 8192
// floats takes. One of 16384 iterations splits.
// PAR-LABEL: func.func @small_nests
// PAR-NOT: scf.forall {{.*}} -> (tensor<1x8x
// PAR: scf.forall (%{{.*}}) = (0) to (16) step (2) {{.*}} -> (tensor<1x16x1024xf32>)
func.func @small_nests(%a: tensor<1x8x32x32xf32>, %b: tensor<1x16x32x32xf32>) -> (tensor<1x8x32x32xf32>, tensor<1x16x32x32xf32>) {
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<1x8x32x32xf32>
  %ra = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x8x32x32xf32>) outs(%ea : tensor<1x8x32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x32x32xf32>
  %eb = tensor.empty() : tensor<1x16x32x32xf32>
  %rb = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<1x16x32x32xf32>) outs(%eb : tensor<1x16x32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x16x32x32xf32>
  return %ra, %rb : tensor<1x8x32x32xf32>, tensor<1x16x32x32xf32>
}
