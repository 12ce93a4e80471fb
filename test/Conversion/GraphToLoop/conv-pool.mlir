// RUN: mlc-opt %s -mlc-convert-graph-to-loop | FileCheck %s

// The maps of @conv3d_grouped below (printed at the top of the module).
// CHECK-DAG: #[[GIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 + d7 * 2, d4 * 2 + d8, d5 + d9)>
// CHECK-DAG: #[[GW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>

// CHECK-LABEL: func @conv_bias
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 3, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %arg1 : tensor<1x3x38x38xf32>, tensor<8x3x7x7xf32>)
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @conv_bias(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x7x7xf32>, %b: tensor<8xf32>) -> tensor<1x8x16x16xf32> {
  %0 = mlc_graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<8x3x7x7xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// A 1-D convolution runs as a 2-D one over a height of 1.
// CHECK-LABEL: func @conv1d
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [1, 3, 1, 20]
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1], [2, 3]] output_shape [8, 3, 1, 5]
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 2] high[0, 0, 0, 2]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<1x3x1x24xf32>, tensor<8x3x1x5xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x1x10xf32> into tensor<1x8x10xf32>
func.func @conv1d(%x: tensor<1x3x20xf32>, %w: tensor<8x3x5xf32>) -> tensor<1x8x10xf32> {
  %0 = mlc_graph.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 2, 2>} : (tensor<1x3x20xf32>, tensor<8x3x5xf32>) -> tensor<1x8x10xf32>
  return %0 : tensor<1x8x10xf32>
}

// An ungrouped 3-D convolution is upstream's NCDHW named op; the bias is
// added per channel.
// CHECK-LABEL: func @conv3d
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1]
// CHECK: linalg.conv_3d_ncdhw_fcdhw
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x4x4x4xf32> {
  %0 = mlc_graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4x4xf32>
  return %0 : tensor<1x3x4x4x4xf32>
}

// A grouped 3-D convolution is a generic over the grouped views: input
// [N, G, C/G, D, H, W], weights [G, M/G, C/G, kd, kh, kw], result
// [N, G, M/G, OD, OH, OW], with the window offset by strides and dilations.
// CHECK-LABEL: func @conv3d_grouped
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4], [5]] output_shape [2, 3, 2, 3, 3, 3] : tensor<6x2x3x3x3xf32> into tensor<2x3x2x3x3x3xf32>
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3], [4], [5]] {{.*}} into tensor<1x2x2x6x7x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[GIN]], #[[GW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4], [5]] : tensor<1x2x3x2x3x3xf32> into tensor<1x6x2x3x3xf32>
func.func @conv3d_grouped(%x: tensor<1x4x6x7x5xf32>, %w: tensor<6x2x3x3x3xf32>) -> tensor<1x6x2x3x3xf32> {
  %0 = mlc_graph.conv %x, %w {group = 2 : i64, strides = array<i64: 1, 2, 1>, dilations = array<i64: 2, 1, 1>} : (tensor<1x4x6x7x5xf32>, tensor<6x2x3x3x3xf32>) -> tensor<1x6x2x3x3xf32>
  return %0 : tensor<1x6x2x3x3xf32>
}

// CHECK-LABEL: func @depthwise_and_grouped
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK: tensor.expand_shape
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape
func.func @depthwise_and_grouped(%x: tensor<1x4x8x8xf32>, %dw: tensor<4x1x3x3xf32>, %gw: tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x6x6x6xf32>) {
  %0 = mlc_graph.conv %x, %dw {group = 4 : i64, auto_pad = #mlc_graph.auto_pad<same_upper>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = mlc_graph.conv %x, %gw {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<1x6x6x6xf32>
}

// Max pooling pads with -inf; ceil_mode adds end padding for the last window.
// CHECK-LABEL: func @pools
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.pooling_nchw_max
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.divf
func.func @pools(%x: tensor<1x2x9x9xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x9x9xf32>) {
  %0 = mlc_graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x2x9x9xf32>) -> tensor<1x2x5x5xf32>
  %1 = mlc_graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x9xf32>) -> tensor<1x2x9x9xf32>
  return %0, %1 : tensor<1x2x5x5xf32>, tensor<1x2x9x9xf32>
}

