// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-integer-contractions{panel=2}))' | FileCheck %s --check-prefix=PACK
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-integer-contractions{panel=16},canonicalize,mlc-cpu-tile-and-vectorize{pair-multiply-add=llvm.x86.avx2.pmadd.wd}))' | FileCheck %s --check-prefix=X86
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-cpu-integer-contractions{panel=16},canonicalize,mlc-cpu-tile-and-vectorize))' | FileCheck %s --check-prefix=GENERIC

// A matmul of dequantized integers (uint8 activations with a zero point of
// 131, int8 weights with a zero point of 0) becomes: the activations
// widened to i16 minus 131, viewed as pairs [m, k / 2, 2]; the weights
// packed as i16 [n / panel, k / 2, panel, 2] (panel 2: panel 0 holds
// columns 0-1, each column's rows in pairs: (1, 5) (2, 6), then (9, 13)
// (10, 14)); an i32 contraction over (m, n1, n0, k2, p); the sums times
// sa * sw = 0.02 * 0.5 as f32.
// PACK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
// PACK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d2, d4)>
// PACK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// PACK-LABEL: func.func @packed
// PACK: arith.extui %{{.*}} : i8 to i16
// PACK: arith.subi %{{.*}}, %c131_i16 : i16
// PACK: %[[W:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[1, 5], [2, 6]], {{\[}}[9, 13], [10, 14]]], {{\[}}{{\[}}[3, 7], [4, 8]], {{\[}}[11, 15], [12, 16]]]]> : tensor<2x2x2x2xi16>
// PACK: %[[PAIRS:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [3, 2, 2] : tensor<3x4xi16> into tensor<3x2x2xi16>
// PACK: %[[ZERO:.*]] = arith.constant 0 : i32
// PACK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<3x2x2xi32>)
// PACK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAIRS]], %[[W]] : tensor<3x2x2xi16>, tensor<2x2x2x2xi16>) outs(%[[INIT]] : tensor<3x2x2xi32>)
// PACK: arith.extsi %{{.*}} : i16 to i32
// PACK: arith.extsi %{{.*}} : i16 to i32
// PACK: arith.muli
// PACK: arith.addi
// PACK: tensor.collapse_shape %[[SUMS]] {{\[}}[0], [1, 2]] : tensor<3x2x2xi32> into tensor<3x4xi32>
// PACK: arith.constant dense<0.00999999977> : tensor<4xf32>
// PACK: arith.sitofp %{{.*}} : i32 to f32
// PACK: arith.mulf
// PACK-NOT: linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
func.func @packed(%x: tensor<3x4xui8>) -> tensor<3x4xf32> {
  %sx = arith.constant dense<2.0e-02> : tensor<f32>
  %zx = arith.constant dense<131> : tensor<ui8>
  %wq = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<4x4xi8>
  %sw = arith.constant dense<5.0e-01> : tensor<f32>
  %zw = arith.constant dense<0> : tensor<i8>
  %e0 = tensor.empty() : tensor<3x4xf32>
  %a = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %sx, %zx : tensor<3x4xui8>, tensor<f32>, tensor<ui8>) outs(%e0 : tensor<3x4xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: ui8, %s: f32, %z: ui8, %out: f32):
    %zi = builtin.unrealized_conversion_cast %z : ui8 to i8
    %zf = arith.uitofp %zi : i8 to f32
    %vi = builtin.unrealized_conversion_cast %in : ui8 to i8
    %vf = arith.uitofp %vi : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<3x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %w = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<4x4xi8>, tensor<f32>, tensor<i8>) outs(%e1 : tensor<4x4xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %zf = arith.sitofp %z : i8 to f32
    %vf = arith.sitofp %in : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %y = linalg.matmul ins(%a, %w : tensor<3x4xf32>, tensor<4x4xf32>) outs(%init : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// The register level: per row and k / 2 step, the row's pair broadcast as
// one i32 and one multiply-add of pairs per 8 columns (vpmaddwd on AVX2),
// the accumulators in registers; elsewhere shuffles of the even and odd
// halves, sign extensions, multiplies and adds.
// X86-LABEL: func.func @matmul
// X86: scf.for
// X86: vector.transfer_read %{{.*}} : tensor<6x4x2xi16>, vector<6x1x2xi16>
// X86: vector.transfer_read %{{.*}} : tensor<32xi16>, vector<32xi16>
// X86: vector.bitcast %{{.*}} : vector<2xi16> to vector<1xi32>
// X86: vector.broadcast %{{.*}} : i32 to vector<8xi32>
// X86: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// X86: arith.addi %{{.*}}, %{{.*}} : vector<8xi32>
// X86-COUNT-11: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// X86-NOT: llvm.call_intrinsic
// X86: scf.yield %{{.*}} : vector<6x1x16xi32>
// GENERIC-LABEL: func.func @matmul
// GENERIC-NOT: llvm.call_intrinsic
// GENERIC: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xi16>, vector<16xi16>
// GENERIC: arith.extsi %{{.*}} : vector<8xi16> to vector<8xi32>
// GENERIC: arith.muli %{{.*}}, %{{.*}} : vector<8xi32>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
func.func @matmul(%x: tensor<6x8xui8>) -> tensor<6x32xf32> {
  %sx = arith.constant dense<2.0e-02> : tensor<f32>
  %zx = arith.constant dense<131> : tensor<ui8>
  %wq = arith.constant dense<3> : tensor<8x32xi8>
  %sw = arith.constant dense<5.0e-01> : tensor<f32>
  %zw = arith.constant dense<0> : tensor<i8>
  %e0 = tensor.empty() : tensor<6x8xf32>
  %a = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %sx, %zx : tensor<6x8xui8>, tensor<f32>, tensor<ui8>) outs(%e0 : tensor<6x8xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: ui8, %s: f32, %z: ui8, %out: f32):
    %zi = builtin.unrealized_conversion_cast %z : ui8 to i8
    %zf = arith.uitofp %zi : i8 to f32
    %vi = builtin.unrealized_conversion_cast %in : ui8 to i8
    %vf = arith.uitofp %vi : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<6x8xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %w = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<8x32xi8>, tensor<f32>, tensor<i8>) outs(%e1 : tensor<8x32xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %zf = arith.sitofp %z : i8 to f32
    %vf = arith.sitofp %in : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<6x32xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x32xf32>) -> tensor<6x32xf32>
  %y = linalg.matmul ins(%a, %w : tensor<6x8xf32>, tensor<8x32xf32>) outs(%init : tensor<6x32xf32>) -> tensor<6x32xf32>
  return %y : tensor<6x32xf32>
}

