// RUN: mlc-opt %s -split-input-file -mlc-convert-graph-to-loop | FileCheck %s

// Nearest, 2x up, asymmetric/floor: each output row and column reads the
// input index of a compile-time table; N and C read through.
// CHECK-LABEL: func @nearest_up
// CHECK-DAG: arith.constant dense<{{\[}}[0], [0], [1], [1]]> : tensor<4x1xi32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x4x4xf32>)
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK-COUNT-2: tensor.extract %{{.*}} : tensor<4x1xi32>
// CHECK: tensor.extract %arg0[%[[N]], %[[C]], %{{.*}}, %{{.*}}] : tensor<1x1x2x2xf32>
// CHECK-NOT: arith.mulf
func.func @nearest_up(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = mlc_graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = "mlc_graph.resize"(%x, %s) <{coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor", operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Linear, half_pixel, 2 -> 4 along the last axis only: source coordinates
// -0.25, 0.25, 0.75, 1.25 give taps (0, 0), (0, 1), (0, 1), (1, 1) (edges
// clamped) with weights (0.25, 0.75), (0.75, 0.25), ...; the other axes read
// through, so each output sums two taps.
// CHECK-LABEL: func @linear_width
// CHECK-DAG: arith.constant dense<{{\[}}[0, 0], [0, 1], [0, 1], [1, 1]]> : tensor<4x2xi32>
// CHECK-DAG: arith.constant dense<{{\[}}[2.500000e-01, 7.500000e-01], [7.500000e-01, 2.500000e-01], [2.500000e-01, 7.500000e-01], [7.500000e-01, 2.500000e-01]]> : tensor<4x2xf32>
// CHECK: linalg.generic
// CHECK-COUNT-2: tensor.extract %arg0
// CHECK-NOT: tensor.extract %arg0
// CHECK: linalg.yield
func.func @linear_width(%x: tensor<1x3x5x2xf32>) -> tensor<1x3x5x4xf32> {
  %sizes = mlc_graph.constant dense<[1, 3, 5, 4]> : tensor<4xi64>
  %0 = "mlc_graph.resize"(%x, %sizes) <{mode = "linear", operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (tensor<1x3x5x2xf32>, tensor<4xi64>) -> tensor<1x3x5x4xf32>
  return %0 : tensor<1x3x5x4xf32>
}

// -----

// ONNX's Resize node tests, with their scales/sizes/roi inputs made
// constants (as exporters write them), against the stored outputs: every
// mode, coordinate transformation and rounding they cover.
// RUN: %python %S/../../../utils/onnx_conformance.py mlc-compile mlc-run --filter test_resize_ --freeze-inputs --min-passed 23 | FileCheck %s --check-prefix=NODE
// RUN: %python %S/../../../utils/onnx_conformance.py mlc-compile mlc-run --filter test_upsample_ --freeze-inputs --min-passed 1 | FileCheck %s --check-prefix=NODE
// NODE: failed: 0, not-lowered: 0, not-imported: 0, crashed: 0
