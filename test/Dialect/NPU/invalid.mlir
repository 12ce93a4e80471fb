// RUN: mlc-opt %s -split-input-file -verify-diagnostics

func.func @matmul_k(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'mlc_npu.matmul' op lhs 'tensor<16x32xf32>' and rhs 'tensor<16x16xf32>' disagree on the contracting dim}}
  %r = mlc_npu.matmul "edge" ins(%a, %b : tensor<16x32xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) {tile_rows = 16, tile_cols = 16} -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @matmul_init(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x16xf32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op init 'memref<16x16xf32>' is not [M, N] of lhs 'memref<16x32xf32>' and rhs 'memref<32x8xf32>'}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x16xf32>) {tile_rows = 16, tile_cols = 16}
  return
}

// -----

func.func @matmul_dynamic(%a: memref<?x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op operands must be statically shaped matrices}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<?x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>) {tile_rows = 16, tile_cols = 16}
  return
}

// -----

func.func @matmul_tiles(%a: memref<16x32xf32>, %b: memref<32x8xf32>, %c: memref<16x8xf32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op tiles must be positive, not 0x16}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xf32>, memref<32x8xf32>) outs(%c : memref<16x8xf32>) {tile_rows = 0, tile_cols = 16}
  return
}

// -----

func.func @requantize_types(%a: memref<16x32xi8>, %b: memref<32x8xi8>, %c: memref<16x8xi32>, %columns: memref<8x2xi32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op requantizes int8 operands into an i8 init that it overwrites, with a column table of [N = 8, 2] i32}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xi8>, memref<32x8xi8>) requantize(%columns : memref<8x2xi32>) outs(%c : memref<16x8xi32>) {tile_rows = 16, tile_cols = 8}
  return
}

// -----

func.func @relu_alone(%a: memref<16x32xi8>, %b: memref<32x8xi8>, %c: memref<16x8xi32>) {
  // expected-error @+1 {{'mlc_npu.matmul' op has a relu or zero point only when it requantizes}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xi8>, memref<32x8xi8>) outs(%c : memref<16x8xi32>) {tile_rows = 16, tile_cols = 8, relu}
  return
}

// -----

func.func @launch_offsets(%a: memref<16xf32>) {
  // expected-error @+1 {{'mlc_npu.launch' op needs one DRAM offset and one write flag per buffer}}
  mlc_npu.launch @p(%a) {dram_offsets = array<i64>, writes = array<i1: true>} : memref<16xf32>
  return
}

// -----

func.func @launch_layout(%a: memref<16xf32, strided<[2]>>) {
  // expected-error @+1 {{'mlc_npu.launch' op buffer 'memref<16xf32, strided<[2]>>' must have a static shape and the identity layout}}
  mlc_npu.launch @p(%a) {dram_offsets = array<i64: 0>, writes = array<i1: true>} : memref<16xf32, strided<[2]>>
  return
}

// -----

// expected-error @+1 {{'tpu' is neither a built-in NPU (edge, large) nor a readable file}}
mlc_npu.program "tpu" {
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': destination [262144, +16) is outside the scratchpad (262144 bytes)}}
  mlc_npu.load {element_type = i8, dram = 0, local = 262144, rows = 1, cols = 16, dram_stride = 16}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': the matrix unit of 'edge' has no bf16 -> f32}}
  mlc_npu.mma {element_type = bf16, a = 0, b = 64, c = 0, rows = 4, cols = 4, depth = 4}
}

// -----

mlc_npu.program "large" {
  // expected-error @+1 {{waits for token 16, not one of 0-15}}
  mlc_npu.mma {element_type = bf16, a = 0, b = 64, c = 0, rows = 4, cols = 4, depth = 4, wait = [16]}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{element type 'f64' is not one of i8, i32, bf16, f16, f32}}
  mlc_npu.store {element_type = f64, dram = 0, local = 0, rows = 1, cols = 1, dram_stride = 8}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': requantize goes from int32 or f32 to int8}}
  mlc_npu.vector {op = "requantize", element_type = bf16, result_type = i8, source = 0, result = 64, rows = 1, cols = 4}
}

// -----

mlc_npu.program "edge" {
  // expected-error @+1 {{on 'edge': dequantize goes from int8 to f32}}
  mlc_npu.vector {op = "dequantize", element_type = i8, result_type = bf16, source = 0, result = 64, rows = 1, cols = 4}
}

// -----

