// RUN: mlc-opt %s --split-input-file --mlc-host-outline-kernels | FileCheck %s --check-prefix=OUTLINE
// RUN: mlc-opt %s --split-input-file --mlc-host-byte-weights | FileCheck %s --check-prefix=BYTES

// Each top-level loop nest of a model function moves into a private
// noinline function named after its ONNX node; constants are re-created
// inside, buffers and globals (the weights) become arguments.
// OUTLINE-LABEL: func.func private @model_k0_Relu_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// OUTLINE-SAME: llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]
// OUTLINE: arith.constant 0.000000e+00 : f32
// OUTLINE: linalg.generic
// OUTLINE-LABEL: func.func private @model_k1_Add_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// OUTLINE-NOT: memref.get_global
// OUTLINE-LABEL: func.func @model(
// OUTLINE: %[[W:.*]] = memref.get_global @w : memref<4xf32>
// OUTLINE: call @model_k0_Relu_0(%arg0, %arg1)
// OUTLINE: call @model_k1_Add_0(%arg1, %[[W]], %arg2)
// OUTLINE-NOT: linalg.generic

// Blob-backed constant globals become byte arrays read through views;
// dense ones stay.
// BYTES: memref.global "private" constant @w : memref<16xi8> = dense_resource<w_blob> {alignment = 64 : i64}
// BYTES: memref.global "private" constant @small : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// BYTES: %[[RAW:.*]] = memref.get_global @w : memref<16xi8>
// BYTES: memref.view %[[RAW]][%{{.*}}][] : memref<16xi8> to memref<4xf32>
#id = affine_map<(d0) -> (d0)>
memref.global "private" constant @w : memref<4xf32> = dense_resource<w_blob>
memref.global "private" constant @small : memref<2xf32> = dense<[1.0, 2.0]>
func.func @model(%x: memref<4xf32>, %t: memref<4xf32>, %y: memref<4xf32>) attributes {mlc_loop.signature = "{}"} {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } loc("Relu_0")
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%t, %w : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } loc("Add_0")
  return
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// A strided view of a buffer (the first 49 columns of rows padded to 64)
// cannot cross the entry as a bare pointer: the kernel takes the buffer and
// makes the view again inside.
// OUTLINE-LABEL: func.func private @padded_k0_Relu_1(%{{.*}}: memref<4x64xf32>, %{{.*}}: memref<4x49xf32>)
// OUTLINE: %[[VIEW:.*]] = memref.subview %{{.*}}[0, 0] [4, 49] [1, 1] : memref<4x64xf32> to memref<4x49xf32, strided<[64, 1]>>
// OUTLINE: linalg.generic {{.*}} ins(%[[VIEW]] : memref<4x49xf32, strided<[64, 1]>>)
// OUTLINE-LABEL: func.func @padded(
// OUTLINE: call @padded_k0_Relu_1(%arg0, %arg1)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @padded(%x: memref<4x64xf32>, %y: memref<4x49xf32>) attributes {mlc_loop.signature = "{}"} {
  %zero = arith.constant 0.0 : f32
  %v = memref.subview %x[0, 0] [4, 49] [1, 1] : memref<4x64xf32> to memref<4x49xf32, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v : memref<4x49xf32, strided<[64, 1]>>) outs(%y : memref<4x49xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } loc("Relu_1")
  return
}

// -----

// A bufferized loop over a buffer of run-time size yields the buffer it was
// given: the kernel takes the buffer (its data and size), returns nothing,
// and what read the loop's result reads the buffer.
// OUTLINE-LABEL: func.func private @rows_k0_Relu_2(%{{.*}}: index, %{{.*}}: memref<0xf32>, %{{.*}}: index)
// OUTLINE: scf.for
// OUTLINE: return{{$}}
// OUTLINE-LABEL: func.func @rows(
// OUTLINE: call @rows_k0_Relu_2(%{{.*}}) : (index, memref<0xf32>, index) -> ()
// OUTLINE: memref.copy %arg0, %arg1
func.func @rows(%x: memref<?xf32>, %y: memref<?xf32>) attributes {mlc_loop.signature = "{}"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %x) -> (memref<?xf32>) {
    %v = memref.load %b[%i] : memref<?xf32>
    %m = arith.maximumf %v, %zero : f32
    memref.store %m, %b[%i] : memref<?xf32>
    scf.yield %b : memref<?xf32>
  } loc("Relu_2")
  memref.copy %r, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Repeated blocks (two layers, each its own weights) give identical
// kernels but for their names: one function serves both calls.
// OUTLINE-LABEL: func.func private @layers_k0_Add_1(
// OUTLINE-NOT: func.func private @layers_k1_Add_2
// OUTLINE-LABEL: func.func @layers(
// OUTLINE: %[[W1:.*]] = memref.get_global @w1
// OUTLINE: %[[W2:.*]] = memref.get_global @w2
// OUTLINE: call @layers_k0_Add_1(%arg0, %[[W1]], %arg1)
// OUTLINE: call @layers_k0_Add_1(%arg1, %[[W2]], %arg2)
#id2 = affine_map<(d0) -> (d0)>
memref.global "private" constant @w1 : memref<4xf32> = dense<1.0>
memref.global "private" constant @w2 : memref<4xf32> = dense<2.0>
func.func @layers(%x: memref<4xf32>, %t: memref<4xf32>, %y: memref<4xf32>) attributes {mlc_loop.signature = "{}"} {
  %w1 = memref.get_global @w1 : memref<4xf32>
  %w2 = memref.get_global @w2 : memref<4xf32>
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel"]} ins(%x, %w1 : memref<4xf32>, memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } loc("Add_1")
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel"]} ins(%t, %w2 : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } loc("Add_2")
  return
}
