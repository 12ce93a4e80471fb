// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=8 parallel=true}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=8 parallel=true stride2-windows=false}))' | FileCheck %s --check-prefix=PHASES

// A 3x3 stride-2 max pool becomes loops over its channel planes: per block
// of 8 output columns, the three window rows (clamped into the image) are
// combined first in three masked loads of the unpadded input (the -inf
// padding is read through the masks), then taps 0 and 1 are the even and
// odd lanes of the first two and tap 2 the even lanes one lane on. The
// result's -inf start is not read back.
// CHECK-LABEL: func.func @pool3x3s2
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x16x28x28xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c28 step %c1
// CHECK-COUNT-3: arith.minsi
// CHECK: scf.for %{{.*}} = %c0 to %c28 step %c8
// CHECK-COUNT-3: vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<56x56xf32>, vector<8xf32>
// CHECK-COUNT-2: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<56x56xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8] : vector<8xf32>, vector<8xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: vector.transfer_write
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.pooling_nchw_max
// PHASES-LABEL: func.func @pool3x3s2
// PHASES-NOT: vector.shuffle
func.func @pool3x3s2(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x28x28xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x56x56xf32> to tensor<1x16x58x58xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x16x28x28xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x16x58x58xf32>, tensor<3x3xf32>) outs(%f : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  return %r : tensor<1x16x28x28xf32>
}

// -----

// A 2x2 window reads two column vectors per block and no third, and a
// result that does not start at -inf is read back and combined.
// CHECK-LABEL: func.func @pool2x2s2_init
// CHECK: scf.forall
// CHECK-COUNT-4: vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<16x32xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15]
// CHECK-NOT: vector.shuffle
// CHECK: vector.transfer_read {{.*}} : tensor<8x16xf32>, vector<8xf32>
// CHECK: vector.transfer_write
func.func @pool2x2s2_init(%x: tensor<2x16x16x32xf32>, %init: tensor<2x16x8x16xf32>) -> tensor<2x16x8x16xf32> {
  %win = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<2x16x16x32xf32>, tensor<2x2xf32>) outs(%init : tensor<2x16x8x16xf32>) -> tensor<2x16x8x16xf32>
  return %r : tensor<2x16x8x16xf32>
}

// -----

// A padding that is not -inf stays a copy, and so does a window wider than
// three columns; both keep the column phases.
// CHECK-LABEL: func.func @zero_pad
// CHECK-NOT: vector.shuffle
// CHECK-LABEL: func.func @wide
// CHECK-NOT: vector.shuffle
func.func @zero_pad(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x16x56x56xf32> to tensor<1x16x58x58xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x16x28x28xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x16x58x58xf32>, tensor<3x3xf32>) outs(%f : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  return %r : tensor<1x16x28x28xf32>
}
func.func @wide(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x26x26xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<5x5xf32>
  %e = tensor.empty() : tensor<1x16x26x26xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x16x26x26xf32>) -> tensor<1x16x26x26xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x16x56x56xf32>, tensor<5x5xf32>) outs(%f : tensor<1x16x26x26xf32>) -> tensor<1x16x26x26xf32>
  return %r : tensor<1x16x26x26xf32>
}

// -----

// A window one column wide (kernel 2x1, strides 1x2) takes the even lanes
// only: its odd lanes are the columns between the windows.
// CHECK-LABEL: func.func @pool2x1s12
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK-NOT: vector.shuffle
// CHECK: vector.transfer_write
func.func @pool2x1s12(%x: tensor<2x16x16x32xf32>, %init: tensor<2x16x15x16xf32>) -> tensor<2x16x15x16xf32> {
  %win = tensor.empty() : tensor<2x1xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %win : tensor<2x16x16x32xf32>, tensor<2x1xf32>) outs(%init : tensor<2x16x15x16xf32>) -> tensor<2x16x15x16xf32>
  return %r : tensor<2x16x15x16xf32>
}