// CHECK-LABEL: func @norm_and_global_pool
// CHECK: math.sqrt
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @norm_and_global_pool(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) -> tensor<1x2x1x1xf32> {
  %0 = mlc_graph.batch_norm %x, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = mlc_graph.global_average_pool %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  return %1 : tensor<1x2x1x1xf32>
}

// -----

// LRN: squares summed over a channel window of a zero-padded input, then
// x / (bias + alpha/size * sum)^beta.
// CHECK-LABEL: func @lrn
// CHECK: tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 1, 0, 0]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: math.powf
// CHECK: arith.divf
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = mlc_graph.lrn %x {size = 3 : i64} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}

// -----

// 1-D (and 3-D) pooling is one generic over (n, c, outputs, window); the
// window operand only gives the reduction loops their extents.
// CHECK-LABEL: func @max_pool_1d
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[WIN]] : tensor<1x3x9xf32>, tensor<3xf32>)
// CHECK: arith.maximumf
func.func @max_pool_1d(%x: tensor<1x3x9xf32>) -> tensor<1x3x4xf32> {
  %0 = mlc_graph.max_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<1x3x9xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// MaxPool's indices: running maximum and its flat input index, replaced
// only by a strictly greater element.
// CHECK-LABEL: func @max_pool_indices
// CHECK: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.select
func.func @max_pool_indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  %0 = mlc_graph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64>
  return %0 : tensor<1x1x2x2xi64>
}

