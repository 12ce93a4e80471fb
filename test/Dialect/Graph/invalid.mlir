// RUN: mlc-opt %s -split-input-file -verify-diagnostics

func.func @broadcast_mismatch(%a: tensor<3x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{'mlc_graph.add' op shapes 3x4 and 5 do not broadcast (dim 1: 4 vs 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.add %a, %b : (tensor<3x4xf32>, tensor<5xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @element_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'mlc_graph.mul' op operand element types differ ('f32' vs 'f16')}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.mul %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @result_conflicts(%a: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.relu %a : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @float_only(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = mlc_graph.exp %a : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'mlc_graph.matmul' op contracting dims differ: lhs 2x3 has K = 3, rhs 4x5 has K = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'mlc_graph.matmul' op operands must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.matmul %a, %b : (tensor<f32>, tensor<4x5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'mlc_graph.gemm' op expects A of rank 2, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.gemm %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) {
  // expected-error @+2 {{'mlc_graph.gemm' op C of shape 3x5 does not broadcast to 2x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.gemm %a, %b, %c : (tensor<2x4xf32>, tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'mlc_graph.conv' op input has 3 channels but weight 4x2x3x3 with group = 1 expects 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{'mlc_graph.conv' op output channels 3 are not divisible by group = 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'mlc_graph.conv' op expects 4 pads (begins then ends), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv %x, %w {pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'mlc_graph.conv' op spatial dim 1: kernel size, stride and dilation must be positive (got 3, 0, 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv %x, %w {strides = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{'mlc_graph.conv' op expects bias of size 4 (the channel count), got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x3x2x2xf32>) {
  // expected-error @+2 {{'mlc_graph.max_pool' op spatial dim 0: window of size 3 does not fit the padded input of size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.max_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'mlc_graph.average_pool' op expects an input of rank >= 3 (N, C, spatial...), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.average_pool %x {kernel_shape = array<i64: 2>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pool_auto_pad_and_pads(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{'mlc_graph.max_pool' op has both explicit pads and auto_pad}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, auto_pad = #mlc_graph.auto_pad<valid>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @batch_norm_params(%x: tensor<2x8x4x4xf32>, %p: tensor<8xf32>, %q: tensor<7xf32>) {
  // expected-error @+2 {{'mlc_graph.batch_norm' op expects mean of size 8 (the channel count), got 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.batch_norm %x, %p, %p, %q, %p : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<7xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x7x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{'mlc_graph.layer_norm' op parameter of shape 8 does not broadcast to the normalized shape 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.layer_norm %x, %g : (tensor<2x7x16xf32>, tensor<8xf32>) -> tensor<2x7x16xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mlc_graph.softmax' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_repeated_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mlc_graph.reduce_sum' op axis -1 is repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.reduce_sum %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  %s = mlc_graph.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+2 {{'mlc_graph.reshape' op cannot reshape 2x3 (6 elements) to 4x2 (8 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_two_minus_one(%x: tensor<2x3xf32>) {
  %s = mlc_graph.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+2 {{'mlc_graph.reshape' op shape -1x-1 has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_shape_rank(%x: tensor<2x3xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+2 {{'mlc_graph.reshape' op expects shape to be 1-D, got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.reshape %x, %s : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mlc_graph.transpose' op perm [0, 0, 1] is not a permutation of [0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.transpose %x {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @squeeze_non_one(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mlc_graph.squeeze' op cannot squeeze dim 1 of size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.squeeze %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{'mlc_graph.concat' op input 1 has size 4 in dim 0, expected 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+2 {{'mlc_graph.concat' op expects at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<8xf32>) {
  %s = mlc_graph.constant dense<[0]> : tensor<1xi64>
  %z = mlc_graph.constant dense<[0]> : tensor<1xi64>
  // expected-error @+2 {{'mlc_graph.slice' op step 0 is 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.slice %x, %s, %s steps %z : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'mlc_graph.gather' op axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.gather %x, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>, %p: tensor<3xi64>) {
  // expected-error @+2 {{'mlc_graph.pad' op expects 4 pads, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.pad %x, %p : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @pad_crop(%x: tensor<2x3xf32>) {
  %p = mlc_graph.constant dense<[0, -2, 0, -2]> : tensor<4xi64>
  // expected-error @+2 {{'mlc_graph.pad' op pads crop dim 1 of size 3 below zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x?xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3xf32>) {
  %s = mlc_graph.constant dense<[2, 4]> : tensor<2xi64>
  // expected-error @+2 {{'mlc_graph.expand' op shapes 3 and 2x4 do not broadcast (dim 1: 3 vs 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.expand %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @clip_bound(%x: tensor<4xf32>, %lo: tensor<2xf32>) {
  // expected-error @+1 {{'mlc_graph.clip' op expects min to be a scalar, got 'tensor<2xf32>'}}
  %0 = mlc_graph.clip %x min %lo : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mlc_graph.cast' op requires the same shape for all operands and results}}
  %0 = mlc_graph.cast %x : (tensor<4xf32>) -> tensor<5xi32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "mlc_graph.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<3xi64>
  return
}

// -----

func.func @axes_twice(%x: tensor<1x3xf32>, %axes: tensor<1xi64>) {
  // expected-error @+1 {{'mlc_graph.squeeze' op takes axes as an attribute or an operand, not both}}
  %0 = mlc_graph.squeeze %x axes %axes {axes = array<i64: 0>} : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @unsqueeze_without_axes(%x: tensor<3xf32>) {
  // expected-error @+1 {{'mlc_graph.unsqueeze' op needs axes}}
  %0 = mlc_graph.unsqueeze %x : (tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @axes_of_rank_two(%x: tensor<2x3xf32>, %axes: tensor<1x1xi64>) {
  // expected-error @+1 {{'mlc_graph.reduce_sum' op expects 1-D dynamic_axes, got rank 2}}
  %0 = mlc_graph.reduce_sum %x axes %axes : (tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @sequence_of_mixed(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{'mlc_graph.sequence_construct' op tensors of 'f32' and 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mlc_graph.sequence_construct %a, %b : (tensor<3xf32>, tensor<3xi64>) -> !mlc_graph.sequence<tensor<3xf32>>
  return
}

// -----

func.func @optional_mismatch(%a: tensor<3xf32>) {
  // expected-error @+1 {{'mlc_graph.optional' op input 'tensor<3xf32>' does not fit '!mlc_graph.optional<tensor<3xi64>>'}}
  %0 = mlc_graph.optional %a : tensor<3xf32> : !mlc_graph.optional<tensor<3xi64>>
  return
}

// -----

// The importer's attributes are declared: ONNX names are strings on
// function arguments and results, the opset an integer on the function.
// expected-error @+1 {{'func.func' op 'mlc_graph.name' must be a string}}
func.func @name_type(%x: tensor<4xf32> {mlc_graph.name = 3}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mlc_graph.name' belongs on a function argument or result, not on an op}}
func.func @name_on_op() attributes {mlc_graph.name = "f"} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mlc_graph.onnx_opset' must be an integer}}
func.func @opset_type() attributes {mlc_graph.onnx_opset = "13"} {
  return
}
