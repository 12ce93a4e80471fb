// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// RUN: mlc-opt %s --mlir-print-op-generic | mlc-opt | FileCheck %s

// Round trip of every graph op, in the custom and the generic form.

// CHECK-LABEL: func @constants
func.func @constants() -> (tensor<2xi64>, tensor<2x2xf32>) {
  // CHECK: mlc_graph.constant dense<[1, -1]> : tensor<2xi64>
  %0 = mlc_graph.constant dense<[1, -1]> : tensor<2xi64>
  // CHECK: mlc_graph.constant dense_resource<weights> : tensor<2x2xf32>
  %1 = mlc_graph.constant dense_resource<weights> : tensor<2x2xf32>
  return %0, %1 : tensor<2xi64>, tensor<2x2xf32>
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x?xf32>, %i: tensor<4xi32>, %b: tensor<3xi1>) {
  // CHECK: mlc_graph.identity %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = mlc_graph.identity %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.neg %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = mlc_graph.neg %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: mlc_graph.abs
  %2 = mlc_graph.abs %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.exp
  %3 = mlc_graph.exp %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.log
  %4 = mlc_graph.log %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.sqrt
  %5 = mlc_graph.sqrt %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.reciprocal
  %6 = mlc_graph.reciprocal %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.tanh
  %7 = mlc_graph.tanh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.sigmoid
  %8 = mlc_graph.sigmoid %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.relu %{{.*}} : (tensor<2x?xf32>) -> tensor<2x3xf32>
  %9 = mlc_graph.relu %x : (tensor<2x?xf32>) -> tensor<2x3xf32>
  // CHECK: mlc_graph.erf
  %10 = mlc_graph.erf %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.floor
  %11 = mlc_graph.floor %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.ceil
  %12 = mlc_graph.ceil %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.round
  %13 = mlc_graph.round %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.sin
  %14 = mlc_graph.sin %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.cos
  %15 = mlc_graph.cos %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.softplus
  %16 = mlc_graph.softplus %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.hard_swish
  %17 = mlc_graph.hard_swish %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.not %{{.*}} : (tensor<3xi1>) -> tensor<3xi1>
  %18 = mlc_graph.not %b : (tensor<3xi1>) -> tensor<3xi1>
  // CHECK: mlc_graph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32}
  %19 = mlc_graph.leaky_relu %x {alpha = 0.1 : f32} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.elu
  %20 = mlc_graph.elu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.selu
  %21 = mlc_graph.selu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.hard_sigmoid
  %22 = mlc_graph.hard_sigmoid %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.gelu %{{.*}} {approximate = true}
  %23 = mlc_graph.gelu %x {approximate = true} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: mlc_graph.cast %{{.*}} : (tensor<4xi32>) -> tensor<4xf16>
  %24 = mlc_graph.cast %i : (tensor<4xi32>) -> tensor<4xf16>
  return
}