// -----

// An odd depth does not make pairs: the matmul stays in floats.
// PACK-LABEL: func.func @odd_depth
// PACK: linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
func.func @odd_depth(%x: tensor<6x7xui8>) -> tensor<6x32xf32> {
  %sx = arith.constant dense<2.0e-02> : tensor<f32>
  %zx = arith.constant dense<131> : tensor<ui8>
  %wq = arith.constant dense<3> : tensor<7x32xi8>
  %sw = arith.constant dense<5.0e-01> : tensor<f32>
  %zw = arith.constant dense<0> : tensor<i8>
  %e0 = tensor.empty() : tensor<6x7xf32>
  %a = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %sx, %zx : tensor<6x7xui8>, tensor<f32>, tensor<ui8>) outs(%e0 : tensor<6x7xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: ui8, %s: f32, %z: ui8, %out: f32):
    %zi = builtin.unrealized_conversion_cast %z : ui8 to i8
    %zf = arith.uitofp %zi : i8 to f32
    %vi = builtin.unrealized_conversion_cast %in : ui8 to i8
    %vf = arith.uitofp %vi : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<6x7xf32>
  %e1 = tensor.empty() : tensor<7x32xf32>
  %w = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<7x32xi8>, tensor<f32>, tensor<i8>) outs(%e1 : tensor<7x32xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %zf = arith.sitofp %z : i8 to f32
    %vf = arith.sitofp %in : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<7x32xf32>
  %e2 = tensor.empty() : tensor<6x32xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x32xf32>) -> tensor<6x32xf32>
  %y = linalg.matmul ins(%a, %w : tensor<6x7xf32>, tensor<7x32xf32>) outs(%init : tensor<6x32xf32>) -> tensor<6x32xf32>
  return %y : tensor<6x32xf32>
}

// -----

// Sums over more than 65793 products could leave i32 (255 x 128 each):
// the matmul stays in floats.
// PACK-LABEL: func.func @too_deep
// PACK: linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
func.func @too_deep(%x: tensor<6x65794xui8>) -> tensor<6x32xf32> {
  %sx = arith.constant dense<2.0e-02> : tensor<f32>
  %zx = arith.constant dense<131> : tensor<ui8>
  %wq = arith.constant dense<3> : tensor<65794x32xi8>
  %sw = arith.constant dense<5.0e-01> : tensor<f32>
  %zw = arith.constant dense<0> : tensor<i8>
  %e0 = tensor.empty() : tensor<6x65794xf32>
  %a = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %sx, %zx : tensor<6x65794xui8>, tensor<f32>, tensor<ui8>) outs(%e0 : tensor<6x65794xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: ui8, %s: f32, %z: ui8, %out: f32):
    %zi = builtin.unrealized_conversion_cast %z : ui8 to i8
    %zf = arith.uitofp %zi : i8 to f32
    %vi = builtin.unrealized_conversion_cast %in : ui8 to i8
    %vf = arith.uitofp %vi : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<6x65794xf32>
  %e1 = tensor.empty() : tensor<65794x32xf32>
  %w = linalg.generic {indexing_maps = [#id2, #sc2, #sc2, #id2], iterator_types = ["parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<65794x32xi8>, tensor<f32>, tensor<i8>) outs(%e1 : tensor<65794x32xf32>) attrs = {mlc_loop.dequantize} {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %zf = arith.sitofp %z : i8 to f32
    %vf = arith.sitofp %in : i8 to f32
    %d = arith.subf %vf, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<65794x32xf32>
  %e2 = tensor.empty() : tensor<6x32xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x32xf32>) -> tensor<6x32xf32>
  %y = linalg.matmul ins(%a, %w : tensor<6x65794xf32>, tensor<65794x32xf32>) outs(%init : tensor<6x32xf32>) -> tensor<6x32xf32>
  return %y : tensor<6x32xf32>
}
