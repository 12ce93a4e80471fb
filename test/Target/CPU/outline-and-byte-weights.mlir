// RUN: mlc-opt %s --split-input-file --mlc-cpu-outline-kernels | FileCheck %s --check-prefix=OUTLINE
// RUN: mlc-opt %s --split-input-file --mlc-cpu-byte-weights | FileCheck %s --check-prefix=BYTES

// Each top-level loop nest of a model function moves into a private
// noinline function named after its ONNX node; constants and globals are
// re-created inside, buffers become arguments.
// OUTLINE-LABEL: func.func private @model_k0_Relu_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// OUTLINE-SAME: llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]
// OUTLINE: arith.constant 0.000000e+00 : f32
// OUTLINE: linalg.generic
// OUTLINE-LABEL: func.func private @model_k1_Add_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// OUTLINE: memref.get_global @w : memref<4xf32>
// OUTLINE-LABEL: func.func @model(
// OUTLINE: call @model_k0_Relu_0(%arg0, %arg1)
// OUTLINE: call @model_k1_Add_0(%arg1, %arg2)
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
func.func @model(%x: memref<4xf32>, %t: memref<4xf32>, %y: memref<4xf32>) attributes {mlc.signature = "{}"} {
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