func.func @add_shapes(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>, %c: tensor<4x8xi8>) -> tensor<4x8xi8> {
  // expected-error @+1 {{operands must be i8 arrays of one static shape, not 'tensor<8x4xi8>'}}
  %r = mlc_npu.quantized_add "edge" ins(%a, %b : tensor<4x8xi8>, tensor<8x4xi8>) outs(%c : tensor<4x8xi8>) {lhs_scale = 0.5 : f32, lhs_zero_point = 0 : i32, rhs_scale = 0.5 : f32, rhs_zero_point = 0 : i32, result_scale = 2.0 : f32, zero_point = 0 : i32, tile = 32} -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

func.func @add_scale(%a: tensor<4x8xi8>, %b: tensor<4x8xi8>, %c: tensor<4x8xi8>) -> tensor<4x8xi8> {
  // expected-error @+1 {{scales must be positive and finite, not 0}}
  %r = mlc_npu.quantized_add "edge" ins(%a, %b : tensor<4x8xi8>, tensor<4x8xi8>) outs(%c : tensor<4x8xi8>) {lhs_scale = 0.5 : f32, lhs_zero_point = 0 : i32, rhs_scale = 0.0 : f32, rhs_zero_point = 0 : i32, result_scale = 2.0 : f32, zero_point = 0 : i32, tile = 32} -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

func.func @shifts(%a: memref<17x8xbf16>, %b: memref<16x16xbf16>, %c: memref<16x16xbf16>) {
  // expected-error @+1 {{row shifts must be one or more, none negative, without a batch}}
  mlc_npu.matmul "large" ins(%a, %b : memref<17x8xbf16>, memref<16x16xbf16>) outs(%c : memref<16x16xbf16>) {tile_rows = 16, tile_cols = 16, row_shifts = array<i64: 0, -1>}
  return
}

// -----

func.func @shift_rows(%a: memref<16x8xbf16>, %b: memref<16x16xbf16>, %c: memref<16x16xbf16>) {
  // expected-error @+1 {{init 'memref<16x16xbf16>' is not [M, N] of lhs}}
  mlc_npu.matmul "large" ins(%a, %b : memref<16x8xbf16>, memref<16x16xbf16>) outs(%c : memref<16x16xbf16>) {tile_rows = 16, tile_cols = 16, row_shifts = array<i64: 0, 1>}
  return
}

// -----

func.func @pool_channels(%x: tensor<1x4x8x8xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{input and init must be static NCHW arrays of one element type, images and channels, not 'tensor<1x4x8x8xf32>' and 'tensor<1x2x4x4xf32>'}}
  %r = mlc_npu.pool "large" "max" ins(%x : tensor<1x4x8x8xf32>) outs(%y : tensor<1x2x4x4xf32>) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, tile = 4} -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

func.func @pool_window(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32> {
  // expected-error @+1 {{a window of 2 every 2 from 0 does not give 5 outputs within 8}}
  %r = mlc_npu.pool "large" "max" ins(%x : tensor<1x4x8x8xf32>) outs(%y : tensor<1x4x5x4xf32>) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, tile = 4} -> tensor<1x4x5x4xf32>
  return %r : tensor<1x4x5x4xf32>
}

// -----

func.func @pool_padding(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{a window of 2 every 2 from -2 does not give 4 outputs within 8}}
  %r = mlc_npu.pool "large" "max" ins(%x : tensor<1x4x8x8xf32>) outs(%y : tensor<1x4x4x4xf32>) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 2>, tile = 4} -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

mlc_npu.program "large" {
  // expected-error @+1 {{only a pooling has a window}}
  mlc_npu.vector {op = "copy", element_type = f32, result_type = f32, source = 0, result = 64, rows = 1, cols = 8, window = array<i64: 2, 2>}
}

// -----

mlc_npu.program "large" {
  // expected-error @+1 {{window_strides must be two integers in [0, 255]}}
  mlc_npu.vector {op = "max_pool", element_type = f32, result_type = f32, source = 0, result = 4096, rows = 1, cols = 8, plane_rows = 8, window = array<i64: 2, 2>, window_strides = array<i64: 256, 2>, window_pads = array<i64: 0, 0>, result_plane = array<i64: 4, 4>}
}

// -----

mlc_npu.program "large" {
  // expected-error @+1 {{on 'large': a pooling window of 2x2 lies outside the 8x8 plane}}
  mlc_npu.vector {op = "max_pool", element_type = f32, result_type = f32, source = 0, result = 4096, rows = 1, cols = 8, plane_rows = 8, window = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, window_pads = array<i64: 0, 0>, result_plane = array<i64: 5, 4>}
}

// -----

func.func @pool_kind(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{kind must be "max" or "average", not "min"}}
  %r = mlc_npu.pool "large" "min" ins(%x : tensor<1x4x8x8xf32>) outs(%y : tensor<1x4x4x4xf32>) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, tile = 4} -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

func.func @pool_average_int(%x: tensor<1x4x8x8xi8>, %y: tensor<1x4x4x4xi8>) -> tensor<1x4x4x4xi8> {
  // expected-error @+1 {{averages floats, not 'i8'}}
  %r = mlc_npu.pool "large" "average" ins(%x : tensor<1x4x8x8xi8>) outs(%y : tensor<1x4x4x4xi8>) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, tile = 4} -> tensor<1x4x4x4xi8>
  return %r : tensor<1x4x4x4xi8>
}
