// RUN: mlc-opt %s --mlc-cpu-scalar-min-max | FileCheck %s

// Scalar float min/max become LLVM's intrinsics of the same semantics, which
// LLVM's loop vectorizer takes as min/max reductions; vector ones are left
// for arith-expand.
// CHECK-LABEL: func.func @scalars
// CHECK: llvm.intr.maxnum(%arg0, %arg1) : (f32, f32) -> f32
// CHECK: llvm.intr.minnum
// CHECK: llvm.intr.maximum
// CHECK: llvm.intr.minimum
// CHECK-NOT: arith.m
func.func @scalars(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %0 = arith.maxnumf %a, %b : f32
  %1 = arith.minnumf %a, %b : f32
  %2 = arith.maximumf %a, %b : f32
  %3 = arith.minimumf %a, %b : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}

// CHECK-LABEL: func.func @vectors
// CHECK: arith.maximumf %arg0, %arg1 : vector<16xf32>
// CHECK: arith.maxnumf %arg0, %arg1 : vector<16xf32>
// CHECK-NOT: llvm.intr
func.func @vectors(%a: vector<16xf32>, %b: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %0 = arith.maximumf %a, %b : vector<16xf32>
  %1 = arith.maxnumf %a, %b : vector<16xf32>
  return %0, %1 : vector<16xf32>, vector<16xf32>
}
