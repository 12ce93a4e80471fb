// RUN: mlc-opt %s --mlc-npu-lower-kernels -split-input-file -verify-diagnostics

func.func @too_big(%a: memref<4096x32xi8>, %b: memref<32x4096xi8>, %c: memref<4096x4096xi32>) {
  // expected-error @+1 {{the NPU cannot run this matmul: tiles of 4096x4096 do not fit 'edge'}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<4096x32xi8>, memref<32x4096xi8>) outs(%c : memref<4096x4096xi32>) {tile_rows = 4096, tile_cols = 4096}
  return
}

// -----

func.func @tensors(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  // expected-error @+1 {{is still on tensors: bufferize first}}
  %r = mlc_npu.matmul "edge" ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>) outs(%c : tensor<16x16xi32>) {tile_rows = 16, tile_cols = 16} -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

func.func @strided(%a: memref<16x32xi8, strided<[64, 1]>>, %b: memref<32x16xi8>, %c: memref<16x16xi32>) {
  // expected-error @+1 {{buffer 'memref<16x32xi8, strided<[64, 1]>>' is not contiguous: the NPU's DMA needs the identity layout}}
  mlc_npu.matmul "edge" ins(%a, %b : memref<16x32xi8, strided<[64, 1]>>, memref<32x16xi8>) outs(%c : memref<16x16xi32>) {tile_rows = 16, tile_cols = 16}
  return
}