// A window that covers the whole input (a squeeze-excitation block's 1x1
// convolution on pooled channels) is a matrix product with the weights
// transposed to [C*kh*kw, M], whose columns vectorize.
// CHECK-LABEL: func @one_pixel
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : tensor<1x16x1x1xf32> into tensor<1x16xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<8x16x1x1xf32>) outs(%{{.*}} : tensor<16x1x1x8xf32>) permutation = [1, 2, 3, 0]
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1, 2], [3]] : tensor<16x1x1x8xf32> into tensor<16x8xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<1x16xf32>, tensor<16x8xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0], [1, 2, 3]] output_shape [1, 8, 1, 1]
// CHECK-NOT: linalg.conv_2d
func.func @one_pixel(%x: tensor<1x16x1x1xf32>, %w: tensor<8x16x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x1x1xf32> {
  %0 = mlc_graph.conv %x, %w, %b : (tensor<1x16x1x1xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// Batch normalization of any rank from 2 (after Flatten or Gemm): the
// per-channel factor and shift are computed once over the channels, then
// each element is one FMA.
// CHECK-LABEL: func @batch_norm_rank2
// CHECK: %[[F:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: math.sqrt
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[F]]#0, %[[F]]#1 : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: math.sqrt
// CHECK: math.fma
func.func @batch_norm_rank2(%x: tensor<8x16xf32>, %p: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = mlc_graph.batch_norm %x, %p, %p, %p, %p : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// GlobalAveragePool of a 3-D map: the mean over its three spatial axes.
// CHECK-LABEL: func @global_average_pool_3d
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: arith.divf
// CHECK-NOT: mlc_graph.global_average_pool
func.func @global_average_pool_3d(%x: tensor<1x6x3x5x2xf32>) -> tensor<1x6x1x1x1xf32> {
  %0 = mlc_graph.global_average_pool %x : (tensor<1x6x3x5x2xf32>) -> tensor<1x6x1x1x1xf32>
  return %0 : tensor<1x6x1x1x1xf32>
}

// The same pattern for a length known at run time (an STFT over audio of
// any length): the output length max(floor((L + 4 - 5 + 2) / 2), 0) (no
// select, which value-bounds queries would branch on) and one check, named
// after the node, that the padded input holds a window.
// CHECK-LABEL: func @conv1d_run_time_length
// CHECK: %[[L:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [1, 3, 1, %[[L]]]
// CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %c5
// CHECK: %[[FITS:.*]] = arith.cmpi sge, %[[SPAN]], %c0
// CHECK: %[[NEXT:.*]] = arith.addi %[[SPAN]], %c2
// CHECK: %[[WINDOWS:.*]] = arith.floordivsi %[[NEXT]], %c2
// CHECK: %[[OUT:.*]] = arith.maxsi %[[WINDOWS]], %c0
// CHECK: cf.assert %[[FITS]], "Conv node 'stft': the input is smaller than the (dilated) window"
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 2] high[0, 0, 0, 2]
// CHECK: %[[ACC:.*]] = tensor.empty(%[[OUT]]) : tensor<1x8x1x?xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %{{.*}} : tensor<1x3x1x?xf32>, tensor<8x3x1x5xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x1x?xf32> into tensor<1x8x?xf32>
func.func @conv1d_run_time_length(%x: tensor<1x3x?xf32>, %w: tensor<8x3x5xf32>) -> tensor<1x8x?xf32> {
  %0 = mlc_graph.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 2, 2>} : (tensor<1x3x?xf32>, tensor<8x3x5xf32>) -> tensor<1x8x?xf32> loc("stft")
  return %0 : tensor<1x8x?xf32>
}

// SAME_UPPER over sizes known at run time: pads computed when the model
// runs (total = max(0, (ceil(H / 2) - 1) * 2 + 3 - H), half before), no
// check (every size has an output). ceil_mode pooling grows the end pad
// so that the last window fits.
// CHECK-LABEL: func @same_and_ceil_run_time
// CHECK: arith.ceildivsi
// CHECK-NOT: cf.assert
// CHECK: tensor.pad %arg0 low[0, 0, %{{.*}}, %{{.*}}] high[0, 0, %{{.*}}, %{{.*}}]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: arith.ceildivsi
// CHECK: cf.assert %{{.*}}, "MaxPool node 'pool': the input is smaller than the (dilated) window"
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, %{{.*}}, %{{.*}}]
// CHECK: linalg.pooling_nchw_max
func.func @same_and_ceil_run_time(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = mlc_graph.conv %x, %w {strides = array<i64: 2, 2>, auto_pad = #mlc_graph.auto_pad<same_upper>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> loc("conv")
  %1 = mlc_graph.max_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> loc("pool")
  return %1 : tensor<?x4x?x?xf32>
}

// A static output size over an input size known at run time (a model whose
// declared output shape is static): the computed size is checked against
// it, and the input is padded to hold the output's windows, so that a run
// whose check fails reads nothing past the input.
// CHECK-LABEL: func @static_output_of_run_time_input
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %{{.*}}, %c6
// CHECK: %[[REACH:.*]] = arith.subi %c8, %[[H]]
// CHECK: %[[HIGH:.*]] = arith.maxsi %[[REACH]], %c0{{.*}}
// CHECK: cf.assert %{{.*}}, "MaxPool node 'declared': the input is smaller than the (dilated) window, or its size does not give the output's"
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, %[[HIGH]], 0]
// CHECK: linalg.pooling_nchw_max {{.*}} outs(%{{.*}} : tensor<1x2x6x4xf32>)
func.func @static_output_of_run_time_input(%x: tensor<1x2x?x4xf32>) -> tensor<1x2x6x4xf32> {
  %0 = mlc_graph.max_pool %x {kernel_shape = array<i64: 3, 1>} : (tensor<1x2x?x4xf32>) -> tensor<1x2x6x4xf32> loc("declared")
  return %0 : tensor<1x2x6x4xf32>
}
