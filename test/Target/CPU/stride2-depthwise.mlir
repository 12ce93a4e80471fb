// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=8 parallel=true}))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=8 parallel=false}))' | FileCheck %s --check-prefix=SERIAL

// A stride-2 depthwise convolution becomes loops over its channel planes:
// per block of 8 output columns, taps 0 and 1 are the even and odd lanes of
// two masked loads of the unpadded input (the zero padding is read through
// the masks, not copied), tap 2 the even lanes of two loads two columns on.
// CHECK-LABEL: func.func @dw3x3s2
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%[[P:.*]]) in (32) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x32x28x28xf32>)
// CHECK: tensor.extract_slice %arg0[%{{.*}}, %{{.*}}, 0, 0] [1, 1, 56, 56] [1, 1, 1, 1] : tensor<1x32x56x56xf32> to tensor<56x56xf32>
// CHECK: scf.for %[[OH:.*]] = %c0 to %c28 step %c1
// CHECK: scf.for %[[OB:.*]] = %c0 to %c28 step %c8
// CHECK: scf.if
// CHECK-COUNT-4: vector.transfer_read {{.*}}, %{{.*}} {in_bounds = [true]} : tensor<56x56xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK: vector.transfer_write
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// SERIAL-LABEL: func.func @dw3x3s2
// SERIAL-NOT: scf.forall
// SERIAL: scf.for {{.*}} = %c0 to %c32 step %c1
// SERIAL: tensor.insert_slice
func.func @dw3x3s2(%x: tensor<1x32x56x56xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x32x56x56xf32> to tensor<1x32x58x58xf32>
  %e = tensor.empty() : tensor<1x32x28x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x32x58x58xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %r : tensor<1x32x28x28xf32>
}

// -----

// A padding that is not zero stays a copy, and the convolution keeps the
// column phases.
// CHECK-LABEL: func.func @nonzero_pad
// CHECK-NOT: scf.forall {{.*}} in (32)
// CHECK-NOT: vector.shuffle
func.func @nonzero_pad(%x: tensor<1x32x56x56xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x32x56x56xf32> to tensor<1x32x58x58xf32>
  %e = tensor.empty() : tensor<1x32x28x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x32x58x58xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %r : tensor<1x32x28x28xf32>
}

// -----

// Output rows narrower than a vector (7 columns, 8 lanes) are one masked
// block per row.
// CHECK-LABEL: func.func @narrow
// CHECK: scf.forall (%{{.*}}) in (64)
// CHECK: scf.for %{{.*}} = %c0 to %c7 step %c1
// CHECK: vector.shuffle
// CHECK: vector.transfer_write {{.*}} : vector<8xf32>, tensor<7x7xf32>
func.func @narrow(%x: tensor<1x64x14x14xf32>, %w: tensor<64x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x64x14x14xf32> to tensor<1x64x16x16xf32>
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x64x16x16xf32>, tensor<64x3x3xf32>) outs(%f : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// -----

// A window that reads another's result (ShuffleNet's stem: a stride-2 max
// pool, then a stride-2 depthwise convolution of its output) is matched
// after the first is lowered, and reads the loops that replace it.
// CHECK-LABEL: func.func @pool_then_depthwise
// CHECK: %[[POOL:.*]] = scf.forall {{.*}} -> (tensor<1x16x28x28xf32>)
// CHECK: scf.forall {{.*}} -> (tensor<1x16x14x14xf32>)
// CHECK: tensor.extract_slice %[[POOL]][%{{.*}}, %{{.*}}, 0, 0] [1, 1, 28, 28]
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @pool_then_depthwise(%x: tensor<1x16x56x56xf32>, %w: tensor<16x3x3xf32>) -> tensor<1x16x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x56x56xf32> to tensor<1x16x58x58xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e0 = tensor.empty() : tensor<1x16x28x28xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%px, %win : tensor<1x16x58x58xf32>, tensor<3x3xf32>) outs(%f0 : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %pp = tensor.pad %pool low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x16x28x28xf32> to tensor<1x16x30x30xf32>
  %e1 = tensor.empty() : tensor<1x16x14x14xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%pp, %w : tensor<1x16x30x30xf32>, tensor<16x3x3xf32>) outs(%f1 : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  return %r : tensor<1x16x14x14xf32>
}