// CHECK-LABEL: func @clip
func.func @clip(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) {
  // CHECK: mlc_graph.clip %{{.*}} min %{{.*}} max %{{.*}} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %0 = mlc_graph.clip %x min %lo max %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: mlc_graph.clip %{{.*}} max %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = mlc_graph.clip %x max %hi : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<3x1xf32>, %b: tensor<4xf32>, %p: tensor<3x4xi1>) {
  // CHECK: mlc_graph.add %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %0 = mlc_graph.add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.sub
  %1 = mlc_graph.sub %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.mul
  %2 = mlc_graph.mul %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.div
  %3 = mlc_graph.div %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.pow
  %4 = mlc_graph.pow %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.max
  %5 = mlc_graph.max %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.min
  %6 = mlc_graph.min %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.mod
  %7 = mlc_graph.mod %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: mlc_graph.equal %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %8 = mlc_graph.equal %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.less
  %9 = mlc_graph.less %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.less_or_equal
  %10 = mlc_graph.less_or_equal %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.greater
  %11 = mlc_graph.greater %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.greater_or_equal
  %12 = mlc_graph.greater_or_equal %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.and
  %13 = mlc_graph.and %p, %p : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.or
  %14 = mlc_graph.or %p, %p : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.xor
  %15 = mlc_graph.xor %p, %p : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  // CHECK: mlc_graph.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x4xi1>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %16 = mlc_graph.where %p, %a, %b : (tensor<3x4xi1>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// CHECK-LABEL: func @linalg
func.func @linalg(%a: tensor<2x5x3x4xf32>, %b: tensor<4x6xf32>, %v: tensor<4xf32>,
                  %m: tensor<3x4xf32>, %n: tensor<5x4xf32>, %c: tensor<5xf32>) {
  // CHECK: mlc_graph.matmul %{{.*}}, %{{.*}} : (tensor<2x5x3x4xf32>, tensor<4x6xf32>) -> tensor<2x5x3x6xf32>
  %0 = mlc_graph.matmul %a, %b : (tensor<2x5x3x4xf32>, tensor<4x6xf32>) -> tensor<2x5x3x6xf32>
  // CHECK: mlc_graph.matmul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
  %1 = mlc_graph.matmul %v, %b : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
  // CHECK: mlc_graph.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, trans_b = true}
  %2 = mlc_graph.gemm %m, %n, %c {alpha = 0.5 : f32, trans_b = true} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  // CHECK: mlc_graph.gemm %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %3 = mlc_graph.gemm %m, %b : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  return
}

// CHECK-LABEL: func @conv_pool
func.func @conv_pool(%x: tensor<1x8x9x9xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>) {
  // CHECK: mlc_graph.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  // CHECK-SAME: -> tensor<1x16x4x4xf32>
  %0 = mlc_graph.conv %x, %w, %b {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  // CHECK: mlc_graph.conv {{.*}}auto_pad = #mlc_graph.auto_pad<same_upper>
  %1 = mlc_graph.conv %x, %w {group = 2 : i64, auto_pad = #mlc_graph.auto_pad<same_upper>} : (tensor<1x8x9x9xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x9x9xf32>
  // CHECK: mlc_graph.max_pool %{{.*}} {ceil_mode = true, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  %2 = mlc_graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  // CHECK: mlc_graph.average_pool %{{.*}} {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
  %3 = mlc_graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: mlc_graph.global_average_pool %{{.*}} : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  %4 = mlc_graph.global_average_pool %x : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  // CHECK: mlc_graph.global_max_pool
  %5 = mlc_graph.global_max_pool %x : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  return
}

// CHECK-LABEL: func @normalization
func.func @normalization(%x: tensor<2x8x4x4xf32>, %p: tensor<8xf32>, %t: tensor<2x7x16xf32>, %g: tensor<16xf32>) {
  // CHECK: mlc_graph.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32}
  %0 = mlc_graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: mlc_graph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x7x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x7x16xf32>
  %1 = mlc_graph.layer_norm %t, %g, %g : (tensor<2x7x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x7x16xf32>
  // CHECK: mlc_graph.softmax %{{.*}} {axis = 1 : i64}
  %2 = mlc_graph.softmax %t {axis = 1 : i64} : (tensor<2x7x16xf32>) -> tensor<2x7x16xf32>
  // CHECK: mlc_graph.log_softmax %{{.*}} : (tensor<2x7x16xf32>) -> tensor<2x7x16xf32>
  %3 = mlc_graph.log_softmax %t : (tensor<2x7x16xf32>) -> tensor<2x7x16xf32>
  return
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) {
  // CHECK: mlc_graph.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = mlc_graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: mlc_graph.reduce_mean %{{.*}} {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %1 = mlc_graph.reduce_mean %x {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  // CHECK: mlc_graph.reduce_max %{{.*}} {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = mlc_graph.reduce_max %x {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: mlc_graph.reduce_min
  %3 = mlc_graph.reduce_min %x : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: mlc_graph.reduce_prod
  %4 = mlc_graph.reduce_prod %x {noop_with_empty_axes = true} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: mlc_graph.reduce_l2
  %5 = mlc_graph.reduce_l2 %x {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: mlc_graph.reduce_log_sum_exp
  %6 = mlc_graph.reduce_log_sum_exp %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: mlc_graph.arg_max %{{.*}} {axis = 2 : i64, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %7 = mlc_graph.arg_max %x {axis = 2 : i64, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  // CHECK: mlc_graph.arg_min %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  %8 = mlc_graph.arg_min %x : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  return
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<2x3x4xf32>, %s: tensor<2xi64>, %i: tensor<5xi64>, %d: tensor<?xi64>) {
  // CHECK: mlc_graph.reshape %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %0 = mlc_graph.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: mlc_graph.flatten %{{.*}} {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = mlc_graph.flatten %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: mlc_graph.unsqueeze %{{.*}} {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
  %2 = mlc_graph.unsqueeze %x {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
  // CHECK: mlc_graph.squeeze %{{.*}} {axes = array<i64: 0>} : (tensor<1x2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %3 = mlc_graph.squeeze %2 {axes = array<i64: 0>} : (tensor<1x2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  // CHECK: mlc_graph.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %4 = mlc_graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: mlc_graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %5 = mlc_graph.concat %x, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  // CHECK: mlc_graph.slice %{{.*}}, %{{.*}}, %{{.*}} axes %{{.*}} steps %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
  %6 = mlc_graph.slice %x, %s, %s axes %s steps %s : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
  // CHECK: mlc_graph.slice %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
  %7 = mlc_graph.slice %x, %s, %s : (tensor<2x3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
  // CHECK: mlc_graph.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  %8 = mlc_graph.gather %x, %i {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<2x5x4xf32>
  // CHECK: mlc_graph.pad %{{.*}}, %{{.*}} {mode = #mlc_graph.pad_mode<reflect>} : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<?x?x?xf32>
  %9 = mlc_graph.pad %x, %d {mode = #mlc_graph.pad_mode<reflect>} : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<?x?x?xf32>
  %zero = mlc_graph.constant dense<0.0> : tensor<f32>
  // CHECK: mlc_graph.pad %{{.*}}, %{{.*}} value %{{.*}} : (tensor<2x3x4xf32>, tensor<?xi64>, tensor<f32>) -> tensor<?x?x?xf32>
  %10 = mlc_graph.pad %x, %d value %zero : (tensor<2x3x4xf32>, tensor<?xi64>, tensor<f32>) -> tensor<?x?x?xf32>
  // CHECK: mlc_graph.expand %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<*xf32>
  %11 = mlc_graph.expand %x, %d : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK: mlc_graph.shape %{{.*}} {start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %12 = mlc_graph.shape %x {start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
