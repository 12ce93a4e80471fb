// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=large print-placement=true}))' | FileCheck %s
// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=edge print-placement=true}))' | FileCheck %s --check-prefix=EDGE
// RUN: echo '{"tiny": "npu", "big": "cpu"}' > %t.json
// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=large placement-file=%t.json print-placement=true}))' | FileCheck %s --check-prefix=FORCED
// RUN: echo '{"big": "npu"}' > %t.edge.json
// RUN: not mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=edge placement-file=%t.edge.json}))' 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: echo '{"big": "gpu"}' > %t.bad.json
// RUN: not mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=large placement-file=%t.bad.json}))' 2>&1 | FileCheck %s --check-prefix=BAD

// The placement asks the NPU lowering for tiles and cycles and compares the
// time with the CPU's. A large f32 matmul goes to the NPU with its constant
// weights rounded to bf16 at compile time, its activations rounded by the
// CPU, and its zero fill dropped.

// CHECK: placement: big: npu (tiles {{[0-9]+}}x{{[0-9]+}} {{(by K chunks of [0-9]+ )?}}x{{[234]}}, ~{{[0-9]+}} cycles = {{.*}} us on 'large'; CPU ~{{.*}} us)
// CHECK: placement: biased: npu
// CHECK: placement: tiny: cpu (tiles 1x1 x3, ~{{[0-9]+}} cycles
// CHECK: placement: dynamic: cpu (not a statically shaped matmul on tensors)

// CHECK-LABEL: func @big
// CHECK-DAG: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<512x256xbf16>
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<128x256xf32>
// CHECK-DAG: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<128x512xf32>) outs({{.*}} : tensor<128x512xbf16>)
// CHECK: mlc_npu.matmul "large" ins(%[[X]], %[[W]] : tensor<128x512xbf16>, tensor<512x256xbf16>) outs(%[[E]] : tensor<128x256xf32>) {buffers = {{[234]}} : i64, tile_cols = {{[0-9]+}} : i64, {{(tile_depth = [0-9]+ : i64, )?}}tile_rows = {{[0-9]+}} : i64}
// CHECK-NOT: linalg.matmul

// EDGE: placement: big: cpu ('edge' has no matrix unit for f32 x f32 -> f32
// EDGE: placement: int8: npu (tiles {{[0-9]+}}x{{[0-9]+}} {{(by K chunks of [0-9]+ )?}}x{{[234]}}
// EDGE-LABEL: func @int8
// EDGE: mlc_npu.matmul "edge" ins(%arg0, %arg1 : tensor<128x512xi8>, tensor<512x256xi8>)

// FORCED: placement: big: cpu (placement file; tiles
// FORCED: placement: tiny: npu (placement file; tiles 1x1 x3

// REFUSED: error: loc("big"): the placement file puts node 'big' on the NPU, which cannot run it: 'edge' has no matrix unit for f32 x f32 -> f32

// BAD: error: placement file {{.*}}: node 'big' must map to "cpu" or "npu"

func.func @big(%x: tensor<128x512xf32>) -> tensor<128x256xf32> {
  %w = arith.constant dense<0.5> : tensor<512x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<128x512xf32>, tensor<512x256xf32>) outs(%init : tensor<128x256xf32>) -> tensor<128x256xf32> loc("big")
  return %y : tensor<128x256xf32>
}

// A Gemm's bias in the init: the NPU accumulates onto it.
// CHECK-LABEL: func @biased
// CHECK: mlc_npu.matmul "large" ins(%{{.*}}, %{{.*}} : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%arg2 : tensor<256x256xf32>) {accumulate,
func.func @biased(%x: tensor<256x256xf32>, %w: tensor<256x256xf32>, %bias: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<256x256xf32>, tensor<256x256xf32>) outs(%bias : tensor<256x256xf32>) -> tensor<256x256xf32> loc("biased")
  return %y : tensor<256x256xf32>
}

// Too small to be worth the trip: the DMA's latency alone outlasts the CPU.
// CHECK-LABEL: func @tiny
// CHECK: linalg.matmul
func.func @tiny(%x: tensor<1x1xf32>, %w: tensor<1x1xf32>, %init: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<1x1xf32>, tensor<1x1xf32>) outs(%init : tensor<1x1xf32>) -> tensor<1x1xf32> loc("tiny")
  return %y : tensor<1x1xf32>
}

// CHECK-LABEL: func @dynamic
// CHECK: linalg.matmul
func.func @dynamic(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>, %init: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32> loc("dynamic")
  return %y : tensor<?x64xf32>
}

func.func @int8(%x: tensor<128x512xi8>, %w: tensor<512x256xi8>) -> tensor<128x256xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<128x256xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<128x256xi32>) -> tensor<128x256xi32>
  %y = linalg.matmul ins(%x, %w : tensor<128x512xi8>, tensor<512x256xi8>) outs(%init : tensor<128x256xi32>) -> tensor<128x256xi32> loc("int8")
  return %y : tensor<128x256xi32>
}

// A default for the nodes not named: everything the NPU can run goes there,
// what it cannot stays on the CPU without an error.
// RUN: echo '{"*": "npu"}' > %t.all.json
// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=large placement-file=%t.all.json print-placement=true}))' | FileCheck %s --check-prefix=ALL
// ALL: placement: big: npu (placement file;
// ALL: placement: biased: npu (placement file;
// ALL: placement: tiny: npu (placement file;
// ALL: placement: dynamic: cpu (not a statically shaped matmul on tensors)

// Attention's batched matmuls (N-D MatMul's contraction generic) go to the
// NPU as one stream over the batch, the batch dims collapsed, both operands
// rounded to bf16 by the CPU.
// RUN: mlc-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(func.func(mlc-npu-place-kernels{npu=large print-placement=true}))' | FileCheck %s --check-prefix=BATCH
// BATCH: placement: attention: npu (tiles 128x
// BATCH-LABEL: func @attention
// BATCH: %[[Q:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x4x128x64xf32>) outs(%{{.*}} : tensor<1x4x128x64xbf16>)
// BATCH: %[[K:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<1x4x64x128xf32>) outs(%{{.*}} : tensor<1x4x64x128xbf16>)
// BATCH: %[[A:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x128x64xbf16> into tensor<4x128x64xbf16>
// BATCH: %[[B:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x64x128xbf16> into tensor<4x64x128xbf16>
// BATCH: %[[R:.*]] = mlc_npu.matmul "large" ins(%[[A]], %[[B]] : tensor<4x128x64xbf16>, tensor<4x64x128xbf16>) outs(%{{.*}} : tensor<4x128x128xf32>)
// BATCH: tensor.expand_shape %[[R]] {{\[}}[0, 1], [2], [3]]
#qk_a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#qk_b = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#qk_c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @attention(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x64x128xf32>) -> tensor<1x4x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x128x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x128x128xf32>) -> tensor<1x4x128x128xf32>
  %s = linalg.generic {indexing_maps = [#qk_a, #qk_b, #qk_c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x4x128x64xf32>, tensor<1x4x64x128xf32>) outs(%init : tensor<1x4x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x4x128x128xf32> loc("attention")
  return %s : tensor<1x4x128x128xf32>
}
